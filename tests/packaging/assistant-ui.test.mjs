// chat-runtime/assistant-ui on the packed tarball: the assistant-ui demo (demo/assistant-ui: Vite 8,
// React 19, TypeScript strict with skipLibCheck false, @assistant-ui/react 0.15.2 as the Jaeger UI
// pins it) type-checked (`tsc`, no cast at the boundary), built (`vite build`), then served by the
// demo agent in gateway mode (RFC 0002's stream) and driven in headless Chromium through the real
// assistant-ui primitives (ComposerPrimitive, ThreadPrimitive, MessagePrimitive.Parts, a tool UI
// of makeAssistantToolUI, `aui.thread().append`). Scripted responses (/test/script, first in any
// mode) give the exact streams of the parity rows. The same checks of types and build run again
// with the latest 0.x of @assistant-ui/react (ASSISTANT_UI_LATEST, default below).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

import { startAgent, stopAgent } from "../e2e/agent.mjs";
import { launch } from "../e2e/browser.mjs";
import { ROOT, WAIT, installFixture, run, startViteDev } from "./helpers.mjs";

const LATEST = process.env.ASSISTANT_UI_LATEST ?? "0.15.22";

let fixture, browser, agent, base, stopDev, devUrl;

before(async () => {
  [fixture, browser] = await Promise.all([installFixture(join(ROOT, "demo/assistant-ui")), launch()]);
  await run(process.execPath, [join(fixture.dir, "node_modules/typescript/bin/tsc"), "-p", "."], { cwd: fixture.dir });
  await run(process.execPath, [join(fixture.dir, "node_modules/vite/bin/vite.js"), "build"], { cwd: fixture.dir });
  ({ child: agent, url: base } = await startAgent({
    mode: "gateway",
    paceMs: 5,
    statics: [`/=${join(fixture.dir, "dist")}`, "/tools=demo/tools"],
    timeoutMs: WAIT,
  }));
  // The dev server too (development React: StrictMode double-renders and double-mounts).
  ({ url: devUrl, stop: stopDev } = await startViteDev(fixture.dir, base));
});

after(async () => {
  await browser?.close();
  await stopDev?.();
  await stopAgent(agent);
  fixture?.cleanup();
});

// ---- helpers ------------------------------------------------------------------------------------

let threads = 0;
const freshThread = () => `aui-${process.pid}-${Date.now()}-${++threads}`;

async function openApp({ query = "", at = base } = {}) {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.errors = [];
  page.wasm = [];
  page.on("pageerror", (e) => page.errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && !/^Failed to load resource/.test(m.text()) && page.errors.push(`console: ${m.text()}`));
  page.on("request", (r) => r.url().endsWith(".wasm") && page.wasm.push(r.url()));
  const thread = freshThread();
  await page.goto(`${at}/?thread=${thread}${query}`);
  await page.waitForSelector(".app #trace-list", { timeout: WAIT });
  return { context, page, thread };
}

async function openPanel(page) {
  await page.click("#ask");
  await page.waitForSelector(".thread[data-wasm=ready]", { timeout: WAIT });
}

async function done({ context, page }) {
  assert.deepEqual(page.errors, [], "no uncaught errors in the page");
  await context.close();
}

async function requests(thread) {
  return (await fetch(`${base}/test/requests?threadId=${encodeURIComponent(thread)}`)).json();
}

async function script(thread, responses) {
  const res = await fetch(`${base}/test/script`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ threadId: thread, responses }),
  });
  assert.equal(res.status, 200, await res.text());
}

const ev = (type, fields = {}) => ({ type, ...fields });
const text = (id, delta) => [ev("TEXT_MESSAGE_START", { messageId: id, role: "assistant" }), ev("TEXT_MESSAGE_CONTENT", { messageId: id, delta }), ev("TEXT_MESSAGE_END", { messageId: id })];
const call = (id, name, args, parent) => [
  ev("TOOL_CALL_START", { toolCallId: id, toolCallName: name, parentMessageId: parent }),
  ev("TOOL_CALL_ARGS", { toolCallId: id, delta: JSON.stringify(args) }),
  ev("TOOL_CALL_END", { toolCallId: id }),
];
const run_ = (thread, id, body, outcome) => [ev("RUN_STARTED", { threadId: thread, runId: id }), ...body, ev("RUN_FINISHED", { threadId: thread, runId: id, ...(outcome ? { outcome } : {}) })];

