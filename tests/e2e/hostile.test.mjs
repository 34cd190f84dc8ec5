// End-to-end, hostile inputs: thread ids that try to leave their URL segment or alias another
// thread, tool modules that load slowly or never, handlers that throw values which throw when
// looked at, a moved tools.json, a server that names calls it never made, a 20 MiB result, and a
// 10 MB stream handed over as one chunk.
// Each test drives the real ChatRuntime in headless Chromium against the scripted server.
import { test } from "node:test";
import assert from "node:assert/strict";

import { api as harnessApi, browserSuite, settle, until } from "./harness.mjs";

const TIMEOUT = 90_000;

const suite = browserSuite();

const api = (path, body) => harnessApi(suite.base, path, body);
const script = (threadId, responses) => api("/test/script", { threadId, responses });
const allRequests = () => api("/test/requests");

const started = (threadId, runId) => ({ type: "RUN_STARTED", threadId, runId });
const finished = (threadId, runId, outcome) => ({ type: "RUN_FINISHED", threadId, runId, ...(outcome ? { outcome } : {}) });
const call = (toolCallId, toolCallName, args = {}) => [
  { type: "TOOL_CALL_START", toolCallId, toolCallName, parentMessageId: "a1" },
  { type: "TOOL_CALL_ARGS", toolCallId, delta: JSON.stringify(args) },
  { type: "TOOL_CALL_END", toolCallId },
];
const callRun = (threadId, calls, outcome) => ({
  events: [started(threadId, "s1"), ...calls.flatMap((c) => call(c.id, c.name, c.args)), finished(threadId, "s1", outcome)],
});
const answerRun = (threadId, reply = "Done.") => ({
  events: [
    started(threadId, "s2"),
    { type: "TEXT_MESSAGE_START", messageId: "a2", role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "a2", delta: reply },
    { type: "TEXT_MESSAGE_END", messageId: "a2" },
    finished(threadId, "s2"),
  ],
});

/**
 * `window.rt`: a runtime on `toolsUrl` (the hostile manifest by default) with `enable`d tools in
 * `threadId`, every event in `window.events`, every fetch in `window.fetchCalls`.
 */
async function createRuntime({ threadId, enable = [], options = {} }) {
  await suite.page.evaluate(async ({ threadId, enable, options }) => {
    window.events = [];
    window.fetchCalls = [];
    const rt = (window.rt = new ChatRuntime({
      runUrl: "/api/threads/{threadId}/runs",
      toolsUrl: "/tools/hostile.json",
      fetch: (url, init) => {
        window.fetchCalls.push(String(url));
        return fetch(url, init);
      },
      ...options,
    }));
    rt.subscribe((event) => window.events.push(event));
    const report = await rt.loadTools();
    if (report.diagnostics.length) throw new Error(JSON.stringify(report.diagnostics));
    for (const name of enable) rt.setToolEnabled(threadId, name, true);
  }, { threadId, enable, options });
}

/** Runs one turn of `threadId` in the page: `{ result }` or `{ error: { name, code, message } }`. */
function run(threadId) {
  return suite.page.evaluate(
    (threadId) =>
      rt.run({ threadId, messages: [{ id: "u1", role: "user", content: "Go" }] }).then(
        (result) => ({ result }),
        (error) => ({ error: { name: error.name, code: error.code, message: error.message } }),
      ),
    threadId,
  );
}

const toolMessages = (result) => result.messages.filter((m) => m.role === "tool");
const pageLog = () => suite.page.evaluate(() => globalThis.__log ?? []);

// ---- 1. a thread id stays in its path segment ------------------------------------------------

test("thread ids '.' and '..' are refused with run/bad-request and nothing is sent", { timeout: TIMEOUT }, async () => {
  await createRuntime({ threadId: "t" });
  for (const threadId of [".", ".."]) {
    const { error } = await run(threadId);
    assert.deepEqual([error?.name, error?.code], ["ChatRuntimeError", "run/bad-request"], threadId);
    assert.match(error.message, /one segment of the run URL/);
  }
  await settle();
  assert.deepEqual(await suite.page.evaluate(() => window.fetchCalls.filter((u) => !u.endsWith("/tools/hostile.json"))), [], "no request left the page");
  assert.deepEqual(await allRequests(), []);
});

