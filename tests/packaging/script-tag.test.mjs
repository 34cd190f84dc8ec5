// The unpacked tarball loaded by a plain <script type="module"> page, no bundler, no npm install.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";

import { launch } from "../e2e/browser.mjs";
import { EXPECTED, HERE, checkPage, installFixture, run, serveStatic, tarball } from "./helpers.mjs";

let fixture, browser;
before(async () => {
  [fixture, browser] = await Promise.all([installFixture(join(HERE, "script-tag"), { installTarball: false }), launch()]);
  await run("tar", ["xzf", tarball()], { cwd: fixture.dir }); // -> ./package/
});
after(async () => {
  await browser?.close();
  fixture?.cleanup();
});

test("<script type=module> from the unpacked tarball: init() finds the wasm beside the glue", async () => {
  const server = await serveStatic(fixture.dir);
  try {
    assert.deepEqual(await checkPage(browser, `${server.url}/`), EXPECTED);
  } finally {
    await server.close();
  }
});