async function send(page, message) {
  await page.fill("#input", message);
  await page.click("#send");
}

/** Waits until the thread is idle (the Send button is back) with `n` assistant messages. */
async function idle(page, assistants) {
  await page.waitForFunction(
    (n) => document.querySelector("#send") !== null && document.querySelectorAll(".message.assistant").length === n,
    assistants,
    { timeout: WAIT },
  );
}

const lastAssistant = (page) =>
  page.$$eval(".message.assistant", (all) => {
    const el = all.at(-1);
    return {
    text: [...el.querySelectorAll(".text")].map((t) => t.textContent).join("|"),
    order: [...el.querySelectorAll(".text, .tool-call, .approve")].map((t) => (t.classList.contains("text") ? "text" : t.dataset.tool)),
    tools: [...el.querySelectorAll(".tool-call")].map((t) => ({
      tool: t.dataset.tool,
      status: t.dataset.status,
      reason: t.dataset.reason,
      error: t.dataset.error,
      args: t.querySelector(".args")?.textContent ?? null,
      result: t.querySelector(".result")?.textContent ?? null,
    })),
    };
  });

// ---- types and build -------------------------------------------------------------------------------

test("the app type-checks strictly and builds; the tarball's adapter is in the bundle, the wasm is not inlined", () => {
  const assets = readdirSync(join(fixture.dir, "dist/assets"));
  const js = assets.filter((f) => f.endsWith(".js"));
  assert.ok(js.length >= 1, `JS in dist/assets: ${assets.join(", ")}`);
  assert.ok(assets.some((f) => f.endsWith(".wasm")), "the .wasm is emitted as an asset (fetched on demand)");
  const bundle = js.map((f) => readFileSync(join(fixture.dir, "dist/assets", f), "utf8")).join("\n");
  assert.match(bundle, /requires-action/, "the adapter's statuses are in the bundle");
  const gz = gzipSync(Buffer.from(bundle), { level: 9 }).length;
  console.log(`# demo/assistant-ui JS bundle: ${Buffer.byteLength(bundle)} bytes, ${gz} gzip -9`);
});

test("what chat-runtime adds to the app's bundle (its JS in a chunk of its own, tree-shaken)", async () => {
  await run(process.execPath, [join(fixture.dir, "node_modules/vite/bin/vite.js"), "build", "--outDir", "dist-split"], {
    cwd: fixture.dir,
    env: { SPLIT_CHAT_RUNTIME: "1" },
  });
  const dir = join(fixture.dir, "dist-split/assets");
  const assets = readdirSync(dir);
  const size = (f) => {
    const bytes = readFileSync(join(dir, f));
    return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  };
  const chunk = assets.filter((f) => /^chat-runtime.*\.js$/.test(f));
  assert.equal(chunk.length, 1, `one chat-runtime chunk: ${assets.join(", ")}`);
  const ours = size(chunk[0]);
  const rest = assets.filter((f) => f.endsWith(".js") && f !== chunk[0]).map(size).reduce((a, b) => ({ raw: a.raw + b.raw, gzip: a.gzip + b.gzip }), { raw: 0, gzip: 0 });
  const wasm = assets.filter((f) => f.endsWith(".wasm")).map(size)[0];
  // The adapter itself is small; the rest of the chunk is the wasm glue and chat-runtime/react.
  assert.ok(ours.gzip > 1000 && ours.gzip < 40_000, `chat-runtime JS ${ours.gzip} B gzip`);
  console.log(`# chat-runtime JS chunk: ${ours.raw} bytes, ${ours.gzip} gzip -9; the app's other JS: ${rest.raw} bytes, ${rest.gzip} gzip -9; the .wasm (fetched on demand): ${wasm.raw} bytes, ${wasm.gzip} gzip -9`);
});

test(`@assistant-ui/react ${LATEST} (latest 0.x): the same app type-checks and builds`, async () => {
  const latest = await installFixture(join(ROOT, "demo/assistant-ui"));
  try {
    // Its @radix-ui declarations name Node's `setImmediate`: with skipLibCheck false the app needs
    // @types/node (0.15.2's do not).
    await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", `@assistant-ui/react@${LATEST}`, "@types/node@22"], { cwd: latest.dir });
    const installed = JSON.parse(readFileSync(join(latest.dir, "node_modules/@assistant-ui/react/package.json"), "utf8")).version;
    assert.equal(installed, LATEST);
    await run(process.execPath, [join(latest.dir, "node_modules/typescript/bin/tsc"), "-p", ".", "--types", "node"], { cwd: latest.dir });
    await run(process.execPath, [join(latest.dir, "node_modules/vite/bin/vite.js"), "build"], { cwd: latest.dir });
  } finally {
    latest.cleanup();
  }
});