test("every other thread id reaches the server as exactly one percent-encoded segment", { timeout: TIMEOUT }, async () => {
  const ids = ["../admin", "a/b", "a?x=1", "a#f", "%2e%2e", "...", "a b", "  ", "a\\b", "Zürich 😀 日本", "x".repeat(10 * 1024), "../../../etc/passwd"];
  for (const id of ids) await script(id, [answerRun(id)]);
  await createRuntime({ threadId: "t" });
  for (const id of ids) {
    const { result, error } = await run(id);
    assert.equal(error, undefined, `${id.slice(0, 20)}: ${JSON.stringify(error)}`);
    assert.equal(result.status, "completed", id.slice(0, 20));
  }
  const recorded = await allRequests();
  assert.equal(recorded.length, ids.length);
  for (const [n, id] of ids.entries()) {
    assert.equal(recorded[n].path, `/api/threads/${encodeURIComponent(id)}/runs`, id.slice(0, 20));
    assert.equal(recorded[n].threadId, id, "the server's router decodes the one segment back to the id");
    assert.equal(recorded[n].body.threadId, id);
    assert.equal(recorded[n].query, undefined, "nothing leaked into a query");
  }
});

// ---- 3. ids that are not well-formed UTF-16 never alias ---------------------------------------

test("thread ids with a lone surrogate are refused by every method that writes, and never alias", { timeout: TIMEOUT }, async () => {
  await createRuntime({ threadId: "t", enable: [] });
  const outcome = await suite.page.evaluate(async () => {
    const cut = ["x\ud83d", "x\ude42"];
    const codeOf = (f) => {
      try {
        f();
        return "no error";
      } catch (error) {
        return `${error.name} ${error.code} ${error.field}`;
      }
    };
    const runs = [];
    for (const threadId of cut) {
      runs.push(await rt.run({ threadId, messages: [{ id: "u1", role: "user", content: "hi" }] }).then(() => "resolved", (e) => `${e.name} ${e.code}`));
    }
    return {
      runs,
      toggle: cut.map((id) => codeOf(() => rt.setToolEnabled(id, "throws_proxy", true))),
      list: cut.map((id) => codeOf(() => rt.listTools(id))),
      setMessages: cut.map((id) => codeOf(() => rt.setMessages(id, [{ id: "m", role: "user", content: "mine" }]))),
      // Reads treat an id no thread can have as an unknown thread.
      messages: cut.map((id) => rt.messages(id)),
      state: cut.map((id) => rt.state(id)),
      running: cut.map((id) => rt.isRunning(id)),
      replacementThread: rt.messages("x\uFFFD"),
      keys: Object.keys(localStorage).filter((k) => k.startsWith("chat:tools:")),
    };
  });
  assert.deepEqual(outcome.runs, ["ChatRuntimeError run/bad-request", "ChatRuntimeError run/bad-request"]);
  assert.deepEqual(outcome.toggle, ["ChatRuntimeError input/invalid threadId", "ChatRuntimeError input/invalid threadId"]);
  assert.deepEqual(outcome.list, ["ChatRuntimeError input/invalid threadId", "ChatRuntimeError input/invalid threadId"]);
  assert.deepEqual(outcome.setMessages, ["ChatRuntimeError input/invalid threadId", "ChatRuntimeError input/invalid threadId"]);
  assert.deepEqual(outcome.messages, [[], []]);
  assert.deepEqual(outcome.state, [undefined, undefined]);
  assert.deepEqual(outcome.running, [false, false]);
  assert.deepEqual(outcome.replacementThread, [], "nothing was stored under the U+FFFD form of the ids");
  assert.deepEqual(outcome.keys, []);
  assert.deepEqual(await allRequests(), []);
});

// ---- 2, 7. Stop and the deadline cover the module load --------------------------------------

test("a tool whose module arrives after Stop is never called", { timeout: TIMEOUT }, async () => {
  const threadId = "t-stop";
  await script(threadId, [callRun(threadId, [{ id: "c1", name: "delete_everything" }])]);
  await createRuntime({ threadId, enable: ["delete_everything"] });
  const result = await suite.page.evaluate(async (threadId) => {
    rt.subscribe((event) => {
      if (event.type === "tool_started") rt.abort(threadId);
    });
    return rt.run({ threadId, messages: [{ id: "u1", role: "user", content: "Delete my notes" }] });
  }, threadId);
  assert.equal(result.status, "aborted");
  const [message] = toolMessages(result);
  assert.match(message.content, /^TOOL ERROR: INTERRUPTED\n/);
  // The module finishes loading well after the run settled; its export must stay uncalled.
  await until("the slow module to load", async () => (await pageLog()).includes("load:slow-load:end"));
  await settle();
  const log = await pageLog();
  assert.deepEqual(log.filter((e) => e.startsWith("tool:")), [], "the destructive handler ran after Stop");
});

