// End-to-end: what an existing app brings to ChatRuntime (docs/react.md): its own
// fetch that throws, `prepareRequest`, tools without a deadline, tools on by default, the `state`
// event, AG-UI's optional `capabilities.tools`. Headless Chromium against the scripted agent.
import { test } from "node:test";
import assert from "node:assert/strict";

import { answer, scriptedSuite, callRun, finished, started } from "./harness.mjs";

const TIMEOUT = 90_000;
const { suite, api, script, requests, inPage } = scriptedSuite();

const user = { id: "u1", role: "user", content: "Hello" };

test("an app's fetch that throws: run/network keeps the thrown value as error.cause", { timeout: TIMEOUT }, async () => {
  const seen = await inPage(async () => {
    class NetworkDown extends Error {}
    const thrown = new NetworkDown("offline");
    const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs", toolsUrl: null, fetch: async () => { throw thrown; } });
    const result = await rt.run({ threadId: "t-net", messages: [{ id: "u1", role: "user", content: "x" }] });
    return { status: result.status, code: result.error.code, status2: result.error.status, same: result.error.cause === thrown, message: result.error.message };
  });
  assert.deepEqual(seen, { status: "error", code: "run/network", status2: undefined, same: true, message: "Error: offline" });
});

test("an auth fetch that throws FetchError(401): run/http with status 401 and the error as cause; loadTools too", { timeout: TIMEOUT }, async () => {
  const seen = await inPage(async () => {
    class FetchError extends Error {
      constructor(status) { super(`HTTP ${status}`); this.name = "FetchError"; this.status = status; }
    }
    let calls = 0;
    const authFetch = async (url, init) => { calls++; throw new FetchError(401); };
    const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs", toolsUrl: "/tools/tools.json", fetch: authFetch });
    const loaded = await rt.loadTools().then(() => null, (e) => ({
      isClass: e instanceof ChatRuntimeError, code: e.code, status: e.status, causeIsFetchError: e.cause instanceof FetchError,
    }));
    const events = [];
    rt.subscribe((e) => { if (e.type === "run_finished") events.push(e); });
    const result = await rt.run({ threadId: "t-401", messages: [{ id: "u1", role: "user", content: "x" }] });
    return {
      loaded, calls,
      error: { code: result.error.code, status: result.error.status, message: result.error.message, cause: result.error.cause instanceof FetchError && result.error.cause.status },
      event: events.map((e) => [e.status, e.error.code, e.error.status, "cause" in e.error]),
    };
  });
  assert.deepEqual(seen.loaded, { isClass: true, code: "tools/fetch", status: 401, causeIsFetchError: true });
  assert.equal(seen.calls, 2);
  assert.deepEqual(seen.error, { code: "run/http", status: 401, message: "HTTP 401, thrown by fetch: FetchError: HTTP 401", cause: 401 });
  assert.deepEqual(seen.event, [["error", "run/http", 401, false]]);
});

test("prepareRequest shapes every round's body (sync and async), told the thread and the round", { timeout: TIMEOUT }, async () => {
  const threadId = "t-prepare";
  await script(threadId, [callRun(threadId, "c1", "echo_args", { a: 1 }), answer(threadId)]);
  const seen = await inPage(async (threadId) => {
    const calls = [];
    const rt = new ChatRuntime({
      runUrl: "/api/threads/{threadId}/runs",
      toolsUrl: null,
      // Like an app whose server declares only messages, tools, context and forwarded_props.
      prepareRequest: (body, info) => {
        calls.push({ ...info, hadRunId: typeof body.runId === "string", hadState: "state" in body });
        const { runId, state, ...rest } = body;
        return info.round === 1 ? rest : Promise.resolve({ ...rest, forwardedProps: { round: info.round } });
      },
    });
    rt.registerTool({ name: "echo_args", description: "echo", handler: (args) => args });
    rt.setToolEnabled(threadId, "echo_args", true);
    const result = await rt.run({ threadId, messages: [{ id: "u1", role: "user", content: "x" }] });
    return { status: result.status, rounds: result.rounds, calls };
  }, threadId);
  assert.deepEqual(seen, {
    status: "completed", rounds: 2,
    calls: [{ threadId, round: 1, hadRunId: true, hadState: true }, { threadId, round: 2, hadRunId: true, hadState: true }],
  });
  const sent = (await requests(threadId)).map((r) => r.body);
  assert.equal(sent.length, 2);
  for (const body of sent) {
    assert.equal("runId" in body, false, "runId dropped");
    assert.equal("state" in body, false, "state dropped");
    assert.equal(body.threadId, threadId);
  }
  assert.deepEqual(sent[1].forwardedProps, { round: 2 });
  assert.deepEqual(sent[1].messages.map((m) => m.role), ["user", "assistant", "tool"]);
});

