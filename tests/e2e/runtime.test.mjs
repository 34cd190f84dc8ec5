// End-to-end: ChatRuntime's execute-and-restart loop in headless Chromium against the scripted
// AG-UI server (demo/agent). Each test scripts the server's answers, runs the loop in a fresh page
// and checks the exact request bodies the server received and the messages the run ended with.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";

import { api as harnessApi, browserSuite, root, settle, until } from "./harness.mjs";

const fixtures = new URL("tests/fixtures/agui-real/", root);
const manifest = JSON.parse(readFileSync(new URL("tests/e2e/tools/tools.json", root), "utf8"));
const TIMEOUT = 90_000;

const suite = browserSuite();

// ---- the server -----------------------------------------------------------------------------

const api = (path, body) => harnessApi(suite.base, path, body);
const script = (threadId, responses) => api("/test/script", { threadId, responses });
const requests = (threadId) => api(`/test/requests?threadId=${encodeURIComponent(threadId)}`);
const aborted = async (threadId) => (await api(`/test/aborted?threadId=${encodeURIComponent(threadId)}`)).aborted;

// ---- scripted AG-UI events ------------------------------------------------------------------

const started = (threadId, runId) => ({ type: "RUN_STARTED", threadId, runId });
const finished = (threadId, runId, outcome) => ({ type: "RUN_FINISHED", threadId, runId, ...(outcome ? { outcome } : {}) });
const text = (messageId, ...deltas) => [
  { type: "TEXT_MESSAGE_START", messageId, role: "assistant" },
  ...deltas.map((delta) => ({ type: "TEXT_MESSAGE_CONTENT", messageId, delta })),
  { type: "TEXT_MESSAGE_END", messageId },
];
const call = (toolCallId, toolCallName, args, parentMessageId = "a1") => [
  { type: "TOOL_CALL_START", toolCallId, toolCallName, parentMessageId },
  { type: "TOOL_CALL_ARGS", toolCallId, delta: typeof args === "string" ? args : JSON.stringify(args) },
  { type: "TOOL_CALL_END", toolCallId },
];
/** A run that calls tools: `[{ id, name, args }]`, all in assistant message `a1`. */
const callRun = (threadId, calls, { runId = "srv-1", parent = "a1", extra = {} } = {}) => ({
  events: [started(threadId, runId), ...calls.flatMap((c) => call(c.id, c.name, c.args, parent)), finished(threadId, runId)],
  ...extra,
});
/** A run that answers with text. */
const answerRun = (threadId, reply = "Done.", { runId = "srv-2", messageId = "a2", extra = {} } = {}) => ({
  events: [started(threadId, runId), ...text(messageId, reply), finished(threadId, runId)],
  ...extra,
});

// ---- expected bodies and messages -----------------------------------------------------------

const RUN_ID = /^run-[0-9a-f]{12}-\d+$/;
const TOOL_MESSAGE_ID = /^tool-[0-9a-f]{12}-\d+$/;

function schema(name) {
  const entry = manifest.find((e) => (e.tool.function ?? e.tool).name === name);
  const tool = entry.tool.function ?? entry.tool;
  return { name: tool.name, description: tool.description, parameters: tool.parameters ?? { type: "object", properties: {} } };
}
const user = (content = "Hello", id = "u1") => ({ id, role: "user", content });
const assistantCalls = (calls, id = "a1") => ({
  id,
  role: "assistant",
  toolCalls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: typeof c.args === "string" ? c.args : JSON.stringify(c.args) } })),
});
const assistantText = (content, id = "a2") => ({ id, role: "assistant", content });
const toolMessage = (toolCallId, content, error) => ({ id: "<tool-message-id>", role: "tool", toolCallId, content, ...(error ? { error } : {}) });
const body = (threadId, messages, tools = []) => ({
  threadId, runId: "<run-id>", protocolVersion: "1.0", state: {}, messages, tools: tools.map(schema), context: [], forwardedProps: {},
});

/** Replaces the runtime's generated tool-message ids with a placeholder (their shape checked). */
function normMessages(messages) {
  return messages.map((m) => (m.role === "tool" && TOOL_MESSAGE_ID.test(m.id) ? { ...m, id: "<tool-message-id>" } : m));
}
/** The request bodies of a thread, generated ids checked (distinct runIds) and replaced. */
async function bodies(threadId) {
  const recorded = await requests(threadId);
  for (const r of recorded) {
    assert.equal(r.method, "POST");
    assert.equal(r.path, `/api/threads/${threadId}/runs`);
    assert.equal(r.headers["content-type"], "application/json");
    assert.equal(r.headers.accept, "text/event-stream");
    assert.match(r.body.runId, RUN_ID);
  }
  const runIds = recorded.map((r) => r.body.runId);
  assert.equal(new Set(runIds).size, runIds.length, "every round has a fresh runId");
  // runIds and the raw records ride along, non-enumerable so deepEqual compares the bodies only.
  return Object.defineProperties(recorded.map((r) => ({ ...r.body, runId: "<run-id>", messages: normMessages(r.body.messages) })), {
    runIds: { value: runIds },
    recorded: { value: recorded },
  });
}
/** A captured request body (what @ag-ui/client sent), with its ids as placeholders. */
function fixtureBody(path) {
  const json = JSON.parse(readFileSync(new URL(path, fixtures), "utf8"));
  return { ...json, runId: "<run-id>", messages: json.messages.map((m) => (m.role === "tool" ? { ...m, id: "<tool-message-id>" } : m)) };
}
const fixture = (path) => readFileSync(new URL(path, fixtures), "utf8");

// ---- the page -------------------------------------------------------------------------------

/**
 * Creates `window.rt` in the page: tools loaded, `enable`d for `threadId` (or per thread with
 * `enableIn`), a listener collecting every event in `window.events` and logging their types in
 * `globalThis.__log` (the tools log there too). `wrap`: `"count"` counts the fetch calls,
 * `"tap"` also logs the run responses' body chunks and end; `countImports` counts `importModule`.
 */