test("timeoutMs covers the module load: a module that takes 3 s to load times out at 500 ms", { timeout: TIMEOUT }, async () => {
  const threadId = "t-load";
  await script(threadId, [callRun(threadId, [{ id: "c1", name: "load_3s" }]), answerRun(threadId)]);
  await createRuntime({ threadId, enable: ["load_3s"] });
  const { result } = await run(threadId);
  const loadedBeforeTheRunEnded = (await pageLog()).includes("load:load-3s:end");
  assert.equal(loadedBeforeTheRunEnded, false, "the run waited for the 3 s load");
  assert.equal(result.status, "completed");
  const [message] = toolMessages(result);
  assert.match(message.content, /^TOOL ERROR: TIMEOUT\nload_3s took longer than 500 ms to load\n/);
  await until("the module to load", async () => (await pageLog()).includes("load:load-3s:end"));
  await settle();
  assert.deepEqual((await pageLog()).filter((e) => e.startsWith("tool:")), [], "the handler ran after its deadline");
});

test("a module that never loads times out in every turn, and is not kept as a pending import", { timeout: TIMEOUT }, async () => {
  const threadId = "t-never";
  await script(threadId, [
    callRun(threadId, [{ id: "c1", name: "never_loads" }]), answerRun(threadId),
    { events: [started(threadId, "s3"), ...call("c2", "never_loads"), finished(threadId, "s3")] }, answerRun(threadId, "Again."),
  ]);
  await createRuntime({ threadId, enable: ["never_loads"] });
  for (const [n, id] of [[1, "c1"], [2, "c2"]]) {
    const result = await suite.page.evaluate((threadId) => rt.run({ threadId, messages: [] }), threadId);
    assert.equal(result.status, "completed", `turn ${n}`);
    const message = toolMessages(result).find((m) => m.toolCallId === id);
    assert.match(message.content, /^TOOL ERROR: TIMEOUT\nnever_loads took longer than 500 ms to load\n/, `turn ${n}`);
  }
  const finishedEvents = await suite.page.evaluate(() => window.events.filter((e) => e.type === "tool_finished").map((e) => e.error?.code));
  assert.deepEqual(finishedEvents, ["TIMEOUT", "TIMEOUT"]);
});

// ---- 8, 10. whatever a handler throws is described, never thrown again ------------------------

test("a thrown Proxy whose traps throw, and an Error whose name getter throws, end TOOL_EXECUTION_FAILED", { timeout: TIMEOUT }, async () => {
  const threadId = "t-proxy";
  const calls = [{ id: "c1", name: "throws_proxy" }, { id: "c2", name: "rejects_proxy" }, { id: "c3", name: "throws_bad_name" }];
  await script(threadId, [callRun(threadId, calls), answerRun(threadId)]);
  await createRuntime({ threadId, enable: calls.map((c) => c.name) });
  const { result, error } = await run(threadId);
  assert.equal(error, undefined);
  assert.equal(result.status, "completed");
  const contents = toolMessages(result).map((m) => m.content.split("\n").slice(0, 2).join("\n"));
  assert.deepEqual(contents, [
    "TOOL ERROR: TOOL_EXECUTION_FAILED\na value that cannot be described",
    "TOOL ERROR: TOOL_EXECUTION_FAILED\na value that cannot be described",
    "TOOL ERROR: TOOL_EXECUTION_FAILED\nthe message is readable",
  ]);
});

test("thrown null, undefined, Symbols and BigInts read as a JS developer writes them", { timeout: TIMEOUT }, async () => {
  const threadId = "t-values";
  const kinds = ["null", "undefined", "symbol", "number", "bigint", "object"];
  const calls = kinds.map((kind, n) => ({ id: `c${n}`, name: "throws_value", args: { kind } }));
  await script(threadId, [callRun(threadId, calls), answerRun(threadId)]);
  await createRuntime({ threadId, enable: ["throws_value"] });
  const { result } = await run(threadId);
  const described = toolMessages(result).map((m) => m.content.split("\n")[1]);
  assert.deepEqual(described, ["null", "undefined", "Symbol(x)", "42", "12n", '{"why":"no"}']);
  for (const message of toolMessages(result)) assert.doesNotMatch(message.content, /JsValue/);
});

