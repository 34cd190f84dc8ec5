// The published declarations: tsc (strict, no skipLibCheck) on a consumer of the installed tarball,
// under moduleResolution "bundler" and "nodenext" (the exports map's `types` conditions): an app and a
// tool author (index.ts), the runtime's options, tools, errors and subscribe's narrowing (runtime.ts),
// and apps typed by @ag-ui/core 1.0.0 (agui-1.ts) and 0.0.57 (agui-0.ts, the package aliased as
// `agui-core-0`). The `@ts-expect-error` lines must stay errors, so each file can fail both ways.
import { test, before, after } from "node:test";
import { join } from "node:path";

import { HERE, installFixture, run } from "./helpers.mjs";

let fixture;
before(async () => {
  fixture = await installFixture(join(HERE, "types"));
});
after(() => fixture?.cleanup());

const tsc = () => join(fixture.dir, "node_modules/typescript/bin/tsc");

test("types: chat-runtime and chat-runtime/react type-check for apps on @ag-ui/core 1.0.0 and 0.0.57 and tool authors (bundler resolution)", async () => {
  await run(process.execPath, [tsc(), "-p", "tsconfig.json"], { cwd: fixture.dir });
});

test("types: the same consumer under NodeNext resolution", async () => {
  await run(process.execPath, [tsc(), "-p", "tsconfig.nodenext.json"], { cwd: fixture.dir });
});