async function createRuntime({ threadId, enable = [], enableIn = {}, options = {}, wrap, countImports, throwingListener, backendTools }) {
  await suite.page.evaluate(async (spec) => {
    const log = (globalThis.__log ??= []);
    window.events = [];
    const options = { runUrl: "/api/threads/{threadId}/runs", toolsUrl: "/tools/tools.json", ...spec.options };
    if (spec.wrap) {
      window.fetchCalls = [];
      options.fetch = async (url, init) => {
        window.fetchCalls.push(String(url));
        const response = await fetch(url, init);
        if (spec.wrap !== "tap" || !String(url).includes("/runs") || !response.body) return response;
        const tapped = response.body.pipeThrough(new TransformStream({
          transform(chunk, controller) { log.push("net:chunk"); controller.enqueue(chunk); },
          flush() { log.push("net:end"); },
        }));
        return new Response(tapped, { status: response.status, headers: response.headers });
      };
    }
    if (spec.countImports) {
      window.importCalls = {};
      options.importModule = (url) => {
        window.importCalls[url] = (window.importCalls[url] ?? 0) + 1;
        return import(url);
      };
    }
    const rt = (window.rt = new ChatRuntime(options));
    if (spec.throwingListener) {
      rt.subscribe(() => { throw new Error("a listener that throws"); });
    }
    // Every type, `agui` included (it is opt-in); and a listener the README's way, with no
    // filter, which must get all but `agui`.
    const every = ["agui", "round_started", "tool_started", "tool_finished", "messages", "state", "activity", "run_finished", "toggles_changed", "tools_changed", "diagnostic"];
    rt.subscribe((event) => {
      window.events.push(event.type === "run_finished" && event.error ? { ...event, error: plainError(event.error) } : event);
      log.push(event.type === "agui" ? `agui:${event.event.type}` : event.type);
    }, { events: every });
    window.unfiltered = [];
    rt.subscribe((event) => window.unfiltered.push(event.type));
    if (spec.backendTools) rt.setBackendTools(spec.backendTools);
    const report = await rt.loadTools();
    if (report.diagnostics.length) throw new Error(JSON.stringify(report.diagnostics));
    const enableIn = { ...spec.enableIn };
    if (spec.threadId) enableIn[spec.threadId] = spec.enable;
    for (const [thread, names] of Object.entries(enableIn)) {
      for (const name of names) rt.setToolEnabled(thread, name, true);
    }
  }, { threadId, enable, enableIn, options, wrap, countImports, throwingListener, backendTools });
}

/** Starts `rt.run` in the page; the outcome is kept in `window.runs[threadId]`. */
async function startRun(threadId, { messages = [user()], withSignal = false } = {}) {
  await suite.page.evaluate(({ threadId, messages, withSignal }) => {
    window.runs ??= {};
    window.controllers ??= {};
    const options = withSignal ? { signal: (window.controllers[threadId] = new AbortController()).signal } : undefined;
    window.runs[threadId] = rt.run({ threadId, messages }, options).then(
      // The result's messages (the runtime's mirror of what the `messages` events handed out)
      // must be exactly the thread, and `newMessages` must be objects of `messages`.
      (result) => ({
        result: { ...result, error: plainError(result.error) },
        sameAsThread: JSON.stringify(result.messages) === JSON.stringify(rt.messages(threadId)),
        newAreShared: result.newMessages.every((m) => result.messages.includes(m)),
      }),
      (error) => ({ error: { name: error.name, code: error.code, message: error.message } }),
    );
  }, { threadId, messages, withSignal });
}

/** Waits for the run of `threadId` and returns `{ result, events }` (this thread's events). */
async function finish(threadId) {
  const outcome = await suite.page.evaluate((threadId) => window.runs[threadId], threadId);
  assert.equal(outcome.error, undefined, `run rejected: ${JSON.stringify(outcome.error)}`);
  assert.ok(outcome.sameAsThread, "run() resolved with messages that differ from rt.messages()");
  assert.ok(outcome.newAreShared, "newMessages are not objects of messages");
  const events = await suite.page.evaluate((threadId) => window.events.filter((e) => e.threadId === threadId || e.type === "diagnostic"), threadId);
  return { result: outcome.result, events };
}

/** Scripts `responses`, creates the runtime, runs one turn and returns `{ result, events }`. */
async function scenario({ threadId = "t1", responses, messages, ...runtime }) {
  await script(threadId, responses);
  await createRuntime({ threadId, ...runtime });
  await startRun(threadId, { messages });
  return finish(threadId);
}

const pageValue = (expression) => suite.page.evaluate(expression);
const toolLog = async () => (await pageValue(() => globalThis.__log ?? [])).filter((e) => e.startsWith("tool:"));
const ofType = (events, type) => events.filter((e) => e.type === type);

/** The thread's messages as the runtime ended with them, ids normalized. */
const finalMessages = (result) => normMessages(result.messages);

// ---- the happy paths ------------------------------------------------------------------------

test("a single frontend call restarts with exactly the body @ag-ui/client sent (pydantic-ai capture)", { timeout: TIMEOUT }, async () => {
  const threadId = "thread-1";
  const { result, events } = await scenario({
    threadId,
    enable: ["get_browser_time"],
    messages: [user("What time is it in my browser?")],
    responses: [{ body: fixture("pydantic-ai/run1.sse") }, { body: fixture("pydantic-ai/run2.sse") }],
  });
  const sent = await bodies(threadId);
  assert.equal(sent.length, 2);
  assert.deepEqual(sent[0], fixtureBody("pydantic-ai/run1.json"));
  assert.deepEqual(sent[1], fixtureBody("pydantic-ai/run2.json"));

  assert.equal(result.status, "completed");
  assert.equal(result.rounds, 2);
  assert.equal(result.error, undefined);
  const expected = [
    ...fixtureBody("pydantic-ai/run2.json").messages,
    assistantText("The browser tool(s) returned: get_browser_time=2026-01-01T12:00:00Z; ", "ae9cc406-0f7b-47b6-bc84-46fcdd808fe7"),
  ];
  assert.deepEqual(finalMessages(result), expected);
  assert.deepEqual(normMessages(result.newMessages), expected);
  // The tool message the runtime kept is the one it sent.
  assert.equal(result.messages[2].id, sent.recorded[1].body.messages[2].id);

  assert.deepEqual(ofType(events, "round_started").map((e) => [e.round, e.runId]), [[1, sent.runIds[0]], [2, sent.runIds[1]]]);
  assert.deepEqual(
    ofType(events, "tool_started").map(({ toolCallId, toolName, args, runId }) => ({ toolCallId, toolName, args, runId })),
    [{ toolCallId: "call_frontend_1", toolName: "get_browser_time", args: { format: "iso" }, runId: sent.runIds[0] }],
  );
  assert.deepEqual(
    ofType(events, "tool_finished").map(({ toolCallId, result, error }) => ({ toolCallId, result, error })),
    [{ toolCallId: "call_frontend_1", result: "2026-01-01T12:00:00Z", error: undefined }],
  );
  assert.deepEqual(ofType(events, "run_finished").map(({ status, rounds }) => ({ status, rounds })), [{ status: "completed", rounds: 2 }]);
});

test("parallel calls are all answered in one restart, results in call order (pydantic-ai capture)", { timeout: TIMEOUT }, async () => {
  const threadId = "thread-1";
  const { result, events } = await scenario({
    threadId,
    enable: ["get_browser_time"],
    messages: [user("Do this in parallel please")],
    responses: [{ body: fixture("pydantic-ai/parallel-run1.sse") }, { body: fixture("pydantic-ai/parallel-run2.sse") }],
  });
  const sent = await bodies(threadId);
  assert.equal(sent.length, 2);
  assert.deepEqual(sent[0], fixtureBody("pydantic-ai/parallel-run1.json"));
  assert.deepEqual(sent[1], fixtureBody("pydantic-ai/parallel-run2.json"));
  assert.equal(result.status, "completed");
  assert.equal(result.rounds, 2);
  assert.deepEqual(finalMessages(result), [
    ...fixtureBody("pydantic-ai/parallel-run2.json").messages,
    assistantText("The browser tool(s) returned: get_browser_time=2026-01-01T12:00:00Z; get_browser_time=2026-01-01T12:00:00Z; ", "2b5e49f2-62f9-4966-b2e5-d0aefbcda999"),
  ]);
  assert.deepEqual(ofType(events, "tool_started").map((e) => e.toolCallId), ["call_frontend_1", "call_frontend_2"]);
  assert.deepEqual(await toolLog(), ["tool:get_browser_time:iso", "tool:get_browser_time:iso"]);
});

