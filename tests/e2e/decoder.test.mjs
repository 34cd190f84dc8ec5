// End-to-end: the stream decoder page (demo/decoder.html) in headless Chromium loads the package
// with a <script type="module"> and decodes recorded and pasted streams.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";

import { startAgent, stopAgent } from "./agent.mjs";
import { launch } from "./browser.mjs";

const shots = new URL("../../target/screenshots/", import.meta.url);
let agent, browser, page, base;

before(async () => {
  mkdirSync(shots, { recursive: true });
  ({ child: agent, url: base } = await startAgent());
  browser = await launch();
  page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(error));
  await page.goto(`${base}/decoder.html`);
  await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
  assert.deepEqual(errors, []);
});

after(async () => {
  await browser?.close();
  await stopAgent(agent);
});

test("a recorded pydantic-ai stream loads and lists every event", async () => {
  await page.selectOption("#samples", "/fixtures/agui-real/pydantic-ai/parallel-run1.sse");
  await page.waitForFunction(() => document.querySelectorAll("#events li").length > 0);
  const types = await page.$$eval("#events .type", (nodes) => nodes.map((n) => n.textContent));
  assert.equal(types[0], "RUN_STARTED");
  assert.equal(types.at(-1), "RUN_FINISHED");
  assert.equal(types.filter((t) => t === "TOOL_CALL_START").length, 2);
  assert.match(await page.textContent("#status"), /^12 events decoded/);
  await page.screenshot({ path: new URL("demo-decoded.png", shots).pathname, fullPage: true });
});

test("a pasted CRLF stream decodes", async () => {
  const stream = 'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\r\n\r\n' +
    'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\r\n\r\n';
  await page.fill("#input", stream);
  await page.click("#decode");
  assert.match(await page.textContent("#status"), /^2 events decoded/);
});

test("a broken stream shows the typed error and its event index", async () => {
  await page.fill("#input", 'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\ndata: {"type":"TEXT_MESSAGE_START","messageId":1}\n\n');
  await page.click("#decode");
  const status = await page.textContent("#status");
  assert.match(status, /ChatRuntimeError decode\/field at event 1/);
  assert.equal(await page.$$eval("#events li", (nodes) => nodes.length), 0);
  await page.screenshot({ path: new URL("demo-error.png", shots).pathname });
});

test("model text is shown as text, never as HTML", async () => {
  await page.fill("#input", 'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n' +
    'data: {"type":"CUSTOM","name":"<img src=x onerror=window.pwned=1>","value":1}\n\n');
  await page.click("#decode");
  assert.equal(await page.$$eval("#events img", (n) => n.length), 0);
  assert.equal(await page.evaluate(() => window.pwned), undefined);
});
