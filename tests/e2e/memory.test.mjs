// End-to-end: `forgetThread` drops a thread from memory and keeps its toggles (docs/api.md,
// "Memory"): messages, state and open interrupts go, the next run starts from an empty thread, a
// running thread is refused with `run/busy`, and a `run_finished` listener may forget the thread
// its run is ending. Headless Chromium against the scripted agent.
import { test } from "node:test";
import assert from "node:assert/strict";

import { answer, scriptedSuite, callRun, finished, started } from "./harness.mjs";

const TIMEOUT = 90_000;
const { suite, api, script, requests, inPage } = scriptedSuite();

/** A run that sets the state, says a word and ends with an interrupt on the server's call `c9`. */
const interrupted = (threadId) => ({
  events: [
    started(threadId, "srv-1"),
    { type: "STATE_SNAPSHOT", snapshot: { step: 1 } },
    { type: "TEXT_MESSAGE_START", messageId: "a1", role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "a1", delta: "Approve?" },
    { type: "TEXT_MESSAGE_END", messageId: "a1" },
    {
      ...finished(threadId, "srv-1"),
      outcome: { type: "interrupt", interrupts: [{ id: "int-1", reason: "tool_call", message: "Approve?" }] },
    },
  ],
});

test("forgetThread drops messages, state and interrupts, keeps the toggles, and the next run starts empty", { timeout: TIMEOUT }, async () => {
  await script("t-forget", [interrupted("t-forget"), answer("t-forget", "Fresh.")]);
  const seen = await inPage(async () => {
    const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs", toolsUrl: "/tools/tools.json" });
    rt.subscribe(() => {}, { events: ["messages", "state"] });
    await rt.loadTools();
    rt.setToolEnabled("t-forget", "get_browser_time", true);
    const first = await rt.run({ threadId: "t-forget", messages: [{ id: "u1", role: "user", content: "Delete?" }] });
    const toggles = () => JSON.stringify(rt.listTools("t-forget").map((t) => [t.name, t.enabled]));
    const before = {
      toggles: toggles(),
      saved: localStorage.getItem("chat:tools:t-forget"),
      messages: rt.messages("t-forget").length,
      interrupts: rt.interrupts("t-forget").length,
      state: rt.state("t-forget"),
    };
    const forgot = rt.forgetThread("t-forget");
    const after = {
      messages: rt.messages("t-forget"),
      state: rt.state("t-forget"),
      stateIsUndefined: rt.state("t-forget") === undefined,
      interrupts: rt.interrupts("t-forget"),
      togglesKept: toggles() === before.toggles,
      savedKept: localStorage.getItem("chat:tools:t-forget") === before.saved,
    };
    const again = rt.forgetThread("t-forget");
    const unknown = rt.forgetThread("never-seen");
    const impossible = [rt.forgetThread(""), rt.forgetThread(".."), rt.forgetThread(42)];
    // No `resume`: the forgotten thread has no open interrupts.
    const second = await rt.run({ threadId: "t-forget", messages: [{ id: "u2", role: "user", content: "Hi" }] });
    const result = {
      first: first.status,
      before,
      forgot,
      after,
      again,
      unknown,
      impossible,
      second: second.status,
      secondMessages: second.messages.map((m) => m.id),
      newMessages: second.newMessages.map((m) => m.id),
      enabledInRun: rt.activeTools("t-forget").map((t) => t.name),
    };
    rt.free();
    return result;
  });
  assert.equal(seen.first, "interrupted");
  assert.deepEqual(seen.before.state, { step: 1 });
  assert.equal(seen.before.messages, 2);
  assert.equal(seen.before.interrupts, 1);
  assert.ok(seen.before.saved?.includes('"get_browser_time":true'), seen.before.saved);
  assert.equal(seen.forgot, true);
  assert.deepEqual(seen.after, { messages: [], state: undefined, stateIsUndefined: true, interrupts: [], togglesKept: true, savedKept: true });
  assert.equal(seen.again, false, "a second forget finds nothing");
  assert.equal(seen.unknown, false);
  assert.deepEqual(seen.impossible, [false, false, false]);
  assert.equal(seen.second, "completed");
  assert.deepEqual(seen.secondMessages, ["u2", "m-srv-2"]);
  assert.deepEqual(seen.newMessages, ["u2", "m-srv-2"]);
  assert.ok(seen.enabledInRun.includes("get_browser_time"), "the toggle still holds");
  const sent = await requests("t-forget");
  assert.equal(sent.length, 2);
  assert.deepEqual(sent[1].body.messages.map((m) => m.id), ["u2"], "the old messages are not sent");
  assert.deepEqual(sent[1].body.state, {}, "nor the old state");
  assert.ok(sent[1].body.tools.some((t) => t.name === "get_browser_time"), "the toggle went with the run");
});

