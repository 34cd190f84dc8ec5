// The React app (demo/react: Vite + React 19, <StrictMode>, chat-runtime/react) on the packed
// tarball, in headless Chromium against the REAL demo agent (demo mode). The Vite dev server runs
// it (development React: StrictMode double-renders and double-mounts) and proxies /api, /tools and
// /test to the agent. One more test serves the production build through the agent itself.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";

import { launch } from "../e2e/browser.mjs";
import { ROOT, WAIT, freePort, installFixture, run, startServer } from "./helpers.mjs";

let fixture, browser, agent, agentUrl, dev, devUrl;

/** The demo agent, paced so that a message streams over several frames. */
function startAgent(statics) {
  const child = spawn(
    join(ROOT, "target/debug/chat-runtime-agent"),
    ["--mode", "demo", "--port", "0", "--pace-ms", "15", ...statics.flatMap((s) => ["--static", s])],
    { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`the demo agent did not start: ${out}`)), WAIT);
    child.once("exit", (code) => reject(new Error(`the demo agent exited (${code}): ${out}`)));
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url });
      }
    });
  });
}

async function stopChild(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once("exit", done));
  child.kill("SIGTERM");
  await exited;
}

before(async () => {
  [fixture, browser, { child: agent, url: agentUrl }] = await Promise.all([
    installFixture(join(ROOT, "demo/react")),
    launch(),
    startAgent(["/tools=demo/tools"]),
  ]);
  const port = await freePort();
  devUrl = `http://127.0.0.1:${port}`;
  dev = await startServer(
    "/usr/bin/env",
    [`AGENT_URL=${agentUrl}`, process.execPath, join(fixture.dir, "node_modules/vite/bin/vite.js"), "--host", "127.0.0.1", "--port", String(port), "--strictPort"],
    { cwd: fixture.dir, url: `${devUrl}/` },
  );
});

after(async () => {
  await browser?.close();
  await dev?.stop();
  await stopChild(agent);
  fixture?.cleanup();
});

// ---- helpers ------------------------------------------------------------------------------------

let threads = 0;
/** A fresh context (its own localStorage) with the app on a thread of its own. */
async function openApp(base = devUrl, context = null) {
  const ctx = context ?? (await browser.newContext());
  const thread = `react-${process.pid}-${Date.now()}-${++threads}`;
  const page = await openThread(ctx, base, thread);
  return { context: ctx, page, thread };
}

async function openThread(context, base, thread) {
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(String(e)));
  await page.goto(`${base}/?thread=${thread}`);
  await page.waitForSelector(".app[data-ready=true] input[data-tool=get_weather]", { timeout: WAIT });
  return page;
}

async function done({ context, page }) {
  assert.deepEqual(page.errors, [], "no uncaught errors in the page");
  await context.close();
}

/** Sends a message and waits for the run to end; returns the status line's data-status. */
async function say(page, text) {
  const before = await page.$$eval("#messages > li", (l) => l.length);
  await page.fill("#input", text);
  await page.click("#send");
  await page.waitForFunction((n) => document.querySelectorAll("#messages > li").length > n, before, { timeout: WAIT });
  await page.waitForSelector("#status[data-running=false]", { timeout: WAIT });
  return page.getAttribute("#status", "data-status");
}

const lastAssistantText = (page) =>
  page.$$eval("#messages > li[data-role=assistant] .text", (els) => els.at(-1)?.textContent ?? "");

async function requests(thread, base = agentUrl) {
  const res = await fetch(`${base}/test/requests?threadId=${encodeURIComponent(thread)}`);
  return res.json();
}

const toolNames = (request) => (request.body.tools ?? []).map((t) => t.name).sort();

// ---- tests ----------------------------------------------------------------------------------------

