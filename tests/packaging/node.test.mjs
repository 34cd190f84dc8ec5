// The tarball in Node: the .wasm resolved through the exports map, initSync, decodeEventStream.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { EXPECTED, HERE, ROOT, installFixture, run } from "./helpers.mjs";

let fixture;
before(async () => {
  fixture = await installFixture(join(HERE, "node"));
});
after(() => fixture?.cleanup());

test("node: initSync with the wasm from import.meta.resolve / require.resolve, then decodeEventStream", async () => {
  const out = await run(process.execPath, ["main.mjs"], { cwd: fixture.dir });
  const version = JSON.parse(readFileSync(join(ROOT, "pkg/package.json"), "utf8")).version;
  assert.deepEqual(JSON.parse(out.trim().split("\n").at(-1)), { ...EXPECTED, sameFile: true, version });
});

test("node: the package's exports resolve, react and the Coder build included, and nothing outside them", async () => {
  const script = `
    const r = (s) => { try { return import.meta.resolve(s).replace(/^.*node_modules\\//, ""); } catch (e) { return e.code; } };
    console.log(JSON.stringify(["chat-runtime", "chat-runtime/react", "chat-runtime/chat_runtime_bg.wasm",
      "chat-runtime/package.json", "chat-runtime/chat_runtime.js", "chat-runtime/coder",
      "chat-runtime/coder/chat_runtime_bg.wasm"].map(r)));`;
  const out = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: fixture.dir });
  assert.deepEqual(JSON.parse(out.trim()), [
    "chat-runtime/chat_runtime.js",
    "chat-runtime/react.js",
    "chat-runtime/chat_runtime_bg.wasm",
    "chat-runtime/package.json",
    "ERR_PACKAGE_PATH_NOT_EXPORTED",
    "chat-runtime/coder/chat_runtime.js",
    "chat-runtime/coder/chat_runtime_bg.wasm",
  ]);
});
