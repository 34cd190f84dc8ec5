// The tarball in a webpack 5 production build with default settings (no experiments, no loaders).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";

import { launch } from "../e2e/browser.mjs";
import { EXPECTED, HERE, checkPage, installFixture, run, serveStatic } from "./helpers.mjs";

let fixture, browser;
before(async () => {
  [fixture, browser] = await Promise.all([installFixture(join(HERE, "webpack")), launch()]);
});
after(async () => {
  await browser?.close();
  fixture?.cleanup();
});

test("webpack 5 production build: the wasm becomes an asset and the page decodes a stream", async () => {
  await run(process.execPath, ["build.mjs"], { cwd: fixture.dir });
  const assets = readdirSync(join(fixture.dir, "dist"));
  assert.ok(assets.some((n) => n.endsWith(".wasm")), `a .wasm asset in dist/: ${assets}`);
  const server = await serveStatic(join(fixture.dir, "dist"));
  try {
    assert.deepEqual(await checkPage(browser, `${server.url}/`), EXPECTED);
  } finally {
    await server.close();
  }
});