test("a call followed by more text in the same run: the tool message goes right after the calling message", { timeout: TIMEOUT }, async () => {
  const threadId = "t-text";
  const c1 = { id: "c1", name: "get_browser_time", args: { format: "iso" } };
  const { result } = await scenario({
    threadId,
    enable: ["get_browser_time"],
    responses: [
      { events: [started(threadId, "s1"), ...text("a1", "Let me check."), ...call("c1", c1.name, c1.args, "a1"), ...text("a2", "While that runs: hi."), finished(threadId, "s1")] },
      answerRun(threadId, "It is noon.", { messageId: "a3" }),
    ],
  });
  const calling = { ...assistantCalls([c1]), content: "Let me check." };
  const thread = [user(), calling, toolMessage("c1", "2026-01-01T12:00:00Z"), assistantText("While that runs: hi.")];
  assert.deepEqual(await bodies(threadId), [body(threadId, [user()], ["get_browser_time"]), body(threadId, thread, ["get_browser_time"])]);
  assert.equal(result.status, "completed");
  assert.deepEqual(finalMessages(result), [...thread, assistantText("It is noon.", "a3")]);
});

test("a backend call answered by TOOL_CALL_RESULT next to a frontend call: only the frontend one runs", { timeout: TIMEOUT }, async () => {
  const threadId = "t-backend";
  const b1 = { id: "b1", name: "search_docs", args: { q: "wasm" } };
  const c1 = { id: "c1", name: "get_browser_time", args: { format: "iso" } };
  const { result, events } = await scenario({
    threadId,
    enable: ["get_browser_time"],
    backendTools: [{ name: "search_docs", description: "Search the docs", parameters: { type: "object", properties: { q: { type: "string" } } } }],
    responses: [
      { events: [started(threadId, "s1"), ...call("b1", b1.name, b1.args), ...call("c1", c1.name, c1.args),
        { type: "TOOL_CALL_RESULT", messageId: "r-b1", toolCallId: "b1", content: "3 pages found", role: "tool" }, finished(threadId, "s1")] },
      answerRun(threadId),
    ],
  });
  const thread = [user(), assistantCalls([b1, c1]), { id: "r-b1", role: "tool", toolCallId: "b1", content: "3 pages found" }, toolMessage("c1", "2026-01-01T12:00:00Z")];
  assert.deepEqual(await bodies(threadId), [body(threadId, [user()], ["get_browser_time"]), body(threadId, thread, ["get_browser_time"])]);
  assert.equal(result.status, "completed");
  assert.deepEqual(finalMessages(result), [...thread, assistantText("Done.")]);
  assert.deepEqual(ofType(events, "tool_started").map((e) => e.toolCallId), ["c1"]);
  assert.deepEqual(await toolLog(), ["tool:get_browser_time:iso"]);
});

// ---- every way a call can fail: the error result goes back and the run completes -----------

/**
 * One call to `name` with `args` (tools `enable`d), answered with text after the restart. Checks
 * the bodies, the error result (code, `error` field, content format) and the final messages.
 */
async function failingCall({ threadId, name, args, enable, code, messageIncludes }) {
  const c1 = { id: "c1", name, args };
  const { result, events } = await scenario({ threadId, enable, responses: [callRun(threadId, [c1]), answerRun(threadId)] });
  const sent = await bodies(threadId);
  assert.equal(sent.length, 2, "the run restarted once with the error result");
  const tool = sent[1].messages[2];
  assert.equal(tool.role, "tool");
  assert.ok(tool.content.startsWith(`TOOL ERROR: ${code}\n`), tool.content);
  const [, message, hint] = tool.content.split("\n");
  assert.ok(message.includes(messageIncludes), `${JSON.stringify(message)} should include ${JSON.stringify(messageIncludes)}`);
  assert.match(hint, /^RECOVERY HINT: \S/);
  assert.equal(tool.content.split("\n").length, 3);
  assert.equal(tool.error, `${code}: ${message}`);
  const thread = [user(), assistantCalls([c1]), toolMessage("c1", tool.content, tool.error)];
  assert.deepEqual(sent, [body(threadId, [user()], enable), body(threadId, thread, enable)]);
  assert.equal(result.status, "completed");
  assert.equal(result.rounds, 2);
  assert.deepEqual(finalMessages(result), [...thread, assistantText("Done.")]);
  assert.deepEqual(
    ofType(events, "tool_finished").map(({ toolCallId, toolName, result, error }) => ({ toolCallId, toolName, result, error })),
    [{ toolCallId: "c1", toolName: name, result: undefined, error: { code, message } }],
  );
  return { result, events, message };
}

test("a handler that throws gives TOOL_EXECUTION_FAILED and the run completes", { timeout: TIMEOUT }, async () => {
  await failingCall({ threadId: "t-throws", name: "throws", args: {}, enable: ["throws"], code: "TOOL_EXECUTION_FAILED", messageIncludes: "the handler threw on purpose" });
  assert.deepEqual(await toolLog(), ["tool:throws"]);
});

test("a handler that rejects gives TOOL_EXECUTION_FAILED and the run completes", { timeout: TIMEOUT }, async () => {
  await failingCall({ threadId: "t-rejects", name: "rejects", args: {}, enable: ["rejects"], code: "TOOL_EXECUTION_FAILED", messageIncludes: "the handler rejected on purpose" });
});

test("a handler that hangs past its timeoutMs gives TIMEOUT and its ctx.signal fires", { timeout: TIMEOUT }, async () => {
  await failingCall({ threadId: "t-hangs", name: "hangs", args: {}, enable: ["hangs"], code: "TIMEOUT", messageIncludes: "hangs took longer than 300 ms" });
  assert.deepEqual(await pageValue(() => globalThis.__hangs), { started: true, aborted: true });
});

test("a handler returning a value JSON cannot encode (BigInt) gives TOOL_EXECUTION_FAILED", { timeout: TIMEOUT }, async () => {
  await failingCall({ threadId: "t-bigint", name: "bigint", args: {}, enable: ["bigint"], code: "TOOL_EXECUTION_FAILED", messageIncludes: "JSON cannot encode" });
});

test("a tool module that 404s gives TOOL_LOAD_FAILED", { timeout: TIMEOUT }, async () => {
  await failingCall({ threadId: "t-404", name: "missing_module", args: {}, enable: ["missing_module"], code: "TOOL_LOAD_FAILED", messageIncludes: "no-such-module.js" });
});