// ---- the wasm on demand ------------------------------------------------------------------------------

test("the hidden panel fetches no wasm; opening it loads the runtime", async () => {
  const app = await openApp();
  const { page } = app;
  await page.waitForTimeout(300);
  assert.deepEqual(page.wasm, [], "no .wasm requested while the panel is closed");
  assert.equal(await page.getAttribute(".thread", "data-wasm"), "idle");
  await openPanel(page);
  assert.equal(page.wasm.length, 1);
  await done(app);
});

// ---- contextual view tools, fire-and-forget (RFC 0002 §6.6) --------------------------------------------

for (const [where, at] of [["the build", () => base], ["the Vite dev server, StrictMode", () => devUrl]]) test(`gateway turn (${where}): the view's UI tool runs once from the stream, the text after it streams below it, one request`, async () => {
  const app = await openApp({ at: at() });
  const { page, thread } = app;
  await page.click("[data-trace=checkout-7f3a] button");
  await page.waitForSelector("#trace-view[data-trace=checkout-7f3a]");
  await openPanel(page);
  await send(page, "highlight the slow span s-fraud");
  await idle(page, 1);
  assert.equal(await page.getAttribute("[data-span=s-fraud]", "class"), "span highlighted");
  const turn = await lastAssistant(page);
  // One message: text, the backend tool (its result from the stream), the UI tool, the text after it.
  assert.deepEqual(turn.order, ["text", "search_traces", "highlight_span", "text"]);
  const ui = turn.tools.find((t) => t.tool === "highlight_span");
  assert.equal(ui.status, "complete");
  assert.equal(ui.error, "false");
  assert.equal(ui.args, '{"span_id":"s-fraud"}');
  assert.equal(ui.result, '{"highlighted":"s-fraud"}', "the part shows that the action happened");
  const backend = turn.tools.find((t) => t.tool === "search_traces");
  assert.equal(backend.status, "complete");
  assert.match(backend.result, /checkout-7f3a/);
  assert.match(turn.text, /highlighted span s-fraud/);
  const sent = await requests(thread);
  assert.equal(sent.length, 1, "nothing restarts: one request");
  // The tools of the view went with the run.
  const names = sent[0].body.tools.map((t) => t.name).sort();
  assert.ok(names.includes("highlight_span") && names.includes("show_flamegraph"), names.join());
  assert.ok(!names.includes("set_filter"), "the list view's tool is not offered from the trace view");
  const highlight = sent[0].body.tools.find((t) => t.name === "highlight_span");
  assert.ok(highlight.parameters.properties.span_id.enum.includes("s-fraud"));
  await done(app);
});

test("a cut gateway stream resumes (Last-Event-ID, the server replaying the run): the view tool ran once", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await page.click("[data-trace=checkout-7f3a] button");
  await openPanel(page);
  // Frame 21 is the UI call's TOOL_CALL_END; the body ends before frame 25 (inside the last text),
  // and the re-POST gets every frame of the run again.
  const res = await fetch(`${base}/test/cut`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ threadId: thread, cuts: [{ frame: 25, byte: 0, clean: true }], resume: "start" }),
  });
  assert.equal(res.status, 200, await res.text());
  await send(page, "highlight the slow span s-fraud");
  await page.waitForFunction(() => document.querySelector(".message.assistant")?.textContent.includes("it is the slowest one."), null, { timeout: WAIT });
  await idle(page, 1);
  const sent = await requests(thread);
  assert.equal(sent.length, 2, "the run and its resume");
  assert.ok(sent[1].headers["last-event-id"], "the second request resumes the stream");
  assert.equal(await page.evaluate(() => window.toolRuns.get("highlight_span")), 1, "the view tool ran once");
  const turn = await lastAssistant(page);
  assert.deepEqual(turn.order, ["text", "search_traces", "highlight_span", "text"]);
  assert.match(turn.text, /^Looking at the traces of the last hour\.\|I highlighted span s-fraud: it is the slowest one\.$/);
  await done(app);
});