// ---- 9. a redirected tools.json --------------------------------------------------------------

test("importPaths of a redirected tools.json resolve against the URL it was served from", { timeout: TIMEOUT }, async () => {
  const threadId = "t-moved";
  await script(threadId, [callRun(threadId, [{ id: "c1", name: "where_am_i" }]), answerRun(threadId)]);
  await createRuntime({ threadId, enable: ["where_am_i"], options: { toolsUrl: "/test/redirect?to=/tools/moved/tools.json" } });
  const { result } = await run(threadId);
  assert.equal(result.status, "completed");
  assert.deepEqual(toolMessages(result).map((m) => m.content), ["/tools/moved/where.js"]);
});

// ---- 11. a pending list that names an unknown call -------------------------------------------

test("a pending list that names only an unknown id: the unlisted call is answered saying so, not 'the user stopped'", { timeout: TIMEOUT }, async () => {
  const threadId = "t-ghost";
  await script(threadId, [callRun(threadId, [{ id: "c1", name: "returns_huge", args: { mib: 0 } }], { type: "success", pendingToolCallIds: ["ghost"] })]);
  await createRuntime({ threadId, enable: ["returns_huge"] });
  const { result } = await run(threadId);
  assert.equal(result.status, "completed");
  const [message] = toolMessages(result);
  assert.equal(message.toolCallId, "c1");
  assert.match(message.content, /^TOOL ERROR: INTERRUPTED\nthe server did not hand this call to the client \(RUN_FINISHED\.outcome\.pendingToolCallIds named only "ghost"\), so it did not run\n/);
  assert.doesNotMatch(message.content, /user stopped/);
  assert.deepEqual((await pageLog()).filter((e) => e.startsWith("tool:")), [], "the server did not hand the call over");
  const diagnostics = await suite.page.evaluate(() => window.events.filter((e) => e.type === "diagnostic").map((e) => e.diagnostic.code));
  assert.deepEqual(diagnostics, ["run/unknown-pending-call"]);
});

test("an unknown id in pendingToolCallIds next to a real call: the real call runs", { timeout: TIMEOUT }, async () => {
  const threadId = "t-ghost-2";
  await script(threadId, [
    callRun(threadId, [{ id: "c1", name: "returns_huge", args: { mib: 0 } }], { type: "success", pendingToolCallIds: ["ghost", "c1"] }),
    answerRun(threadId),
  ]);
  await createRuntime({ threadId, enable: ["returns_huge"] });
  const { result } = await run(threadId);
  assert.equal(result.status, "completed");
  assert.equal(result.rounds, 2);
  assert.deepEqual(toolMessages(result).map((m) => [m.toolCallId, m.content, m.error]), [["c1", "", undefined]]);
  assert.deepEqual((await pageLog()).filter((e) => e.startsWith("tool:")), ["tool:returnsHuge"]);
  const [, restart] = (await allRequests()).map((r) => r.body.messages.filter((m) => m.role === "tool").map((m) => m.toolCallId));
  assert.deepEqual(restart, ["c1"]);
});

// ---- 12. a huge result is refused before it reaches wasm memory ------------------------------

test("a 20 MiB tool result fails TOOL_RESULT_TOO_LARGE and wasm memory does not grow for it", { timeout: TIMEOUT }, async () => {
  const threadId = "t-huge";
  await script(threadId, [callRun(threadId, [{ id: "c1", name: "returns_huge", args: { mib: 20 } }]), answerRun(threadId)]);
  await createRuntime({ threadId, enable: ["returns_huge"] });
  const before = await suite.page.evaluate(() => window.wasm.memory.buffer.byteLength);
  const { result } = await run(threadId);
  const after = await suite.page.evaluate(() => window.wasm.memory.buffer.byteLength);
  assert.equal(result.status, "completed");
  const [message] = toolMessages(result);
  assert.match(message.content, /^TOOL ERROR: TOOL_RESULT_TOO_LARGE\nreturns_huge returned at least 20971520 bytes; the limit is 1048576 \(maxToolResultBytes\)\n/);
  assert.ok(after - before < 8 * 1024 * 1024, `wasm memory grew by ${after - before} bytes`);
});