test("toggles: a tool that is off makes the agent say so; switched on, it runs and the answer uses it", async () => {
  const app = await openApp();
  const { page, thread } = app;
  assert.equal(await page.isChecked("input[data-tool=get_weather]"), false, "frontend tools start off");
  assert.equal(await page.textContent("#active-count"), "0");

  assert.equal(await say(page, "What's the weather in Paris?"), "completed");
  assert.match(await lastAssistantText(page), /^I can't check the weather: the get_weather tool is turned off/);
  let sent = await requests(thread);
  assert.equal(sent.length, 1, "one run request for the send");
  assert.deepEqual(toolNames(sent[0]), []);

  await page.check("input[data-tool=get_weather]");
  await page.waitForFunction(() => document.querySelector("#active-count").textContent === "1");
  assert.equal(await say(page, "What's the weather in Paris?"), "completed");
  assert.equal(await lastAssistantText(page), "In Paris it is 18°C and partly cloudy.");
  sent = await requests(thread);
  assert.equal(sent.length, 3, "the second send: one run plus one restart with the tool result");
  assert.deepEqual(toolNames(sent[1]), ["get_weather"]);
  await done(app);
});

test("a toggle store created after the catalog loaded (a new thread): setEnabled works and is saved", async () => {
  // The catalog is loaded for the first thread; the user opens a new one, as in any chat app.
  const app = await openApp();
  const { page } = app;
  await page.click("#new-thread");
  await page.waitForFunction((t) => document.querySelector(".app").dataset.thread !== t, app.thread, { timeout: WAIT });
  const thread = await page.getAttribute(".app", "data-thread");
  await page.waitForSelector(".app[data-ready=true] input[data-tool=get_weather]:not(:checked)", { timeout: WAIT });
  await page.check("input[data-tool=get_weather]");
  await page.waitForFunction(() => document.querySelector("#active-count").textContent === "1", null, { timeout: WAIT });
  const saved = await page.evaluate((t) => localStorage.getItem(`chat:tools:${t}`), thread);
  assert.deepEqual(JSON.parse(saved), { get_weather: true }, "the toggle is saved for the new thread");
  await page.uncheck("input[data-tool=get_weather]");
  await page.waitForFunction(() => document.querySelector("#active-count").textContent === "0", null, { timeout: WAIT });
  await done(app);
});

test("toggles made in another tab show up without a reload", async () => {
  const app = await openApp();
  const other = await openThread(app.context, devUrl, app.thread);
  await other.check("input[data-tool=calculate]");
  await app.page.waitForSelector("input[data-tool=calculate]:checked", { timeout: WAIT });
  assert.equal(await app.page.textContent("#active-count"), "1");
  assert.deepEqual(other.errors, []);
  await done(app);
});

test("StrictMode: one run request per send and per round, each tool executed once, multi-round answer", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await page.check("input[data-tool=get_weather]");
  await page.check("input[data-tool=get_browser_time]");
  await page.waitForFunction(() => document.querySelector("#active-count").textContent === "2");

  assert.equal(await say(page, "What time is it and what's the weather in Paris?"), "completed");
  const answer = await lastAssistantText(page);
  assert.match(answer, /^Your browser says it is .+\. In Paris it is 18°C and partly cloudy\.$/);
  assert.match(await page.textContent("#status"), /completed \(2 rounds\)/);

  const sent = await requests(thread);
  assert.equal(sent.length, 2, "exactly one request for the send and one for the restart");
  const toolMessages = sent[1].body.messages.filter((m) => m.role === "tool");
  assert.equal(toolMessages.length, 2, "the restart carries the two results, once each");
  const runs = await page.evaluate(() => window.__chatTrace.toolRuns);
  assert.equal(runs.length, 2, `each tool executed once: ${runs}`);
  assert.deepEqual([...new Set(runs)].sort(), toolMessages.map((m) => m.toolCallId).sort());

  // A second turn on the same thread: the history goes on, still one request per round.
  await page.check("input[data-tool=calculate]");
  assert.equal(await say(page, "Calculate 2+3*4"), "completed");
  assert.equal(await lastAssistantText(page), "2+3*4 = 14.");
  assert.equal((await requests(thread)).length, 4);
  assert.equal((await page.evaluate(() => window.__chatTrace.toolRuns)).length, 3);
  await done(app);
});

