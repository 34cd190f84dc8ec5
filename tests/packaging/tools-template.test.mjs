// The tarball's command line and license files, through the tool authors' template
// (deploy/tools-template/: tools-src/*.ts -> public/tools/*.js): the template is copied to a temp
// project, the tarball installed, the tools compiled against the package's `ToolHandler` type, and
// `npx chat-runtime check-tools public/tools` run on it, then on a broken copy.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { ROOT, installFixture, run, tarball } from "./helpers.mjs";

let fixture;
before(async () => {
  fixture = await installFixture(join(ROOT, "deploy/tools-template"));
});
after(() => fixture?.cleanup());

/** `npx chat-runtime ...` in the project; `{ code, out }`. */
async function npx(...args) {
  try {
    return { code: 0, out: await run("npx", ["--no-install", "chat-runtime", ...args], { cwd: fixture.dir }) };
  } catch (error) {
    const code = Number(/exited (\d+):/.exec(error.message)?.[1]);
    return { code, out: error.message };
  }
}

test("the tarball ships LICENSE-MIT, LICENSE-APACHE and the bin (es-module-lexer inside it), and has no dependencies", async () => {
  const listing = await run("tar", ["tzf", tarball()], { cwd: ROOT });
  const files = listing.trim().split("\n");
  for (const file of ["package/LICENSE-MIT", "package/LICENSE-APACHE", "package/bin/chat-runtime.js", "package/bin/check-tools.js", "package/bin/vendor/es-module-lexer.js", "package/bin/vendor/es-module-lexer.LICENSE"]) {
    assert.ok(files.includes(file), `${file} in the tarball`);
  }
  const installed = join(fixture.dir, "node_modules/chat-runtime");
  assert.match(readFileSync(join(installed, "LICENSE-MIT"), "utf8"), /^MIT License\n\nCopyright \(c\) the chat-runtime authors/);
  assert.match(readFileSync(join(installed, "LICENSE-APACHE"), "utf8"), /Apache License\s+Version 2\.0, January 2004/);
  const pkg = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
  assert.equal(pkg.license, "MIT OR Apache-2.0");
  assert.deepEqual(pkg.bin, { "chat-runtime": "bin/chat-runtime.js" });
  assert.equal(pkg.dependencies, undefined, "no dependencies: the command's lexer ships in bin/vendor/");
  assert.match(readFileSync(join(installed, "bin/vendor/es-module-lexer.LICENSE"), "utf8"), /^MIT License/);
  // What an app installs with it: chat-runtime alone (npm ls --omit=dev).
  const app = await installFixture(join(ROOT, "tests/packaging/node"));
  try {
    // --parseable: one line per installed package (the optional peer `react`, absent here, is not one).
    const installed = (await run("npm", ["ls", "--omit=dev", "--all", "--parseable"], { cwd: app.dir })).trim().split("\n").slice(1);
    assert.deepEqual(installed.map((path) => path.slice(app.dir.length + 1)), ["node_modules/chat-runtime"], "chat-runtime brings nothing along");
  } finally {
    app.cleanup();
  }
});

test("the template compiles against the package's ToolHandler type and `npx chat-runtime check-tools public/tools` passes", async () => {
  await run("npx", ["--no-install", "tsc", "-p", "tools-src"], { cwd: fixture.dir });
  assert.ok(existsSync(join(fixture.dir, "public/tools/weather.js")));
  assert.ok(!readFileSync(join(fixture.dir, "public/tools/weather.js"), "utf8").includes("chat-runtime"), "the type import is erased");
  const { code, out } = await npx("check-tools", "public/tools");
  assert.equal(code, 0, out);
  assert.match(out, /public\/tools: 2 tools load; 0 errors, 0 warnings/);
});

test("npx chat-runtime check-tools on a broken folder exits 1 with the file and the entry", async () => {
  await run("npx", ["--no-install", "tsc", "-p", "tools-src"], { cwd: fixture.dir });
  const manifest = join(fixture.dir, "public/tools/tools.json");
  const entries = JSON.parse(readFileSync(manifest, "utf8"));
  entries[0].entrypoint = "getWether";
  entries[1].tool.name = "get browser time";
  writeFileSync(manifest, JSON.stringify(entries));
  const { code, out } = await npx("check-tools", "public/tools");
  assert.equal(code, 1, out);
  assert.match(out, /^tools\.json: #1 get browser time: tool\/bad-name: /m);
  assert.match(out, /^weather\.js: #0 get_weather: check\/missing-export: weather\.js does not export "getWether" \(it exports getWeather\)$/m);
});