test("a tool whose entrypoint is not exported gives TOOL_LOAD_FAILED", { timeout: TIMEOUT }, async () => {
  await failingCall({ threadId: "t-export", name: "missing_export", args: {}, enable: ["missing_export"], code: "TOOL_LOAD_FAILED", messageIncludes: "has no exported function named notExported" });
});

test("arguments that break the schema's pattern give INVALID_TOOL_ARGUMENTS naming the pointer; the handler is not called", { timeout: TIMEOUT }, async () => {
  const { message } = await failingCall({ threadId: "t-pattern", name: "echo", args: { text: "NOT lower", mode: "loud" }, enable: ["echo"], code: "INVALID_TOOL_ARGUMENTS", messageIncludes: "/text" });
  assert.match(message, /pattern/);
  assert.equal(await pageValue(() => globalThis.__echoCalls), undefined);
});

test("arguments outside the schema's enum give INVALID_TOOL_ARGUMENTS naming the pointer", { timeout: TIMEOUT }, async () => {
  const { message } = await failingCall({ threadId: "t-enum", name: "echo", args: { text: "ok", mode: "shout" }, enable: ["echo"], code: "INVALID_TOOL_ARGUMENTS", messageIncludes: "/mode" });
  assert.match(message, /enum/);
  assert.equal(await pageValue(() => globalThis.__echoCalls), undefined);
});

test("arguments missing a required property give INVALID_TOOL_ARGUMENTS", { timeout: TIMEOUT }, async () => {
  const { message } = await failingCall({ threadId: "t-required", name: "echo", args: { text: "ok" }, enable: ["echo"], code: "INVALID_TOOL_ARGUMENTS", messageIncludes: "mode" });
  assert.match(message, /required/);
  assert.equal(await pageValue(() => globalThis.__echoCalls), undefined);
});

test("arguments that are not JSON give INVALID_TOOL_ARGUMENTS", { timeout: TIMEOUT }, async () => {
  await failingCall({ threadId: "t-json", name: "echo", args: '{"text": "ok", ', enable: ["echo"], code: "INVALID_TOOL_ARGUMENTS", messageIncludes: "not valid JSON" });
  assert.equal(await pageValue(() => globalThis.__echoCalls), undefined);
});

test("a call to a tool disabled in the thread gives TOOL_NOT_AVAILABLE", { timeout: TIMEOUT }, async () => {
  await failingCall({ threadId: "t-disabled", name: "echo", args: { text: "ok", mode: "loud" }, enable: ["get_browser_time"], code: "TOOL_NOT_AVAILABLE", messageIncludes: "echo" });
  assert.equal(await pageValue(() => globalThis.__echoCalls), undefined);
});

test("a call to an unknown tool gives TOOL_NOT_AVAILABLE", { timeout: TIMEOUT }, async () => {
  await failingCall({ threadId: "t-unknown", name: "no_such_tool", args: {}, enable: ["get_browser_time"], code: "TOOL_NOT_AVAILABLE", messageIncludes: "no_such_tool" });
});

// ---- how turns end --------------------------------------------------------------------------

test("maxRounds: a server that keeps calling stops after maxRounds restarts, the last call INTERRUPTED", { timeout: TIMEOUT }, async () => {
  const threadId = "t-max";
  const calls = [1, 2, 3, 4].map((n) => ({ id: `c${n}`, name: "get_browser_time", args: { format: `f${n}` } }));
  const { result, events } = await scenario({
    threadId,
    enable: ["get_browser_time"],
    options: { maxRounds: 2 },
    responses: calls.map((c, i) => callRun(threadId, [c], { runId: `s${i}`, parent: `a${c.id}` })),
  });
  const sent = await bodies(threadId);
  assert.equal(sent.length, 3, "1 run + 2 restarts");
  const calling = (c) => assistantCalls([c], `a${c.id}`);
  const answer = (c) => toolMessage(c.id, "2026-01-01T12:00:00Z");
  assert.deepEqual(sent, [
    body(threadId, [user()], ["get_browser_time"]),
    body(threadId, [user(), calling(calls[0]), answer(calls[0])], ["get_browser_time"]),
    body(threadId, [user(), calling(calls[0]), answer(calls[0]), calling(calls[1]), answer(calls[1])], ["get_browser_time"]),
  ]);
  assert.equal(result.status, "max_rounds");
  assert.equal(result.rounds, 3);
  assert.equal(result.error.code, "run/max-rounds");
  const last = finalMessages(result).at(-1);
  assert.equal(last.toolCallId, "c3");
  assert.ok(last.content.startsWith("TOOL ERROR: INTERRUPTED\n"), last.content);
  assert.ok(last.error.startsWith("INTERRUPTED: "), last.error);
  assert.deepEqual(finalMessages(result).slice(0, -1), [...sent[2].messages, calling(calls[2])]);
  assert.deepEqual(await toolLog(), ["tool:get_browser_time:f1", "tool:get_browser_time:f2"], "the last call never ran");
  assert.deepEqual(ofType(events, "run_finished").map((e) => [e.status, e.rounds, e.error.code]), [["max_rounds", 3, "run/max-rounds"]]);
});

test("RUN_ERROR ends the turn with status error and the event's code and message", { timeout: TIMEOUT }, async () => {
  const threadId = "t-run-error";
  const { result } = await scenario({
    threadId,
    responses: [{ events: [started(threadId, "s1"), { type: "TEXT_MESSAGE_START", messageId: "a1", role: "assistant" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "a1", delta: "Thinking" }, { type: "RUN_ERROR", message: "the model is overloaded", code: "overloaded" }] }],
  });
  assert.deepEqual(await bodies(threadId), [body(threadId, [user()])]);
  assert.equal(result.status, "error");
  assert.equal(result.rounds, 1);
  assert.deepEqual(result.error, { code: "overloaded", message: "the model is overloaded" });
  assert.deepEqual(result.messages, [user(), assistantText("Thinking", "a1")]);
});

test("a stream that ends without RUN_FINISHED ends the turn with run/truncated", { timeout: TIMEOUT }, async () => {
  const threadId = "t-truncated";
  const { result } = await scenario({
    threadId,
    enable: ["get_browser_time"],
    responses: [{ events: [started(threadId, "s1"), ...call("c1", "get_browser_time", { format: "iso" })] }],
  });
  assert.deepEqual(await bodies(threadId), [body(threadId, [user()], ["get_browser_time"])]);
  assert.equal(result.status, "error");
  assert.equal(result.error.code, "run/truncated");
  assert.deepEqual(await toolLog(), [], "nothing runs from a truncated run");
  // The dangling call is settled so the next turn is valid.
  const messages = finalMessages(result);
  assert.equal(messages.length, 3);
  assert.ok(messages[2].content.startsWith("TOOL ERROR: INTERRUPTED\n"));
});