test("memo: earlier messages keep their identity and do not re-render while a later one streams", async () => {
  const app = await openApp();
  const { page } = app;
  await page.check("input[data-tool=get_weather]");
  await page.evaluate(() => (window.__chatTrace.renders.length = 0));
  assert.equal(await say(page, "What's the weather in Paris?"), "completed");

  const ids = await page.$$eval("#messages > li", (els) => els.map((el) => [el.dataset.role, el.dataset.id]));
  assert.deepEqual(ids.map(([role]) => role), ["user", "assistant", "tool", "assistant"]);
  const renders = await page.evaluate(() => window.__chatTrace.renders);
  const last = ids.at(-1)[1];
  const firstOfLast = renders.indexOf(last);
  assert.ok(firstOfLast >= 0);
  const lastRenders = renders.filter((id) => id === last).length;
  // StrictMode renders twice per update in development: more than 2 renders = several updates.
  assert.ok(lastRenders > 2, `the final answer streamed over several renders (${lastRenders})`);
  const earlier = new Set(ids.slice(0, -1).map(([, id]) => id));
  const rerendered = renders.slice(firstOfLast).filter((id) => earlier.has(id));
  assert.deepEqual(rerendered, [], "no earlier message rendered again while the answer streamed");
  await done(app);
});

test("abort: Stop during a tool that waits for the user ends the run aborted, the tool's card goes away", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await page.check("input[data-tool=confirm_action]");
  await page.fill("#input", "Please delete all my notes.");
  await page.click("#send");
  await page.waitForSelector(".confirm", { timeout: WAIT });
  assert.match(await page.textContent(".confirm"), /delete all my notes/);
  await page.click("#stop");
  await page.waitForSelector("#status[data-running=false][data-status=aborted]", { timeout: WAIT });
  await page.waitForSelector(".confirm", { state: "detached", timeout: WAIT });
  const tool = await page.$$eval("#messages > li[data-role=tool]", (els) => els.map((el) => [el.dataset.error, el.textContent]));
  assert.equal(tool.length, 1);
  assert.equal(tool[0][0], "true");
  assert.match(tool[0][1], /^TOOL ERROR: INTERRUPTED/);
  assert.equal((await requests(thread)).length, 1, "nothing restarted after Stop");
  assert.equal((await page.evaluate(() => window.__chatTrace.toolRuns)).length, 1);
  await done(app);
});

test("production build (vite build) served by the agent: a tool conversation works", async () => {
  await run(process.execPath, [join(fixture.dir, "node_modules/vite/bin/vite.js"), "build"], { cwd: fixture.dir });
  const { child, url } = await startAgent([`/=${join(fixture.dir, "dist")}`, "/tools=demo/tools"]);
  try {
    const app = await openApp(url);
    await app.page.check("input[data-tool=get_weather]");
    assert.equal(await say(app.page, "What's the weather in Paris?"), "completed");
    assert.equal(await lastAssistantText(app.page), "In Paris it is 18°C and partly cloudy.");
    assert.equal((await requests(app.thread, url)).length, 2);
    await done(app);
  } finally {
    await stopChild(child);
  }
});

test("before the runtime exists, useThread().run rejects and useToolToggles().setEnabled throws a ChatRuntimeError (react/not-ready)", async () => {
  // In Node, on the installed package: rendered on the server, a provider-less component gets the
  // hooks' not-ready handles.
  const script = `
    import { createElement } from "react";
    import { renderToString } from "react-dom/server";
    import { ChatRuntimeError } from "chat-runtime";
    import { useThread, useToolToggles } from "chat-runtime/react";
    let thread, toggles;
    function Probe() {
      thread = useThread("t1");
      toggles = useToolToggles("t1");
      return null;
    }
    renderToString(createElement(Probe));
    const describe = (e) => ({ instance: e instanceof ChatRuntimeError, isError: e instanceof Error, name: e.name, code: e.code });
    let thrown = null;
    try { toggles.setEnabled("get_weather", true); } catch (e) { thrown = describe(e); }
    const rejected = await thread.run("hi").then(() => null, describe);
    console.log(JSON.stringify({ ready: thread.ready, thrown, rejected }));`;
  const out = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: fixture.dir });
  const notReady = { instance: true, isError: true, name: "ChatRuntimeError", code: "react/not-ready" };
  assert.deepEqual(JSON.parse(out.trim().split("\n").at(-1)), { ready: false, thrown: notReady, rejected: notReady });
});
