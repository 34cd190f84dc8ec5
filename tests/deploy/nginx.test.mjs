// deploy/nginx.conf under Debian's real nginx, over the demo: the page (demo/), the package (pkg/ at
// /pkg/), the tools (a temp copy of demo/tools at /tools/, as a ConfigMap would be mounted) and the
// demo agent behind /api/. Headless Chromium loads the page and runs get_weather; the tool module is
// then rewritten on disk and, after a reload, the page runs the new code: no rebuild, no restart.
// Needs `make build` (pkg/, demo/tools/*.js), the demo agent and nginx (`make test-deploy` does all).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";

import { startAgent, stopAgent } from "../e2e/agent.mjs";
import { launch } from "../e2e/browser.mjs";
import { ROOT, accessLines, startNginx } from "./nginx.mjs";

const WAIT = 30_000;
const WASM = join(ROOT, "pkg/chat_runtime_bg.wasm");
// A bundler's hashed copy of the wasm under /assets/ (Vite names it so), and of the glue.
const HASHED = "assets/chat_runtime_bg-D3adB33f.wasm";
const HASHED_JS = "assets/index-B1x2y3z4.js";

let temp, app, agent, nginx, browser;

before(async () => {
  for (const file of ["pkg/chat_runtime.js", "pkg/chat_runtime_bg.wasm", "demo/tools/weather.js"]) {
    assert.ok(existsSync(join(ROOT, file)), `${file} is missing: run \`make build\``);
  }
  temp = mkdtempSync(join(tmpdir(), "chat-runtime-nginx-"));
  app = join(temp, "html");
  mkdirSync(join(app, "assets"), { recursive: true });
  for (const file of ["index.html", "app.js", "app.css", "inspector.js", "inspector.css"]) symlinkSync(join(ROOT, "demo", file), join(app, file));
  symlinkSync(join(ROOT, "pkg"), join(app, "pkg"));
  cpSync(WASM, join(app, HASHED));
  cpSync(join(ROOT, "pkg/chat_runtime.js"), join(app, HASHED_JS));
  // The tools are a copy the test edits, as an operator edits a ConfigMap.
  cpSync(join(ROOT, "demo/tools"), join(app, "tools"), { recursive: true });
  // The demo agent answers the runs only (no static files); nginx serves the rest.
  const started = await startAgent({ statics: [] });
  agent = started.child;
  nginx = await startNginx({ prefix: join(temp, "nginx"), root: app, upstream: started.url });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await nginx?.stop();
  await stopAgent(agent);
  if (temp && process.env.KEEP_FIXTURES !== "1") rmSync(temp, { recursive: true, force: true });
});

/** GET with the given headers through node:http (no automatic decompression); resolves with status, headers, raw body. */
function get(path, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = request(`${nginx.url}${path}`, { headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.once("error", reject);
    req.end();
  });
}

// ---- the page: a tool module changed on disk runs after a reload ------------------------------

async function ask(page, text) {
  const before = await page.$$eval(".msg.user", (n) => n.length);
  await page.fill("#input", text);
  await page.click("#send");
  await page.waitForFunction((n) => document.querySelectorAll(".msg.user").length > n, before, { timeout: WAIT });
  await page.waitForFunction(
    () => !document.getElementById("send").hidden && document.getElementById("run-status").dataset.status !== "running",
    null,
    { timeout: WAIT },
  );
  return page.$$eval(".msg.assistant .bubble", (nodes) => nodes.map((n) => n.textContent).filter(Boolean).at(-1) ?? "");
}

async function enableTool(page, name) {
  await page.click("#tools-button");
  await page.waitForSelector("#tools-panel:not([hidden])", { timeout: WAIT });
  const toggle = page.locator(`#tools-panel input[role=switch][data-tool="${name}"]`);
  if (!(await toggle.isChecked())) await toggle.click();
  assert.equal(await toggle.isChecked(), true);
  await page.keyboard.press("Escape");
}