test("the view changes mid-run: the tool leaves with its view and its late call is not run", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await page.click("[data-trace=checkout-7f3a] button");
  await openPanel(page);
  // The UI call's END arrives after the user went back to the list.
  await script(thread, [
    {
      delayMs: 250,
      events: run_(thread, "s1", [...text("m1", "Let me look."), ...call("c1", "highlight_span", { span_id: "s-pay" }, "m1"), ...text("m2", "Done looking.")]),
    },
    { events: run_(thread, "s2", text("m3", "Fine.")) },
  ]);
  await send(page, "highlight the payment span");
  await page.waitForSelector(".message.assistant .text");
  await page.click("#back");
  await page.waitForSelector("#trace-list");
  await page.waitForFunction(() => document.querySelector(".message.assistant")?.textContent.includes("Done looking."), null, { timeout: WAIT });
  await idle(page, 1);
  // The call did not run: the trace view is gone and nothing was highlighted (the handler would
  // have opened the trace again). Its part says it failed.
  assert.equal(await page.$("#trace-view"), null);
  const turn = await lastAssistant(page);
  const ui = turn.tools.find((t) => t.tool === "highlight_span");
  assert.equal(ui.error, "true");
  assert.notEqual(ui.status, "running");
  // A call of a tool that left before its TOOL_CALL_START is answered TOOL_NOT_AVAILABLE and the
  // run goes on from the list view, with the list view's tools; one that left between its START
  // and END (fire-and-forget from the start) fails without a restart.
  const sent = await requests(thread);
  if (sent.length === 2) {
    const answer = sent[1].body.messages.find((m) => m.role === "tool" && m.toolCallId === "c1");
    assert.match(answer.content, /TOOL ERROR: TOOL_NOT_AVAILABLE/);
    const names = sent[1].body.tools.map((t) => t.name);
    assert.ok(names.includes("set_filter") && !names.includes("highlight_span"), names.join());
  } else {
    assert.equal(sent.length, 1);
    assert.match(ui.result ?? "", /TOOL ERROR/);
  }
  await done(app);
});

test("a view tool that leaves between its call's START and END: TOOL_NOT_AVAILABLE, not run, no restart", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await page.click("[data-trace=checkout-7f3a] button");
  await openPanel(page);
  // 300 ms between events: the test leaves the trace view once the call's part shows (its
  // TOOL_CALL_START), before its ARGS and END.
  await script(thread, [
    {
      delayMs: 300,
      events: run_(thread, "s1", [...text("m1", "Let me look."), ...call("c1", "highlight_span", { span_id: "s-pay" }, "m1"), ...text("m2", "Done looking.")]),
    },
  ]);
  await send(page, "highlight the payment span");
  await page.waitForSelector(".message.assistant .tool-call[data-tool=highlight_span]", { timeout: WAIT });
  await page.click("#back");
  await page.waitForSelector("#trace-list");
  await page.waitForFunction(() => document.querySelector(".message.assistant")?.textContent.includes("Done looking."), null, { timeout: WAIT });
  await idle(page, 1);
  assert.equal(await page.evaluate(() => window.toolRuns.get("highlight_span") ?? 0), 0, "the handler never ran");
  assert.equal(await page.$("#trace-view"), null);
  const ui = (await lastAssistant(page)).tools.find((t) => t.tool === "highlight_span");
  assert.equal(ui.error, "true");
  assert.match(ui.result ?? "", /^TOOL ERROR: TOOL_NOT_AVAILABLE\n/, "the code of a tool that went away, not TOOL_LOAD_FAILED");
  assert.equal((await requests(thread)).length, 1, "fire-and-forget: nothing restarts");
  await done(app);
});

test("a view tool registered the assistant-ui way (fireAndForget) runs once from the stream: no loop", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await openPanel(page);
  await script(thread, [
    {
      events: run_(thread, "s1", [...text("m1", "Opening it."), ...call("c1", "open_trace", { trace_id: "login-19bc" }, "m1"), ...text("m2", "That is the login trace.")]),
    },
    // What the Jaeger gateway would do with a tool result: answer the question again.
    { events: run_(thread, "s2", [...text("m3", "Opening it again."), ...call("c2", "open_trace", { trace_id: "login-19bc" }, "m3")]) },
  ]);
  await send(page, "open the login trace");
  await page.waitForSelector("#trace-view[data-trace=login-19bc]", { timeout: WAIT });
  await idle(page, 1);
  await page.waitForTimeout(300);
  const sent = await requests(thread);
  assert.equal(sent.length, 1, "no result went back, no new run");
  assert.ok(sent[0].body.tools.some((t) => t.name === "open_trace"));
  const turn = await lastAssistant(page);
  assert.deepEqual(turn.order, ["text", "open_trace", "text"]);
  assert.equal(turn.tools[0].status, "complete");
  assert.equal(turn.tools[0].result, '{"opened":"login-19bc"}');
  await done(app);
});