test("prepareRequest that throws, rejects or returns no object ends the run run/prepare-request; nothing is sent", { timeout: TIMEOUT }, async () => {
  const outcomes = await inPage(async () => {
    const thrown = new TypeError("bad body");
    const cases = {
      throws: () => { throw thrown; },
      rejects: () => Promise.reject(thrown),
      returnsString: () => "nope",
    };
    const out = {};
    for (const [name, prepareRequest] of Object.entries(cases)) {
      const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs", toolsUrl: null, prepareRequest });
      const result = await rt.run({ threadId: `t-prep-${name}`, messages: [{ id: "u1", role: "user", content: "x" }] });
      out[name] = [result.status, result.error.code, result.error.cause === thrown || result.error.cause === "nope", result.error.message];
    }
    return out;
  });
  assert.deepEqual(outcomes, {
    throws: ["error", "run/prepare-request", true, "TypeError: bad body"],
    rejects: ["error", "run/prepare-request", true, "TypeError: bad body"],
    returnsString: ["error", "run/prepare-request", true, "prepareRequest must return the request body, an object, not string"],
  });
  for (const name of ["throws", "rejects", "returnsString"]) {
    assert.deepEqual(await requests(`t-prep-${name}`), [], `${name}: nothing reached the server`);
  }
});

test("timeoutMs: null (registerTool and tools.json) is no deadline; Stop still cancels it", { timeout: TIMEOUT }, async () => {
  const threadId = "t-approve";
  await script(threadId, [callRun(threadId, "c1", "approve_code"), answer(threadId)]);
  const seen = await inPage(async (threadId) => {
    const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs", toolsUrl: "/tools/defaults.json", toolTimeoutMs: 100 });
    await rt.loadTools();
    // The person answers after 600 ms, six times the runtime's default deadline.
    rt.registerTool({ name: "approve_code", description: "asks", timeoutMs: null, handler: () => new Promise((done) => setTimeout(() => done("approved"), 600)) });
    rt.setToolEnabled(threadId, "approve_code", true);
    const result = await rt.run({ threadId, messages: [{ id: "u1", role: "user", content: "x" }] });
    const tool = result.messages.find((m) => m.role === "tool");
    return { status: result.status, content: tool.content, error: tool.error ?? null };
  }, threadId);
  assert.deepEqual(seen, { status: "completed", content: "approved", error: null });

  const stopped = "t-approve-stop";
  await script(stopped, [callRun(stopped, "c1", "approve")]);
  const outcome = await inPage(async (threadId) => {
    const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs", toolsUrl: "/tools/defaults.json", toolTimeoutMs: 100, importModule: async () => ({ getBrowserTime: (args, ctx) => new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))) }) });
    await rt.loadTools();
    rt.setToolEnabled(threadId, "approve", true);
    const running = rt.run({ threadId, messages: [{ id: "u1", role: "user", content: "x" }] });
    await new Promise((done) => setTimeout(done, 400));
    const stillRunning = rt.isRunning(threadId);
    rt.abort(threadId);
    const result = await running;
    return { stillRunning, status: result.status, content: result.messages.find((m) => m.role === "tool").content.split("\n")[0] };
  }, stopped);
  assert.deepEqual(outcome, { stillRunning: true, status: "aborted", content: "TOOL ERROR: INTERRUPTED" });
});