test("maxToolResultBytes sets the bound", { timeout: TIMEOUT }, async () => {
  const threadId = "t-bound";
  await script(threadId, [callRun(threadId, [{ id: "c1", name: "returns_huge", args: { mib: 2 } }]), answerRun(threadId)]);
  await createRuntime({ threadId, enable: ["returns_huge"], options: { maxToolResultBytes: 4 * 1024 * 1024 } });
  const { result } = await run(threadId);
  const [message] = toolMessages(result);
  assert.equal(message.content.length, 2 * 1024 * 1024, "2 MiB under a 4 MiB bound is sent as it is");
  assert.equal(message.error, undefined);
});

// ---- 13. a whole stream in one chunk is read in bounded slices -------------------------------

/**
 * Runs a stream of `mb` MB of text deltas (`tok<i> `, `deltasPerMessage` to a message) handed over
 * as one chunk, as a buffering proxy or a cache does, in a runtime with a `messages` subscriber:
 * the status, the answers' length (10 MB: about 1.2 million chars) and how much wasm memory grew
 * (it never shrinks: the growth is the run's peak).
 */
const oneChunkRun = ({ mb = 10, deltasPerMessage = Infinity } = {}) => suite.page.evaluate(async ({ mb, deltasPerMessage }) => {
  let text = 'data: {"type":"RUN_STARTED","threadId":"t-one-chunk","runId":"s1"}\n\n';
  for (let m = 1; text.length < mb * 1_000_000; m++) {
    text += `data: {"type":"TEXT_MESSAGE_START","messageId":"a${m}","role":"assistant"}\n\n`;
    for (let i = 0; i < deltasPerMessage && text.length < mb * 1_000_000; i++) text += `data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"a${m}","delta":"tok${i} "}\n\n`;
    text += `data: {"type":"TEXT_MESSAGE_END","messageId":"a${m}"}\n\n`;
  }
  text += 'data: {"type":"RUN_FINISHED","threadId":"t-one-chunk","runId":"s1"}\n\n';
  const body = new TextEncoder().encode(text);
  const rt = new ChatRuntime({
    runUrl: "/api/threads/{threadId}/runs",
    toolsUrl: null,
    storage: null,
    fetch: async () => new Response(new ReadableStream({ start(c) { c.enqueue(body); c.close(); } }), { headers: { "content-type": "text/event-stream" } }),
  });
  rt.subscribe(() => {}, { events: ["messages"] });
  const before = window.wasm.memory.buffer.byteLength;
  const result = await rt.run({ threadId: "t-one-chunk", messages: [{ id: "u1", role: "user", content: "Go" }] });
  const after = window.wasm.memory.buffer.byteLength;
  rt.free();
  const chars = result.messages.slice(1).reduce((n, m) => n + m.content.length, 0);
  return { status: result.status, chars, messages: result.messages.length, grown: after - before };
}, { mb, deltasPerMessage });

test("a 10 MB stream handed over as one chunk grows wasm memory by a bounded amount", { timeout: TIMEOUT }, async () => {
  // The runtime copies and decodes the chunk 64 KiB at a time, so its heap holds a slice and the
  // thread, not the chunk's copy and all of its decoded events at once (which grew wasm memory by
  // 97 MiB for this stream).
  const run = await oneChunkRun();
  assert.equal(run.status, "completed");
  assert.ok(run.chars > 1_000_000, `the answer holds ${run.chars} chars`);
  assert.ok(run.grown < 24 * 1024 * 1024, `wasm memory grew by ${run.grown} bytes`);
});

test("a finished run does not copy its new messages a second time", { timeout: TIMEOUT }, async () => {
  // The run's result held the thread and, again, the messages the turn added (here the whole
  // answer): wasm memory grew by 7.96 times the answer's length (in slices); with the new
  // messages as positions in the thread, by 6.92 times.
  const run = await oneChunkRun();
  assert.equal(run.status, "completed");
  assert.ok(run.grown < 7.5 * run.chars, `wasm memory grew by ${(run.grown / run.chars).toFixed(2)} times the answer`);
});

test("the first messages event of a 20 MB stream in one chunk crosses in batches", { timeout: TIMEOUT }, async () => {
  // No frame runs while one chunk is read, so the first `messages` event carries the whole
  // thread. Written as one JSON text (grown by doubling), it grew wasm memory by 5.31 times the
  // answers' length; in batches of 256 KiB, by 3.01 times.
  const run = await oneChunkRun({ mb: 20, deltasPerMessage: 50_000 });
  assert.equal(run.status, "completed");
  assert.ok(run.messages > 4, `${run.messages} messages`);
  assert.ok(run.grown < 3.5 * run.chars, `wasm memory grew by ${(run.grown / run.chars).toFixed(2)} times the answers`);
});