test("Stop during the stream: the request is cut, the turn shows incomplete/cancelled, nothing restarts", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await openPanel(page);
  await script(thread, [{ hold: true, events: [ev("RUN_STARTED", { threadId: thread, runId: "s1" }), ...text("m1", "Thinking about it"), ...call("c1", "set_filter", { service: "payments" }, "m1").slice(0, 2)] }]);
  await send(page, "filter payments");
  await page.waitForSelector(".tool-call[data-tool=set_filter][data-status=running]", { timeout: WAIT });
  await page.click("#stop");
  await idle(page, 1);
  const turn = await lastAssistant(page);
  assert.equal(turn.tools[0].status, "incomplete");
  assert.equal(turn.tools[0].reason, "cancelled");
  assert.match(await page.textContent("#trace-list .filter"), /All services/, "the stopped call never ran");
  await page.waitForTimeout(200);
  assert.equal((await requests(thread)).length, 1);
  const aborted = await (await fetch(`${base}/test/aborted?threadId=${thread}`)).json();
  assert.equal(aborted.aborted, 1, "the response was cut");
  await done(app);
});

// ---- assistant-ui's own tool idioms ---------------------------------------------------------------------

test("a model-context tool with execute runs in chat-runtime's loop; its result goes back", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await openPanel(page);
  await script(thread, [
    { events: run_(thread, "s1", [...text("m1", "Counting."), ...call("c1", "count_spans", { trace_id: "checkout-7f3a" }, "m1")]) },
    { events: run_(thread, "s2", text("m2", "Six spans.")) },
  ]);
  await send(page, "how many spans?");
  await page.waitForFunction(() => document.querySelector(".message.assistant")?.textContent.includes("Six spans."), null, { timeout: WAIT });
  await idle(page, 1);
  const sent = await requests(thread);
  assert.equal(sent.length, 2);
  assert.ok(sent[0].body.tools.some((t) => t.name === "count_spans" && t.parameters.required[0] === "trace_id"));
  const answer = sent[1].body.messages.find((m) => m.role === "tool");
  assert.equal(answer.content, '{"spans":6}');
  const turn = await lastAssistant(page);
  assert.deepEqual(turn.order, ["text", "count_spans", "text"]);
  assert.equal(turn.tools[0].result, '{"spans":6}');
  await done(app);
});

test("a human tool: its tool UI (by name) shows requires-action and addResult answers the call", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await openPanel(page);
  await script(thread, [
    { events: run_(thread, "s1", call("c1", "approve_deploy", { service: "payments" }, "m1")) },
    { events: run_(thread, "s2", text("m2", "Deploying payments.")) },
  ]);
  await send(page, "deploy payments");
  await page.waitForSelector(".approve[data-status=requires-action] .approve-yes", { timeout: WAIT });
  // No deadline: it waits for the person.
  await page.waitForTimeout(300);
  assert.equal((await requests(thread)).length, 1);
  await page.click(".approve-yes");
  await page.waitForFunction(() => document.querySelector(".message.assistant")?.textContent.includes("Deploying payments."), null, { timeout: WAIT });
  const sent = await requests(thread);
  assert.equal(sent[1].body.messages.find((m) => m.role === "tool").content, "approved");
  assert.equal(await page.textContent(".approve .answer"), "approved");
  await done(app);
});