for (const [status, contentType, responseBody, bodyStart] of [
  [401, "application/json", '{"error":"missing bearer token"}', '{"error":"missing bearer token"}'],
  [422, "application/json", fixture("pydantic-ai/bad-input.sse"), '[{"type":"missing","loc":["runId"],"msg":"Field required"'],
  [500, "text/plain", "Internal Server Error: the model crashed", "Internal Server Error: the model crashed"],
]) {
  test(`HTTP ${status} ends the turn with run/http, the status and the body's start`, { timeout: TIMEOUT }, async () => {
    const threadId = `t-http-${status}`;
    const { result, events } = await scenario({ threadId, responses: [{ status, contentType, body: responseBody }] });
    assert.deepEqual(await bodies(threadId), [body(threadId, [user()])]);
    assert.equal(result.status, "error");
    assert.equal(result.error.code, "run/http");
    assert.equal(result.error.status, status);
    assert.ok(result.error.message.includes(`HTTP ${status}`), result.error.message);
    assert.ok(result.error.message.includes(bodyStart), result.error.message);
    assert.deepEqual(result.messages, [user()]);
    assert.deepEqual(ofType(events, "run_finished").map((e) => [e.status, e.error.code, e.error.status]), [["error", "run/http", status]]);
  });
}

// ---- aborting -------------------------------------------------------------------------------

test("abort mid-stream: status aborted, the server sees the stream cancelled, no further request", { timeout: TIMEOUT }, async () => {
  const threadId = "t-abort-stream";
  await script(threadId, [
    { events: [started(threadId, "s1"), { type: "TEXT_MESSAGE_START", messageId: "a1", role: "assistant" }, { type: "TEXT_MESSAGE_CONTENT", messageId: "a1", delta: "Partial" }], hold: true },
    answerRun(threadId),
  ]);
  await createRuntime({ threadId });
  await startRun(threadId);
  await suite.page.waitForFunction(() => window.events.some((e) => e.type === "agui" && e.event.type === "TEXT_MESSAGE_CONTENT"), null, { timeout: 30_000 });
  assert.equal(await suite.page.evaluate((t) => rt.isRunning(t), threadId), true);
  await suite.page.evaluate((t) => rt.abort(t), threadId);
  const { result } = await finish(threadId);
  assert.equal(result.status, "aborted");
  assert.equal(result.rounds, 1);
  assert.deepEqual(result.messages, [user(), assistantText("Partial", "a1")]);
  await until("the server to see the stream cancelled", async () => (await aborted(threadId)) > 0);
  await settle();
  assert.deepEqual(await bodies(threadId), [body(threadId, [user()])]);
  assert.equal(await suite.page.evaluate((t) => rt.isRunning(t), threadId), false);
});

/** A `slow` call aborted while it runs, by `rt.abort` or by the run's `signal`. */
async function abortMidTool(threadId, withSignal) {
  const c1 = { id: "c1", name: "slow", args: {} };
  await script(threadId, [callRun(threadId, [c1]), answerRun(threadId)]);
  await createRuntime({ threadId, enable: ["slow"] });
  await startRun(threadId, { withSignal });
  await suite.page.waitForFunction(() => globalThis.__slow?.started === true, null, { timeout: 30_000 });
  await suite.page.evaluate(({ threadId, withSignal }) => (withSignal ? window.controllers[threadId].abort() : rt.abort(threadId)), { threadId, withSignal });
  const { result, events } = await finish(threadId);
  assert.equal(result.status, "aborted");
  assert.equal(result.rounds, 1);
  assert.deepEqual(await pageValue(() => globalThis.__slow), { started: true, aborted: true, finished: false });
  const messages = finalMessages(result);
  assert.deepEqual(messages.slice(0, 2), [user(), assistantCalls([c1])]);
  assert.equal(messages.length, 3);
  assert.equal(messages[2].toolCallId, "c1");
  assert.ok(messages[2].content.startsWith("TOOL ERROR: INTERRUPTED\n"), messages[2].content);
  assert.ok(messages[2].error.startsWith("INTERRUPTED: "));
  assert.deepEqual(ofType(events, "tool_finished").map((e) => [e.toolCallId, e.error?.code]), [["c1", "INTERRUPTED"]]);
  await settle();
  assert.deepEqual(await bodies(threadId), [body(threadId, [user()], ["slow"])], "no restart");
}

test("abort mid-tool: the handler's ctx.signal fires, no restart, the call settled INTERRUPTED", { timeout: TIMEOUT }, async () => {
  await abortMidTool("t-abort-tool", false);
});

test("abort through the run's signal option works like abort(threadId)", { timeout: TIMEOUT }, async () => {
  await abortMidTool("t-abort-signal", true);
});

test("a second run on a busy thread rejects with run/busy, an instance of the exported ChatRuntimeError", { timeout: TIMEOUT }, async () => {
  const threadId = "t-busy";
  await script(threadId, [{ events: [started(threadId, "s1")], hold: true }]);
  await createRuntime({ threadId });
  await startRun(threadId);
  await suite.page.waitForFunction(() => window.events.some((e) => e.type === "agui"), null, { timeout: 30_000 });
  const second = await suite.page.evaluate((threadId) => rt.run({ threadId, messages: [{ id: "u2", role: "user", content: "again" }] })
    .then(() => null, (e) => ({
      name: e.name,
      code: e.code,
      isError: e instanceof Error,
      isChatRuntimeError: typeof window.ChatRuntimeError === "function" && e instanceof window.ChatRuntimeError,
      hasStack: typeof e.stack === "string" && e.stack.length > 0,
    })), threadId);
  assert.deepEqual(second, { name: "ChatRuntimeError", code: "run/busy", isError: true, isChatRuntimeError: true, hasStack: true });
  await suite.page.evaluate((t) => rt.abort(t), threadId);
  const { result } = await finish(threadId);
  assert.equal(result.status, "aborted");
  assert.deepEqual(result.messages, [user()], "the refused run added nothing");
  assert.equal((await bodies(threadId)).length, 1);
});

// ---- threads and history --------------------------------------------------------------------

test("two threads at once: each thread's requests carry only its own messages and results", { timeout: TIMEOUT }, async () => {
  const threads = { "t-a": "A-time", "t-b": "B-time" };
  for (const [threadId, time] of Object.entries(threads)) {
    await script(threadId, [
      callRun(threadId, [{ id: `c-${threadId}`, name: "get_browser_time", args: { format: "iso", time } }], { parent: `a-${threadId}`, extra: { delayMs: 40 } }),
      answerRun(threadId, `It is ${time}.`, { messageId: `r-${threadId}`, extra: { delayMs: 25 } }),
    ]);
  }
  await createRuntime({ enableIn: { "t-a": ["get_browser_time"], "t-b": ["get_browser_time"] } });
  for (const threadId of Object.keys(threads)) {
    await startRun(threadId, { messages: [user(`question ${threadId}`, `u-${threadId}`)] });
  }
  for (const [threadId, time] of Object.entries(threads)) {
    const { result } = await finish(threadId);
    const c = { id: `c-${threadId}`, name: "get_browser_time", args: { format: "iso", time } };
    const thread = [user(`question ${threadId}`, `u-${threadId}`), assistantCalls([c], `a-${threadId}`), toolMessage(c.id, time)];
    assert.deepEqual(await bodies(threadId), [
      body(threadId, thread.slice(0, 1), ["get_browser_time"]),
      body(threadId, thread, ["get_browser_time"]),
    ]);
    assert.equal(result.status, "completed");
    assert.deepEqual(finalMessages(result), [...thread, assistantText(`It is ${time}.`, `r-${threadId}`)]);
  }
  // Both were in flight together: the second thread's first request came before the first's restart.
  const all = await api("/test/requests");
  const order = all.map((r) => `${r.threadId}:${r.body.messages.length}`);
  assert.ok(order.indexOf("t-b:1") < order.indexOf("t-a:3"), order.join(" "));
});