test("defaultEnabled tools are on where no toggle was saved; a saved false wins; registerTool takes it too", { timeout: TIMEOUT }, async () => {
  const threadId = "t-defaults";
  await script(threadId, [answer(threadId)]);
  const seen = await inPage(async (threadId) => {
    localStorage.clear();
    const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs", toolsUrl: "/tools/defaults.json" });
    await rt.loadTools();
    rt.registerTool({ name: "where", description: "on by default, in code", defaultEnabled: true, handler: () => "here" });
    const on = (thread) => rt.listTools(thread).filter((t) => t.enabled).map((t) => t.name);
    const fresh = { newChat: on(null), thread: on(threadId) };
    rt.setToolEnabled(threadId, "where", false);
    const afterOff = on(threadId);
    const result = await rt.run({ threadId, messages: [{ id: "u1", role: "user", content: "x" }] });
    return { fresh, afterOff, status: result.status, saved: JSON.parse(localStorage.getItem(`chat:tools:${threadId}`)), other: on("t-other") };
  }, threadId);
  assert.deepEqual(seen.fresh, { newChat: ["locate", "where"], thread: ["locate", "where"] });
  assert.deepEqual(seen.afterOff, ["locate"]);
  assert.equal(seen.status, "completed");
  assert.deepEqual(seen.saved, { where: false });
  assert.deepEqual(seen.other, ["locate", "where"]);
  const [sent] = (await requests(threadId)).map((r) => r.body);
  assert.deepEqual(sent.tools.map((t) => t.name), ["locate"]);
});

test("the state event: STATE_SNAPSHOT and STATE_DELTA reach a `state` listener, coalesced, the last before run resolves", { timeout: TIMEOUT }, async () => {
  const threadId = "t-state";
  await script(threadId, [{
    events: [
      started(threadId, "srv-1"),
      { type: "STATE_SNAPSHOT", snapshot: { step: 1, items: [] } },
      { type: "STATE_DELTA", delta: [{ op: "replace", path: "/step", value: 2 }, { op: "add", path: "/items/-", value: "a" }] },
      finished(threadId, "srv-1"),
    ],
  }]);
  const seen = await inPage(async (threadId) => {
    const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs", toolsUrl: null });
    const states = [];
    let resolvedAfter = null;
    rt.subscribe((e) => states.push(e), { events: ["state"] });
    const unfiltered = [];
    rt.subscribe((e) => { if (e.type === "state") unfiltered.push(e.state); });
    const result = await rt.run({ threadId, state: { step: 0 }, messages: [{ id: "u1", role: "user", content: "x" }] });
    resolvedAfter = states.length;
    return { states, resolvedAfter, final: rt.state(threadId), resultState: result.state, unfiltered: unfiltered.length };
  }, threadId);
  assert.ok(seen.states.length >= 1, "at least one state event");
  assert.ok(seen.states.every((e) => e.type === "state" && e.threadId === threadId), JSON.stringify(seen.states));
  assert.deepEqual(seen.states.at(-1).state, { step: 2, items: ["a"] });
  assert.equal(seen.resolvedAfter, seen.states.length, "the last state event came before run resolved");
  assert.deepEqual(seen.final, { step: 2, items: ["a"] });
  assert.deepEqual(seen.resultState, { step: 2, items: ["a"] });
  assert.equal(seen.unfiltered, seen.states.length, "a listener without a filter gets state events too");
});

test("setBackendTools takes AG-UI's optional capabilities.tools: undefined and { supported: false } are no tools", { timeout: TIMEOUT }, async () => {
  const seen = await inPage(async () => {
    const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs", toolsUrl: null });
    const diagnostics = [];
    rt.subscribe((e) => diagnostics.push(e.diagnostic.code), { events: ["diagnostic"] });
    const backend = () => rt.listTools(null).filter((t) => t.locked).map((t) => t.name);
    rt.setBackendTools({ items: [{ name: "search", description: "s" }] });
    const withItems = backend();
    const capabilities = {};
    rt.setBackendTools(capabilities.tools);
    const afterUndefined = backend();
    rt.setBackendTools({ items: [{ name: "search", description: "s" }] });
    rt.setBackendTools({ supported: false });
    return { withItems, afterUndefined, afterNoItems: backend(), diagnostics };
  });
  assert.deepEqual(seen, { withItems: ["search"], afterUndefined: [], afterNoItems: [], diagnostics: [] });
});
