// End-to-end, in headless Chromium: the JSON layer's internal form of a lone surrogate (two
// private chars, U+10FFFF then U+100000 + offset; src/json) never leaves the runtime. The real
// exits: a tool module loaded by the page's own `import()`, a run sent by the real `fetch`, the
// real `localStorage` and its `storage` events from another tab. Each gets the JS string the app,
// the server or the other tab wrote: a lone surrogate in a URL is U+FFFD (`%EF%BF%BD`) as the
// browser itself makes it; U+10FFFF then U+100000 written by someone is those two chars.
import { test } from "node:test";
import assert from "node:assert/strict";

import { api as harnessApi, browserSuite, until } from "./harness.mjs";

const TIMEOUT = 90_000;

const suite = browserSuite();

const api = (path, body) => harnessApi(suite.base, path, body);

const started = (threadId, runId) => ({ type: "RUN_STARTED", threadId, runId });
const finished = (threadId, runId) => ({ type: "RUN_FINISHED", threadId, runId });
const answerRun = (threadId) => ({
  events: [
    started(threadId, "s2"),
    { type: "TEXT_MESSAGE_START", messageId: "a2", role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "a2", delta: "Done." },
    { type: "TEXT_MESSAGE_END", messageId: "a2" },
    finished(threadId, "s2"),
  ],
});
const callRun = (threadId) => ({
  events: [
    started(threadId, "s1"),
    { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "get_browser_time", parentMessageId: "a1" },
    { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: JSON.stringify({ format: "iso" }) },
    { type: "TOOL_CALL_END", toolCallId: "c1" },
    finished(threadId, "s1"),
  ],
});

test("a tool module whose importPath holds a lone surrogate is loaded from the URL the page's import() resolves", { timeout: TIMEOUT }, async () => {
  await api("/test/script", { threadId: "t", responses: [callRun("t"), answerRun("t")] });
  const modules = [];
  suite.page.on("request", (request) => {
    if (request.url().includes("/tools/basic.js")) modules.push(request.url());
  });
  const seen = await suite.page.evaluate(async () => {
    const manifestUrl = new URL("/tools/surrogates.json", location.href).href;
    const [entry] = await (await fetch(manifestUrl)).json();
    const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs", toolsUrl: "/tools/surrogates.json" });
    const report = await rt.loadTools();
    rt.setToolEnabled("t", "get_browser_time", true);
    const result = await rt.run({ threadId: "t", messages: [{ id: "u1", role: "user", content: "time?" }] });
    return { diagnostics: report.diagnostics, status: result.status, error: result.error, expected: new URL(entry.importPath, manifestUrl).href };
  });
  assert.deepEqual(seen.diagnostics, []);
  assert.equal(seen.status, "completed", JSON.stringify(seen.error));
  assert.equal(seen.expected, `${suite.base}/tools/basic.js?lone=%EF%BF%BD&private=%F4%8F%BF%BF%F4%80%80%80`);
  assert.deepEqual(modules, [seen.expected]);
});

test("the real fetch gets the run URL as the app wrote it; a header with a lone surrogate is refused", { timeout: TIMEOUT }, async () => {
  await api("/test/script", { threadId: "t", responses: [answerRun("t")] });
  const seen = await suite.page.evaluate(async () => {
    const runUrl = "/api/threads/{threadId}/runs?lone=\ud800&private=\u{10FFFF}\u{100000}";
    const rt = new ChatRuntime({ runUrl, toolsUrl: null, headers: { "x-h": "v" } });
    const result = await rt.run({ threadId: "t", messages: [{ id: "u1", role: "user", content: "hi" }] });
    let refused;
    try {
      new ChatRuntime({ runUrl, toolsUrl: null, headers: { "x-h": "v\ud800" } });
    } catch (error) {
      refused = { name: error.name, code: error.code, field: error.field };
    }
    return { status: result.status, error: result.error, expected: new URL(runUrl.replace("{threadId}", "t"), location.href).search, refused };
  });
  assert.equal(seen.status, "completed", JSON.stringify(seen.error));
  assert.equal(seen.expected, "?lone=%EF%BF%BD&private=%F4%8F%BF%BF%F4%80%80%80");
  const [request] = await api("/test/requests");
  assert.equal(`?${request.query}`, seen.expected);
  assert.equal(request.headers["x-h"], "v");
  assert.deepEqual(seen.refused, { name: "ChatRuntimeError", code: "options/invalid", field: "headers" });
});

test("localStorage keys and another tab's storage events keep their exact strings", { timeout: TIMEOUT }, async () => {
  await suite.page.evaluate(async () => {
    window.events = [];
    const rt = (window.rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs" }));
    await rt.loadTools();
    rt.subscribe((event) => window.events.push(event.threadId), { events: ["toggles_changed"] });
    rt.setToolEnabled("😀\u{100000}é", "echo", true);
    rt.setToolEnabled("x\uFFFD", "echo", true);
  });
  const keys = await suite.page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("chat:tools:")).sort());
  assert.deepEqual(keys, ["chat:tools:x\uFFFD", "chat:tools:😀\u{100000}é"]);
  // Another tab writes the key of a thread no runtime can have ("x\ud800"), and one whose id
  // holds U+10FFFF then U+100000: the private form's very chars.
  const other = await suite.context.newPage();
  await other.goto(`${suite.base}/runtime.html`);
  await other.evaluate(() => {
    localStorage.setItem("chat:tools:x\ud800", JSON.stringify({ echo: false }));
    localStorage.setItem("chat:tools:y\u{10FFFF}\u{100000}", JSON.stringify({ echo: true }));
  });
  const events = await until("two storage events", () => suite.page.evaluate(() => (window.events.length >= 4 ? window.events : null)));
  assert.deepEqual(events.slice(2), ["x\ud800", "y\u{10FFFF}\u{100000}"]);
  // Thread "x\uFFFD" is not "x\ud800": its toggle is untouched.
  const on = await suite.page.evaluate(() => rt.listTools("x\uFFFD").find((e) => e.name === "echo").enabled);
  assert.equal(on, true);
  await other.close();
});