// ---- 13. a long thread's request body is never whole in wasm memory ---------------------------

test("a 10 MB thread's request body goes to fetch whole, and is never whole in wasm memory", { timeout: TIMEOUT }, async () => {
  // With `history: "full"` (the default) each request carries the whole thread. Written whole in
  // wasm memory (which never shrinks), the body came on top of the thread, in a buffer grown by
  // doubling: wasm memory grew by 3.29 times the thread's JSON here. Now the session writes it to
  // JavaScript in pieces of about 16 KiB (`session::BodySink`): 2.01 times (the thread, and the
  // request's messages as they crossed in).
  const res = await suite.page.evaluate(async () => {
    const text = "lorem ipsum ".repeat(2_100);
    const messages = Array.from({ length: 400 }, (_, i) => ({ id: `u${i}`, role: "user", content: `${text}${i}` }));
    let sent = null;
    const rt = new ChatRuntime({
      runUrl: "/api/threads/{threadId}/runs",
      toolsUrl: null,
      storage: null,
      fetch: async (url, init) => {
        sent = init.body;
        const events = [{ type: "RUN_STARTED", threadId: "t-long", runId: "s1" }, { type: "RUN_FINISHED", threadId: "t-long", runId: "s1" }];
        return new Response(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(""), { headers: { "content-type": "text/event-stream" } });
      },
    });
    // A UI's listener: `run()`'s value then comes from the listener's mirror, not from the
    // thread's JSON written once more in wasm memory.
    rt.subscribe(() => {}, { events: ["messages"] });
    const before = window.wasm.memory.buffer.byteLength;
    const result = await rt.run({ threadId: "t-long", messages });
    const after = window.wasm.memory.buffer.byteLength;
    const thread = JSON.stringify(rt.messages("t-long")).length;
    rt.free();
    const body = typeof sent === "string" ? JSON.parse(sent) : null;
    return { status: result.status, grown: after - before, thread, type: typeof sent, length: sent?.length, ids: body?.messages.map((m) => m.id) };
  });
  assert.equal(res.status, "completed");
  assert.equal(res.type, "string", "fetch gets the body as one string");
  assert.ok(res.length > 10_000_000, `a body of ${res.length} chars`);
  assert.deepEqual(res.ids, Array.from({ length: 400 }, (_, i) => `u${i}`), "every message, in order");
  assert.ok(res.grown < 2.5 * res.thread, `wasm memory grew by ${(res.grown / res.thread).toFixed(2)} times the thread`);
});

// ---- 14. no pattern keeps the page busy --------------------------------------------------------

test("a legal pattern against an 80 KB argument: INVALID_TOOL_ARGUMENTS naming the budget, the handler never runs", { timeout: TIMEOUT }, async () => {
  // (?:a?){9000}b has 18,001 states, all alive at every `a`: 1.4 billion steps, 7.7 s of a frozen
  // page before the budget. The time within the budget is in bench/RESULTS.md ("Pattern budget").
  const threadId = "t-pattern-budget";
  const pattern = "(?:a?){9000}b";
  await script(threadId, [callRun(threadId, [{ id: "c1", name: "shout", args: { text: "a".repeat(80_000) } }]), answerRun(threadId)]);
  const { result, calls } = await suite.page.evaluate(async ({ threadId, pattern }) => {
    window.shoutCalls = 0;
    const rt = (window.rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs", toolsUrl: null }));
    rt.registerTool({
      name: "shout",
      description: "Shouts the text.",
      parameters: { type: "object", properties: { text: { type: "string", pattern } } },
      handler: () => { window.shoutCalls++; return "SHOUTED"; },
    });
    rt.setToolEnabled(threadId, "shout", true);
    const result = await rt.run({ threadId, messages: [{ id: "u1", role: "user", content: "Go" }] });
    return { result, calls: window.shoutCalls };
  }, { threadId, pattern });
  assert.equal(result.status, "completed");
  assert.equal(calls, 0, "the handler never ran");
  const [message] = toolMessages(result);
  const [first, why] = message.content.split("\n");
  assert.equal(first, "TOOL ERROR: INVALID_TOOL_ARGUMENTS");
  assert.equal(why, `at "/text": matching the pattern /${pattern}/ here would take over the budget of 3000000 steps (states × characters) for one validation (budget)`);
});
