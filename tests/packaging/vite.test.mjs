// The tarball in a Vite 8 project: the dev server, then `vite build` + `vite preview`.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";

import { launch } from "../e2e/browser.mjs";
import { EXPECTED, HERE, checkPage, freePort, installFixture, run, startServer } from "./helpers.mjs";

let fixture, browser;
before(async () => {
  [fixture, browser] = await Promise.all([installFixture(join(HERE, "vite")), launch()]);
});
after(async () => {
  await browser?.close();
  fixture?.cleanup();
});

const vite = (dir) => join(dir, "node_modules/vite/bin/vite.js");

test("vite dev server: the page imports chat-runtime, inits the wasm and decodes a stream", async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const server = await startServer(process.execPath, [vite(fixture.dir), "--host", "127.0.0.1", "--port", String(port), "--strictPort"], {
    cwd: fixture.dir,
    url,
  });
  try {
    assert.deepEqual(await checkPage(browser, url), EXPECTED);
  } finally {
    await server.stop();
  }
});

test("vite build + preview: the production bundle ships the wasm and works", async () => {
  await run(process.execPath, [vite(fixture.dir), "build"], { cwd: fixture.dir }); // rejects if the build fails
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const server = await startServer(process.execPath, [vite(fixture.dir), "preview", "--host", "127.0.0.1", "--port", String(port), "--strictPort"], {
    cwd: fixture.dir,
    url,
  });
  try {
    assert.deepEqual(await checkPage(browser, url), EXPECTED);
  } finally {
    await server.stop();
  }
});