test("forgetThread while the thread runs throws run/busy and keeps it; after abort it forgets", { timeout: TIMEOUT }, async () => {
  await script("t-busy", [callRun("t-busy", "c1", "get_browser_time", { format: "iso" }), answer("t-busy")]);
  const seen = await inPage(async () => {
    let release;
    const held = new Promise((done) => (release = done));
    const rt = new ChatRuntime({
      runUrl: "/api/threads/{threadId}/runs",
      toolsUrl: "/tools/tools.json",
      importModule: async () => {
        await held;
        return { getBrowserTime: () => "now" };
      },
    });
    const events = [];
    rt.subscribe((event) => events.push(event.type));
    await rt.loadTools();
    rt.setToolEnabled("t-busy", "get_browser_time", true);
    const run = rt.run({ threadId: "t-busy", messages: [{ id: "u1", role: "user", content: "Time?" }] });
    while (!events.includes("tool_started")) await new Promise((done) => setTimeout(done, 10));
    let thrown = null;
    try {
      rt.forgetThread("t-busy");
    } catch (error) {
      thrown = `${error instanceof ChatRuntimeError ? "ChatRuntimeError" : error?.name} ${error.code}`;
    }
    const kept = rt.messages("t-busy").map((m) => m.id);
    const running = rt.isRunning("t-busy");
    rt.abort("t-busy");
    const result = await run;
    release();
    const forgot = rt.forgetThread("t-busy");
    const out = { thrown, kept, running, status: result.status, forgot, messages: rt.messages("t-busy") };
    rt.free();
    return out;
  });
  assert.deepEqual(seen, {
    thrown: "ChatRuntimeError run/busy",
    kept: ["u1", "a1"],
    running: true,
    status: "aborted",
    forgot: true,
    messages: [],
  });
});

test("a run_finished listener may forget the thread: run() still resolves with the turn's messages", { timeout: TIMEOUT }, async () => {
  await script("t-listener", [answer("t-listener", "One."), answer("t-listener", "Two.", "srv-3")]);
  const seen = await inPage(async () => {
    const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs", toolsUrl: null });
    const forgot = [];
    rt.subscribe(() => {}, { events: ["messages"] });
    rt.subscribe((event) => forgot.push(rt.forgetThread(event.threadId)), { events: ["run_finished"] });
    const first = await rt.run({ threadId: "t-listener", messages: [{ id: "u1", role: "user", content: "1" }] });
    const between = rt.messages("t-listener");
    const second = await rt.run({ threadId: "t-listener", messages: [{ id: "u2", role: "user", content: "2" }] });
    const out = {
      forgot,
      first: first.messages.map((m) => m.id),
      between,
      second: second.messages.map((m) => m.id),
      newMessages: second.newMessages.map((m) => m.id),
      after: rt.messages("t-listener"),
    };
    rt.free();
    return out;
  });
  assert.deepEqual(seen, {
    forgot: [true, true],
    first: ["u1", "m-srv-2"],
    between: [],
    second: ["u2", "m-srv-3"],
    newMessages: ["u2", "m-srv-3"],
    after: [],
  });
});