test("through nginx: the page runs a tool; the module is rewritten on disk and the reloaded page runs the new code, the wasm arriving gzip-compressed", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const wasmResponses = [];
  page.on("response", (r) => r.url().endsWith(".wasm") && wasmResponses.push(r));
  try {
    await page.goto(`${nginx.url}/`);
    await page.waitForSelector("body[data-ready=true]", { timeout: WAIT });

    // The wasm as the browser received it: application/wasm, gzip.
    assert.equal(wasmResponses.length, 1, "the page loads the wasm once");
    const wasmHeaders = await wasmResponses[0].allHeaders();
    assert.equal(wasmHeaders["content-type"], "application/wasm");
    assert.equal(wasmHeaders["content-encoding"], "gzip");

    await enableTool(page, "get_weather");
    assert.match(await ask(page, "What's the weather in Paris?"), /In Paris it is 18°C and partly cloudy/);

    // An operator changes the tool: the same file name, new code (a ConfigMap update does the same).
    const module = join(app, "tools/weather.js");
    const source = readFileSync(module, "utf8");
    const edited = source.replace(`{ city: "Paris", country: "France", temperatureC: 18, conditions: "partly cloudy"`, `{ city: "Paris", country: "France", temperatureC: 31, conditions: "heatwave"`);
    assert.notEqual(edited, source, "the test's edit applies to demo/tools/weather.js");
    writeFileSync(module, edited);

    const logFrom = accessLines(nginx.accessLog).length;
    await page.reload();
    await page.waitForSelector("body[data-ready=true]", { timeout: WAIT });
    assert.match(await ask(page, "What's the weather in Paris again?"), /In Paris it is 31°C and heatwave/);

    // How the reload got there: the browser had both files cached and asked nginx whether they
    // changed (If-None-Match): tools.json had not (304), weather.js had (200, the new code).
    const reloaded = accessLines(nginx.accessLog, logFrom);
    const manifest = reloaded.filter((l) => l.uri === "/tools/tools.json");
    const tool = reloaded.filter((l) => l.uri === "/tools/weather.js");
    assert.deepEqual(manifest.map((l) => [l.status, l.ifNoneMatch !== ""]), [[304, true]], JSON.stringify(reloaded));
    assert.deepEqual(tool.map((l) => [l.status, l.ifNoneMatch !== ""]), [[200, true]], JSON.stringify(reloaded));
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

// ---- the headers, one location at a time ---------------------------------------------------------

test("the wasm: application/wasm, gzip when asked for (identical bytes once inflated), plain otherwise; unhashed it is revalidated", async () => {
  const original = readFileSync(WASM);
  const zipped = await get("/pkg/chat_runtime_bg.wasm", { "accept-encoding": "gzip" });
  assert.equal(zipped.status, 200);
  assert.equal(zipped.headers["content-type"], "application/wasm");
  assert.equal(zipped.headers["content-encoding"], "gzip");
  assert.equal(zipped.headers.vary, "Accept-Encoding");
  assert.equal(zipped.headers["cache-control"], "no-cache");
  assert.ok(zipped.body.length < original.length * 0.6, `compressed ${zipped.body.length} of ${original.length} bytes`);
  assert.ok(gunzipSync(zipped.body).equals(original));

  const plain = await get("/pkg/chat_runtime_bg.wasm");
  assert.equal(plain.headers["content-type"], "application/wasm");
  assert.equal(plain.headers["content-encoding"], undefined);
  assert.ok(plain.body.equals(original));
});

test("a precompressed .wasm.gz next to the file is what nginx sends (gzip_static)", async () => {
  const marker = Buffer.from("precompressed by the build");
  const { gzipSync } = await import("node:zlib");
  writeFileSync(join(app, `${HASHED}.gz`), gzipSync(marker));
  try {
    const res = await get(`/${HASHED}`, { "accept-encoding": "gzip" });
    assert.equal(res.headers["content-encoding"], "gzip");
    assert.equal(res.headers["content-type"], "application/wasm");
    assert.ok(gunzipSync(res.body).equals(marker), "the .gz file's content, not the wasm compressed on the fly");
  } finally {
    rmSync(join(app, `${HASHED}.gz`));
  }
});

test("hashed bundler output under /assets/ is cached for a year as immutable, the wasm compressed too", async () => {
  const res = await get(`/${HASHED}`, { "accept-encoding": "gzip" });
  assert.equal(res.status, 200);
  assert.equal(res.headers["content-type"], "application/wasm");
  assert.equal(res.headers["content-encoding"], "gzip");
  assert.equal(res.headers["cache-control"], "public, max-age=31536000, immutable");
  assert.equal((await get("/assets/missing-0000.js")).status, 404, "a missing asset is a 404, not index.html");
});

test("/tools/: revalidated with an ETag (304 when unchanged); a missing tools.json is a 404, never index.html; an unknown app route is index.html", async () => {
  const manifest = await get("/tools/tools.json");
  assert.equal(manifest.status, 200);
  assert.equal(manifest.headers["cache-control"], "no-cache");
  assert.match(manifest.headers["content-type"], /^application\/json/);
  assert.deepEqual(JSON.parse(manifest.body).map((e) => e.tool.name).slice(0, 2), ["get_browser_time", "get_weather"]);
  const etag = manifest.headers.etag;
  assert.ok(etag, "an ETag");
  assert.equal((await get("/tools/tools.json", { "if-none-match": etag })).status, 304);

  const module = await get("/tools/clock.js");
  assert.equal(module.headers["cache-control"], "no-cache");
  assert.match(module.headers["content-type"], /javascript/);

  const index = readFileSync(join(ROOT, "demo/index.html"));
  renameSync(join(app, "tools/tools.json"), join(app, "tools/tools.json.off"));
  try {
    const missing = await get("/tools/tools.json");
    assert.equal(missing.status, 404);
    assert.ok(!missing.body.equals(index), "not the app's index.html");
  } finally {
    renameSync(join(app, "tools/tools.json.off"), join(app, "tools/tools.json"));
  }

  const route = await get("/threads/thread-1");
  assert.equal(route.status, 200);
  assert.match(route.headers["content-type"], /^text\/html/);
  assert.equal(route.headers["cache-control"], "no-cache");
  assert.ok(route.body.equals(index), "an app route is the SPA's index.html");
});

// Every kind of file the recipe serves, with the Cache-Control of its location (a 404 under
// /assets/ has none: a year-long cache of a missing name would outlive a rolling deploy). Each location that
// has an add_header of its own loses the server's, so each must say nosniff itself.
const IMMUTABLE = "public, max-age=31536000, immutable";
const SERVED = [
  ["the page (/)", "/", {}, 200, "no-cache"],
  ["index.html", "/index.html", {}, 200, "no-cache"],
  ["an app route (index.html)", "/threads/thread-1", {}, 200, "no-cache"],
  ["the page's script", "/app.js", {}, 200, "no-cache"],
  ["the page's stylesheet", "/app.css", {}, 200, "no-cache"],
  ["the package's glue", "/pkg/chat_runtime.js", {}, 200, "no-cache"],
  ["the unhashed wasm", "/pkg/chat_runtime_bg.wasm", {}, 200, "no-cache"],
  ["the unhashed wasm, gzip", "/pkg/chat_runtime_bg.wasm", { "accept-encoding": "gzip" }, 200, "no-cache"],
  ["a hashed script under /assets/", `/${HASHED_JS}`, {}, 200, IMMUTABLE],
  ["the hashed wasm under /assets/", `/${HASHED}`, { "accept-encoding": "gzip" }, 200, IMMUTABLE],
  ["a missing asset (404)", "/assets/missing-0000.js", {}, 404, undefined],
  ["a missing wasm under /assets/ (404)", "/assets/missing-0000.wasm", {}, 404, undefined],
  ["tools.json", "/tools/tools.json", {}, 200, "no-cache"],
  ["a tool module", "/tools/clock.js", {}, 200, "no-cache"],
  ["a missing tool module (404)", "/tools/missing.js", {}, 404, "no-cache"],
];

for (const [what, path, headers, status, cacheControl] of SERVED) {
  test(`X-Content-Type-Options: nosniff on ${what}, with its Cache-Control`, async () => {
    const res = await get(path, headers);
    assert.equal(res.status, status);
    assert.equal(res.headers["x-content-type-options"], "nosniff", JSON.stringify(res.headers));
    assert.equal(res.headers["cache-control"], cacheControl);
  });
}

test("X-Content-Type-Options: nosniff on a 304 revalidation of tools.json", async () => {
  const { etag } = (await get("/tools/tools.json")).headers;
  const res = await get("/tools/tools.json", { "if-none-match": etag });
  assert.equal(res.status, 304);
  assert.equal(res.headers["x-content-type-options"], "nosniff");
  assert.equal(res.headers["cache-control"], "no-cache");
});

test("/api/ is proxied to the AG-UI server: the event stream arrives as text/event-stream, uncompressed", async () => {
  const body = JSON.stringify({
    threadId: "t-nginx",
    runId: "r-1",
    messages: [{ id: "m1", role: "user", content: "hello" }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  });
  const res = await fetch(`${nginx.url}/api/threads/t-nginx/runs`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", "accept-encoding": "gzip" },
    body,
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type"), /^text\/event-stream/);
  assert.equal(res.headers.get("content-encoding"), null);
  const text = await res.text();
  assert.match(text, /"type":"RUN_STARTED"/);
  assert.match(text, /"type":"RUN_FINISHED"/);
});