test('history "new": the first body has only the user message, the restart only the tool message', { timeout: TIMEOUT }, async () => {
  const threadId = "t-new";
  const c1 = { id: "c1", name: "get_browser_time", args: { format: "iso" } };
  const { result } = await scenario({
    threadId,
    enable: ["get_browser_time"],
    options: { history: "new" },
    responses: [callRun(threadId, [c1]), answerRun(threadId)],
  });
  assert.deepEqual(await bodies(threadId), [
    body(threadId, [user()], ["get_browser_time"]),
    body(threadId, [toolMessage("c1", "2026-01-01T12:00:00Z")], ["get_browser_time"]),
  ]);
  assert.equal(result.status, "completed");
  assert.deepEqual(finalMessages(result), [user(), assistantCalls([c1]), toolMessage("c1", "2026-01-01T12:00:00Z"), assistantText("Done.")]);
});

// ---- fire-and-forget, streaming, exactly once ---------------------------------------------

test("fire-and-forget (followUp: false) runs when its TOOL_CALL_END arrives, mid-stream, and never restarts", { timeout: TIMEOUT }, async () => {
  const threadId = "t-theme";
  const f1 = { id: "f1", name: "set_theme", args: { theme: "dark" } };
  const { result, events } = await scenario({
    threadId,
    enable: ["set_theme"],
    responses: [{ events: [started(threadId, "s1"), ...call("f1", f1.name, f1.args), ...text("a2", "Switched ", "to dark."), finished(threadId, "s1")], delayMs: 150 }],
  });
  assert.equal(await pageValue(() => document.body.dataset.theme), "dark");
  const log = await pageValue(() => globalThis.__log);
  const ran = log.indexOf("tool:set_theme:dark");
  assert.ok(ran > log.indexOf("agui:TOOL_CALL_END"), log.join(" "));
  assert.ok(ran < log.indexOf("agui:RUN_FINISHED"), `ran while the stream was open: ${log.join(" ")}`);
  await settle();
  assert.deepEqual(await bodies(threadId), [body(threadId, [user()], ["set_theme"])], "no restart");
  assert.equal(result.status, "completed");
  assert.equal(result.rounds, 1);
  assert.deepEqual(finalMessages(result), [user(), assistantCalls([f1]), toolMessage("f1", '{"theme":"dark"}'), assistantText("Switched to dark.")]);
  assert.deepEqual(ofType(events, "tool_finished").map((e) => [e.toolCallId, e.result]), [["f1", { theme: "dark" }]]);
});

test("incremental streaming: agui events reach subscribers before the body ends; messages events carry only what changed", { timeout: TIMEOUT }, async () => {
  const threadId = "t-stream";
  const deltas = ["The ", "answer ", "comes ", "in ", "small ", "pieces."];
  const { result, events } = await scenario({
    threadId,
    wrap: "tap",
    responses: [{ events: [started(threadId, "s1"), ...text("a1", ...deltas), finished(threadId, "s1")], chunkBytes: 7, delayMs: 30 }],
  });
  assert.equal(result.status, "completed");
  assert.deepEqual(result.messages, [user(), assistantText(deltas.join(""), "a1")]);
  assert.deepEqual(await bodies(threadId), [body(threadId, [user()])]);

  const log = await pageValue(() => globalThis.__log);
  const end = log.indexOf("net:end");
  assert.ok(end > 0, log.join(" "));
  const firstEvent = log.indexOf("agui:RUN_STARTED");
  const firstContent = log.indexOf("agui:TEXT_MESSAGE_CONTENT");
  assert.ok(firstEvent < end && firstContent < end, `events before the body ended: ${log.join(" ")}`);
  assert.ok(log.indexOf("net:chunk", firstContent) > firstContent, `more bytes arrived after the first delta was delivered: ${log.join(" ")}`);
  const agui = ofType(events, "agui").map((e) => e.event.type);
  assert.deepEqual(agui, ["RUN_STARTED", "TEXT_MESSAGE_START", ...deltas.map(() => "TEXT_MESSAGE_CONTENT"), "TEXT_MESSAGE_END", "RUN_FINISHED"]);

  const updates = ofType(events, "messages").map((e) => e.messages);
  assert.ok(updates.length >= 2, JSON.stringify(updates));
  assert.ok(updates.slice(1).every((messages) => messages.every((m) => m.id !== "u1")), "the user message is sent once");
  const partial = updates.filter((messages) => messages.length === 1 && messages[0].id === "a1");
  assert.ok(partial.length >= 2, `the assistant message alone, as it grows: ${JSON.stringify(updates)}`);
  assert.ok(partial.some((m) => m[0].content.length < deltas.join("").length), "a partial text was delivered");
  assert.deepEqual(updates.at(-1).at(-1), assistantText(deltas.join(""), "a1"));
});