test("a chat-runtime tool that waits for a person (timeoutMs: null, humanTools) shows requires-action until answered", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await openPanel(page);
  await script(thread, [
    { events: run_(thread, "s1", call("c1", "ask_person", { question: "Restart payments?" }, "m1")) },
    { events: run_(thread, "s2", text("m2", "Restarting payments.")) },
  ]);
  await send(page, "restart payments");
  // Its card (a tool UI by name) sees assistant-ui's requires-action while the handler waits.
  await page.waitForSelector(".ask-person[data-status=requires-action] .ask-person-yes", { timeout: WAIT });
  await page.waitForTimeout(300);
  assert.equal((await requests(thread)).length, 1, "no deadline: it waits for the person");
  assert.equal(await page.$eval(".ask-person", (el) => el.dataset.status), "requires-action");
  await page.click(".ask-person-yes");
  await page.waitForFunction(() => document.querySelector(".message.assistant")?.textContent.includes("Restarting payments."), null, { timeout: WAIT });
  await idle(page, 1);
  const sent = await requests(thread);
  assert.equal(sent[1].body.messages.find((m) => m.role === "tool").content, "yes");
  assert.equal(await page.$eval(".ask-person", (el) => el.dataset.status), "complete");
  assert.equal(await page.textContent(".ask-person .answer"), "yes");
  await done(app);
});

test("a tools.json tool, turned on with chat-runtime's toggles, round-trips in gateway mode", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await openPanel(page);
  await page.click(".toggles summary");
  await page.check("input[data-tool=get_browser_time]");
  await send(page, "what time is it?");
  await page.waitForFunction(() => document.querySelector(".message.assistant")?.textContent.includes("The browser answered"), null, { timeout: WAIT });
  await idle(page, 1);
  const sent = await requests(thread);
  assert.equal(sent.length, 2);
  assert.equal(sent[1].body.messages.at(-1).role, "tool");
  await done(app);
});

// ---- parity with @assistant-ui/react-ag-ui ------------------------------------------------------------

test("interrupts: shown, resolved (resume sent), and a new message cancels the open ones", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await openPanel(page);
  const interrupt = (id) => ({ type: "interrupt", interrupts: [{ id, reason: "confirmation", message: `Proceed (${id})?` }] });
  await script(thread, [
    { events: run_(thread, "s1", text("m1", "Need a yes."), interrupt("i1")) },
    { events: run_(thread, "s2", text("m2", "Resumed."), interrupt("i2")) },
    { events: run_(thread, "s3", text("m3", "Something else then.")) },
  ]);
  await send(page, "go");
  await page.waitForSelector("[data-interrupt=i1]", { timeout: WAIT });
  await page.click("#interrupts-resolve");
  await page.waitForSelector("[data-interrupt=i2]", { timeout: WAIT });
  let sent = await requests(thread);
  assert.deepEqual(sent[1].body.resume, [{ interruptId: "i1", status: "resolved", payload: { approved: true } }]);
  // Steer away: a new message while i2 is open.
  await send(page, "never mind");
  await page.waitForFunction(() => document.body.textContent.includes("Something else then."), null, { timeout: WAIT });
  sent = await requests(thread);
  assert.deepEqual(sent[2].body.resume, [{ interruptId: "i2", status: "cancelled" }]);
  assert.equal(sent[2].body.messages.at(-1).content, "never mind");
  assert.equal(await page.$("#interrupts"), null);
  await done(app);
});

test("an interrupt that names a tool call: the part shows it, and its tool UI's resume answers it", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await openPanel(page);
  const ask = { id: "int-c1", reason: "tool_call", toolCallId: "c1", message: "Delete the trace?" };
  await script(thread, [
    { events: run_(thread, "s1", [...text("m1", "I need your approval."), ...call("c1", "delete_trace", { trace_id: "login-19bc" }, "m1")], { type: "interrupt", interrupts: [ask] }) },
    { events: run_(thread, "s2", [ev("TOOL_CALL_RESULT", { messageId: "t1", toolCallId: "c1", content: "deleted", role: "tool" }), ...text("m2", "Deleted.")]) },
  ]);
  await send(page, "delete the login trace");
  await page.waitForSelector(".tool-call[data-tool=delete_trace][data-status=requires-action] .resume-yes", { timeout: WAIT });
  assert.equal(await page.getAttribute(".tool-call[data-tool=delete_trace]", "data-reason"), "interrupt");
  await page.click(".resume-yes");
  await page.waitForFunction(() => document.body.textContent.includes("Deleted."), null, { timeout: WAIT });
  const sent = await requests(thread);
  assert.deepEqual(sent[1].body.resume, [{ interruptId: "int-c1", status: "resolved", payload: { approved: true } }]);
  const turn = await lastAssistant(page);
  const part = turn.tools.find((t) => t.tool === "delete_trace");
  assert.equal(part.status, "complete");
  assert.equal(part.result, "deleted");
  await done(app);
});

