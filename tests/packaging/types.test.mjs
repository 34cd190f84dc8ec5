// The published declarations: tsc (strict, no skipLibCheck) on a consumer of the installed tarball,
// under moduleResolution "bundler" and "nodenext" (the exports map's `types` conditions).
import { test, before, after } from "node:test";
import { join } from "node:path";

import { HERE, installFixture, run } from "./helpers.mjs";

let fixture;
before(async () => {
  fixture = await installFixture(join(HERE, "types"));
});
after(() => fixture?.cleanup());

const tsc = () => join(fixture.dir, "node_modules/typescript/bin/tsc");

test("types: chat-runtime and chat-runtime/react type-check for apps and tool authors (bundler resolution)", async () => {
  await run(process.execPath, [tsc(), "-p", "tsconfig.json"], { cwd: fixture.dir });
});

test("types: the same consumer under NodeNext resolution", async () => {
  await run(process.execPath, [tsc(), "-p", "tsconfig.nodenext.json"], { cwd: fixture.dir });
});