test("tool call arguments streamed over many frames: each messages event's object is the thread's message whole, earlier objects unchanged", { timeout: TIMEOUT }, async () => {
  const threadId = "t-args-stream";
  // Two backend calls in one assistant message, each's arguments in deltas of 7 code points:
  // quotes, a newline, a non-ASCII letter and an emoji (the scripted server takes no lone
  // surrogate).
  const q1 = JSON.stringify({ q: 'wasm "quoted"\nline é 😀 '.repeat(12) });
  const q2 = JSON.stringify({ q: "second call ".repeat(12) });
  const pieces = (s) => {
    const points = Array.from(s);
    return Array.from({ length: Math.ceil(points.length / 7) }, (_, i) => points.slice(i * 7, i * 7 + 7).join(""));
  };
  const streamed = (id, args) => [
    { type: "TOOL_CALL_START", toolCallId: id, toolCallName: "search_docs", parentMessageId: "a1" },
    ...pieces(args).map((delta) => ({ type: "TOOL_CALL_ARGS", toolCallId: id, delta })),
    { type: "TOOL_CALL_END", toolCallId: id },
  ];
  const result = (id) => ({ type: "TOOL_CALL_RESULT", messageId: `r-${id}`, toolCallId: id, content: "found", role: "tool" });
  await script(threadId, [{
    events: [started(threadId, "s1"), ...text("a1", "Let me look."), ...streamed("b1", q1), ...streamed("b2", q2), result("b1"), result("b2"), finished(threadId, "s1")],
    chunkBytes: 64, delayMs: 8,
  }]);
  await createRuntime({ threadId, backendTools: [{ name: "search_docs", description: "Search the docs", parameters: { type: "object", properties: { q: { type: "string" } } } }] });
  // At each event: each object as delivered, and the thread's message of that id read fresh.
  await suite.page.evaluate((threadId) => {
    window.seen = [];
    rt.subscribe((event) => {
      const thread = rt.messages(threadId);
      for (const m of event.messages) {
        window.seen.push({ object: m, delivered: JSON.stringify(m), thread: JSON.stringify(thread.find((t) => t.id === m.id)) });
      }
    }, { events: ["messages"] });
  }, threadId);
  await startRun(threadId);
  const { result: run } = await finish(threadId);
  assert.equal(run.status, "completed");
  const seen = await suite.page.evaluate(() => window.seen.map(({ object, delivered, thread }) => ({ id: object.id, now: JSON.stringify(object), delivered, thread })));
  for (const { id, now, delivered, thread } of seen) {
    assert.equal(delivered, thread, `the event's ${id} is the thread's`);
    assert.equal(now, delivered, `the object handed out for ${id} was not changed after`);
  }
  // The call's arguments were seen growing over several events, and end whole.
  const a1 = seen.filter((s) => s.id === "a1").map((s) => JSON.parse(s.delivered));
  const growing = (k) => new Set(a1.map((m) => m.toolCalls?.[k]?.function.arguments).filter((a) => a !== undefined));
  assert.ok(growing(0).size >= 3 && growing(1).size >= 3, `arguments in several frames: ${growing(0).size}, ${growing(1).size}`);
  assert.deepEqual(a1.at(-1).toolCalls.map((c) => c.function.arguments), [q1, q2]);
  assert.equal(a1.at(-1).content, "Let me look.");
  assert.deepEqual(normMessages(run.messages).find((m) => m.id === "a1").toolCalls.map((c) => c.function.arguments), [q1, q2]);
});

test("exactly once: each tool module is imported once per URL across runs and parallel calls", { timeout: TIMEOUT }, async () => {
  const threadId = "t-imports";
  const echo = (id) => ({ id, name: "echo", args: { text: "hi", mode: "quiet" } });
  const time = (id) => ({ id, name: "get_browser_time", args: { format: id } });
  await script(threadId, [
    callRun(threadId, [time("c1"), echo("c2")], { runId: "s1", parent: "a1" }), answerRun(threadId, "one", { messageId: "r1" }),
    callRun(threadId, [echo("c3")], { runId: "s3", parent: "a3" }), answerRun(threadId, "two", { messageId: "r3" }),
    callRun(threadId, [time("c5"), { id: "c6", name: "record_ctx", args: {} }, { id: "c7", name: "slow", args: {} }], { runId: "s5", parent: "a5" }), answerRun(threadId, "three", { messageId: "r5" }),
  ]);
  await createRuntime({ threadId, enable: ["get_browser_time", "echo", "record_ctx", "slow"], countImports: true });
  for (const [n, content] of [[1, "first"], [2, "second"], [3, "third"]]) {
    await startRun(threadId, { messages: [user(content, `u${n}`)] });
    const { result } = await finish(threadId);
    assert.equal(result.status, "completed");
  }
  const basic = `${suite.base}/tools/basic.js`;
  const slow = `${suite.base}/tools/slow.js`;
  assert.deepEqual(await pageValue(() => window.importCalls), { [basic]: 1, [slow]: 1 });
  assert.deepEqual(await pageValue(() => globalThis.__imports), { [basic]: 1, [slow]: 1 });
  assert.equal(await pageValue(() => globalThis.__echoCalls), 2);
  assert.equal((await bodies(threadId)).length, 6);
});

test("exactly once: a call id the server lists again in pendingToolCallIds is not run again", { timeout: TIMEOUT }, async () => {
  const threadId = "t-once";
  const c1 = { id: "c1", name: "get_browser_time", args: { format: "iso" } };
  const again = (runId, messageId, reply) => ({
    events: [started(threadId, runId), ...text(messageId, reply), finished(threadId, runId, { type: "success", pendingToolCallIds: ["c1"] })],
  });
  await script(threadId, [callRun(threadId, [c1]), again("s2", "a2", "Done."), again("s3", "a3", "Still done.")]);
  await createRuntime({ threadId, enable: ["get_browser_time"] });
  await startRun(threadId);
  const first = (await finish(threadId)).result;
  assert.equal(first.status, "completed");
  assert.equal(first.rounds, 2);
  await startRun(threadId, { messages: [user("And now?", "u2")] });
  const second = (await finish(threadId)).result;
  assert.equal(second.status, "completed");
  assert.equal(second.rounds, 1);
  const thread = [user(), assistantCalls([c1]), toolMessage("c1", "2026-01-01T12:00:00Z"), assistantText("Done.")];
  assert.deepEqual(await bodies(threadId), [
    body(threadId, [user()], ["get_browser_time"]),
    body(threadId, thread.slice(0, 3), ["get_browser_time"]),
    body(threadId, [...thread, user("And now?", "u2")], ["get_browser_time"]),
  ]);
  assert.deepEqual(finalMessages(second), [...thread, user("And now?", "u2"), assistantText("Still done.", "a3")]);
  assert.deepEqual(await toolLog(), ["tool:get_browser_time:iso"]);
});

// ---- what handlers and hosts see ------------------------------------------------------------

test("the handler's ctx has toolCallId, toolName, threadId, the request's runId and an AbortSignal", { timeout: TIMEOUT }, async () => {
  const threadId = "t-ctx";
  const { result } = await scenario({
    threadId,
    enable: ["record_ctx"],
    responses: [callRun(threadId, [{ id: "c1", name: "record_ctx", args: {} }]), answerRun(threadId)],
  });
  assert.equal(result.status, "completed");
  const sent = await bodies(threadId);
  assert.deepEqual(await pageValue(() => globalThis.__ctx), [{
    keys: ["runId", "signal", "threadId", "toolCallId", "toolName"],
    toolCallId: "c1",
    toolName: "record_ctx",
    threadId,
    runId: sent.runIds[0],
    signalIsAbortSignal: true,
    signalAborted: false,
  }]);
  assert.equal(sent[1].messages[2].content, '{"recorded":true}');
});

test("with toolNamePrefix the tools go out prefixed and ctx.toolName is the unprefixed name", { timeout: TIMEOUT }, async () => {
  const threadId = "t-prefix";
  const c1 = { id: "c1", name: "ui_record_ctx", args: {} };
  const { result } = await scenario({
    threadId,
    enable: ["record_ctx"],
    options: { toolNamePrefix: "ui_" },
    responses: [callRun(threadId, [c1]), answerRun(threadId)],
  });
  assert.equal(result.status, "completed");
  const sent = await bodies(threadId);
  const tools = [{ ...schema("record_ctx"), name: "ui_record_ctx" }];
  assert.deepEqual(sent, [
    { ...body(threadId, [user()]), tools },
    { ...body(threadId, [user(), assistantCalls([c1]), toolMessage("c1", '{"recorded":true}')]), tools },
  ]);
  assert.equal((await pageValue(() => globalThis.__ctx))[0].toolName, "record_ctx");
});