test("a message sent while a run goes on is queued and sent when it ends", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await openPanel(page);
  await script(thread, [
    { delayMs: 150, events: run_(thread, "s1", text("m1", "Slow answer.")) },
    { events: run_(thread, "s2", text("m2", "Second answer.")) },
  ]);
  await send(page, "first");
  await page.waitForSelector("#stop");
  await page.fill("#append-text", "second");
  await page.press("#append-text", "Enter");
  await page.waitForFunction(() => document.body.textContent.includes("Second answer."), null, { timeout: WAIT });
  const sent = await requests(thread);
  assert.equal(sent.length, 2);
  assert.equal(sent[1].body.messages.at(-1).content, "second");
  assert.ok(sent[1].receivedAtMs >= sent[0].receivedAtMs);
  assert.deepEqual(
    await page.$$eval(".message .text", (els) => els.map((e) => e.textContent)),
    ["first", "Slow answer.", "second", "Second answer."],
  );
  await done(app);
});

test("steer away (whileRunning: steer): a new message while a call waits stops it and goes at once", async () => {
  const app = await openApp({ query: "&steer" });
  const { page, thread } = app;
  await openPanel(page);
  await script(thread, [
    { events: run_(thread, "s1", call("c1", "approve_deploy", { service: "payments" }, "m1")) },
    { events: run_(thread, "s2", text("m2", "Something else then.")) },
  ]);
  await send(page, "deploy payments");
  await page.waitForSelector(".approve[data-status=requires-action]", { timeout: WAIT });
  await page.fill("#append-text", "no, show me the errors");
  await page.press("#append-text", "Enter");
  await page.waitForFunction(() => document.body.textContent.includes("Something else then."), null, { timeout: WAIT });
  const sent = await requests(thread);
  assert.equal(sent.length, 2);
  const messages = sent[1].body.messages;
  const answer = messages.find((m) => m.role === "tool" && m.toolCallId === "c1");
  assert.match(answer.content, /TOOL ERROR: INTERRUPTED/, "the open call was answered INTERRUPTED");
  assert.equal(messages.at(-1).content, "no, show me the errors");
  await done(app);
});

test("agent state: read from STATE_SNAPSHOT, and set for the next send", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await openPanel(page);
  await script(thread, [
    { events: run_(thread, "s1", [ev("STATE_SNAPSHOT", { snapshot: { focus: "payments" } }), ...text("m1", "Noted.")]) },
    { events: run_(thread, "s2", text("m2", "Pinned.")) },
  ]);
  await send(page, "remember payments");
  await page.waitForFunction(() => document.querySelector("#agent-state")?.textContent === '{"focus":"payments"}', null, { timeout: WAIT });
  await idle(page, 1);
  await page.click("[data-trace=login-19bc] button");
  await page.click("#pin-view");
  await send(page, "what about this one?");
  await page.waitForFunction(() => document.body.textContent.includes("Pinned."), null, { timeout: WAIT });
  const sent = await requests(thread);
  assert.ok(!("view" in (sent[0].body.state ?? {})), "nothing pinned before the click");
  assert.deepEqual(sent[1].body.state, { view: "login-19bc" });
  assert.equal(await page.textContent("#agent-state"), '{"view":"login-19bc"}');
  await done(app);
});

test("thread switching: a new chat starts empty, and the first thread comes back with its messages", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await openPanel(page);
  await send(page, "filter payments");
  await idle(page, 1);
  await page.click("#new-chat");
  await page.waitForFunction(() => document.querySelectorAll(".message").length === 0, null, { timeout: WAIT });
  await send(page, "show the flame graph");
  await idle(page, 1);
  assert.match(await page.textContent(".message.user"), /flame graph/);
  await page.click("[data-thread='0']");
  await page.waitForFunction(() => document.querySelector(".message.user")?.textContent === "filter payments", null, { timeout: WAIT });
  assert.equal(await page.$$eval(".message", (m) => m.length), 2);
  assert.equal((await requests(thread)).length, 1);
  assert.equal((await requests(`${thread}-2`)).length, 1);
  await done(app);
});