test("a listener that throws does not break the run or the other listeners", { timeout: TIMEOUT }, async () => {
  const threadId = "t-listener";
  const c1 = { id: "c1", name: "get_browser_time", args: { format: "iso" } };
  const { result, events } = await scenario({
    threadId,
    enable: ["get_browser_time"],
    throwingListener: true,
    responses: [callRun(threadId, [c1]), answerRun(threadId)],
  });
  assert.equal(result.status, "completed");
  assert.equal(result.rounds, 2);
  assert.deepEqual(finalMessages(result), [user(), assistantCalls([c1]), toolMessage("c1", "2026-01-01T12:00:00Z"), assistantText("Done.")]);
  assert.deepEqual(ofType(events, "run_finished").map((e) => e.status), ["completed"]);
  assert.equal(ofType(events, "agui").length, 10);
});

test("a listener without `events` gets every event but `agui`, which is opt-in", { timeout: TIMEOUT }, async () => {
  const threadId = "t-unfiltered";
  const c1 = { id: "c1", name: "get_browser_time", args: { format: "iso" } };
  const { result } = await scenario({
    threadId,
    enable: ["get_browser_time"],
    responses: [callRun(threadId, [c1]), answerRun(threadId)],
  });
  assert.equal(result.status, "completed");
  const unfiltered = await pageValue(() => window.unfiltered);
  const events = await pageValue(() => window.events);
  assert.equal(ofType(events, "agui").length, 10, "the listener that asked for agui got them");
  assert.deepEqual(unfiltered, events.filter((e) => e.type !== "agui").map((e) => e.type));
  assert.ok(["round_started", "tool_started", "tool_finished", "messages", "run_finished"].every((t) => unfiltered.includes(t)), unfiltered.join(" "));
});

test("headers from the options reach the server on every request", { timeout: TIMEOUT }, async () => {
  const threadId = "t-headers";
  const { result } = await scenario({
    threadId,
    enable: ["get_browser_time"],
    options: { headers: { Authorization: "Bearer x", "X-Client": "e2e" } },
    responses: [callRun(threadId, [{ id: "c1", name: "get_browser_time", args: { format: "iso" } }]), answerRun(threadId)],
  });
  assert.equal(result.status, "completed");
  const { recorded } = await bodies(threadId);
  assert.equal(recorded.length, 2);
  for (const r of recorded) {
    assert.equal(r.headers.authorization, "Bearer x");
    assert.equal(r.headers["x-client"], "e2e");
  }
});

test("a custom fetch from the options is used for tools.json and every run request", { timeout: TIMEOUT }, async () => {
  const threadId = "t-fetch";
  const { result } = await scenario({
    threadId,
    enable: ["get_browser_time"],
    wrap: "count",
    responses: [callRun(threadId, [{ id: "c1", name: "get_browser_time", args: { format: "iso" } }]), answerRun(threadId)],
  });
  assert.equal(result.status, "completed");
  assert.equal((await bodies(threadId)).length, 2);
  const calls = await pageValue(() => window.fetchCalls);
  assert.deepEqual(calls.map((url) => new URL(url, suite.base).pathname), ["/tools/tools.json", `/api/threads/${threadId}/runs`, `/api/threads/${threadId}/runs`]);
});

// ---- every real capture through the loop ---------------------------------------------------

function parseSse(text) {
  return text.split(/\r?\n\r?\n/).map((frame) => frame.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n"))
    .filter(Boolean).map((data) => JSON.parse(data));
}

function captures(dir = fixtures, prefix = "") {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => entry.isDirectory()
    ? captures(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`)
    : entry.name.endsWith(".sse") ? [`${prefix}${entry.name}`] : []).sort();
}

/** What each tool answers (tools.json), for the captures' calls. */
const toolAnswers = { get_browser_time: "2026-01-01T12:00:00Z", generate_task_steps: "approved" };

for (const capture of captures()) {
  const text = fixture(capture);
  if (!text.startsWith("data:")) {
    // pydantic-ai/bad-input.sse is a 422 JSON body, not a stream: the HTTP 422 test plays it.
    continue;
  }
  test(`replay ${capture}: the run completes and runs the calls it expects`, { timeout: TIMEOUT }, async () => {
    const threadId = "thread-1";
    const events = parseSse(text);
    const ended = new Set(events.filter((e) => e.type === "TOOL_CALL_END").map((e) => e.toolCallId));
    const answered = new Set(events.filter((e) => e.type === "TOOL_CALL_RESULT").map((e) => e.toolCallId));
    const pending = events.find((e) => e.type === "RUN_FINISHED").outcome?.pendingToolCallIds;
    const calls = events.filter((e) => e.type === "TOOL_CALL_START" && (pending ? pending.includes(e.toolCallId) : ended.has(e.toolCallId) && !answered.has(e.toolCallId)));
    const names = [...new Set(calls.map((c) => c.toolCallName))];
    // The question the capture was recorded with, from its request body when there is one.
    const recorded = capture.replace(/run1\.sse$/, "run2.json");
    const hasRecorded = recorded !== capture && existsSync(new URL(recorded, fixtures));
    const json = capture.replace(/\.sse$/, ".json");
    const asked = existsSync(new URL(json, fixtures)) ? JSON.parse(fixture(json)).messages[0].content
      : hasRecorded ? JSON.parse(fixture(recorded)).messages[0].content : "What time is it in my browser?";
    const { result, events: seen } = await scenario({
      threadId,
      enable: names,
      messages: [user(asked)],
      responses: [{ body: text }, ...(calls.length ? [answerRun(threadId, "Thanks.", { messageId: "final" })] : [])],
    });
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.equal(result.error, undefined);
    assert.equal(result.rounds, calls.length ? 2 : 1);
    assert.deepEqual(ofType(seen, "tool_finished").map((e) => [e.toolCallId, e.toolName, e.result, e.error]),
      calls.map((c) => [c.toolCallId, c.toolCallName, toolAnswers[c.toolCallName], undefined]));
    const sent = await bodies(threadId);
    assert.equal(sent.length, result.rounds);
    assert.deepEqual(sent[0], body(threadId, [user(asked)], names));
    if (calls.length) {
      const tools = sent[1].messages.filter((m) => m.role === "tool");
      assert.deepEqual(tools, calls.map((c) => toolMessage(c.toolCallId, toolAnswers[c.toolCallName])));
      assert.deepEqual(finalMessages(result), [...sent[1].messages, assistantText("Thanks.", "final")]);
      if (hasRecorded) {
        // The restart carries the messages @ag-ui/client sent for the same capture.
        assert.deepEqual(sent[1].messages, fixtureBody(recorded).messages);
      }
    }
  });
}