test("a run resumed after a page reload: its answer arrives in the same thread, from the agent's history", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await openPanel(page);
  // The response stops after the first word of the turn and holds the connection: the page is
  // reloaded mid-run, while the agent's run goes on into its log.
  const cut = await fetch(`${base}/test/cut`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ threadId: thread, cuts: [{ frame: 3, byte: 0 }] }),
  });
  assert.equal(cut.status, 200, await cut.text());
  await send(page, "filter payments");
  await page.waitForSelector(".message.assistant .text", { timeout: WAIT });
  const partial = await page.textContent(".message.assistant .text");
  assert.match(partial, /^Looking/);
  assert.ok(!partial.includes("hour."), `mid-run: the first word only (${partial})`);
  assert.ok(await page.$("#stop"), "the run is going on");
  await page.reload();
  await page.waitForSelector(".app #trace-list", { timeout: WAIT });
  assert.equal(new URL(page.url()).searchParams.get("thread"), thread, "the same thread after the reload");
  await openPanel(page);
  await page.waitForFunction(() => document.querySelector(".message.assistant")?.textContent.includes("I filtered the list to payments."), null, { timeout: WAIT });
  await idle(page, 1);
  assert.deepEqual(await page.$$eval(".message.user", (all) => all.map((m) => m.textContent)), ["filter payments"]);
  const turn = await lastAssistant(page);
  assert.deepEqual(turn.order, ["text", "search_traces", "set_filter", "text"]);
  assert.equal(turn.text, "Looking at the traces of the last hour.|I filtered the list to payments.");
  assert.equal((await requests(thread)).length, 1, "nothing was sent again: the answer is the run's own");
  // The thread goes on from there: the next question is sent with the restored history.
  await send(page, "how many spans?");
  await idle(page, 2);
  const sent = await requests(thread);
  assert.equal(sent.length, 2);
  const body = sent[1].body.messages;
  assert.equal(body[0].content, "filter payments");
  assert.ok(body.some((m) => m.role === "assistant" && m.content === "I filtered the list to payments."), JSON.stringify(body));
  assert.equal(body.at(-1).content, "how many spans?");
  await fetch(`${base}/test/break`, { method: "POST" });
  await done(app);
});

test("identity: a finished message does not render again while the next one streams", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await openPanel(page);
  const words = Array.from({ length: 30 }, (_, i) => `w${i} `);
  await script(thread, [
    { events: run_(thread, "s1", text("m1", "Earlier answer.")) },
    {
      delayMs: 15,
      events: run_(thread, "s2", [ev("TEXT_MESSAGE_START", { messageId: "m2", role: "assistant" }), ...words.map((delta) => ev("TEXT_MESSAGE_CONTENT", { messageId: "m2", delta })), ev("TEXT_MESSAGE_END", { messageId: "m2" })]),
    },
  ]);
  await send(page, "one");
  await idle(page, 1);
  await send(page, "two");
  await page.waitForFunction(() => document.querySelectorAll(".message.assistant").length === 2 && document.querySelectorAll(".message.assistant")[1].textContent.startsWith("w0"), null, { timeout: WAIT });
  const before = await page.evaluate(() => window.textRenders.get("Earlier"));
  await idle(page, 2);
  const after = await page.evaluate(() => [window.textRenders.get("Earlier"), window.textRenders.get("w0")]);
  assert.ok(after[1] >= 10, `the streaming message rendered per token: ${after[1]}`);
  assert.equal(after[0], before, "the earlier message did not render while the other streamed");
  await done(app);
});

test("a failed run (HTTP 500) shows on a message of its own and reaches onError", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await openPanel(page);
  await script(thread, [{ status: 500, contentType: "application/json", body: '{"error":"boom"}' }]);
  await send(page, "hello");
  await page.waitForSelector(".message-error", { timeout: WAIT });
  assert.match(await page.textContent("#errors"), /run\/http/);
  await done(app);
});

test("a RUN_ERROR mid-turn marks the turn incomplete with the error", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await openPanel(page);
  await script(thread, [{ events: [ev("RUN_STARTED", { threadId: thread, runId: "s1" }), ...text("m1", "Partial"), ev("RUN_ERROR", { message: "model overloaded", code: "overloaded" })] }]);
  await send(page, "hello");
  await page.waitForSelector(".message-error", { timeout: WAIT });
  assert.match(await page.textContent(".message.assistant"), /Partial/);
  assert.match(await page.textContent("#errors"), /overloaded/);
  await done(app);
});
