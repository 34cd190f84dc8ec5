// End-to-end: nothing outlives the runtime and nothing strands a promise (docs/guarantees.md).
// `free()` while a tool module loads, while the stream is open and while tools.json loads; a
// method called after `free()` (the `backend` property is still read); `unregisterTool` with a
// call in flight; the one error shape of `RunResult.error` and `run_finished`; `registerTool`'s
// option errors. Headless Chromium against the scripted agent.
import { test } from "node:test";
import assert from "node:assert/strict";

import { answer, scriptedSuite, callRun } from "./harness.mjs";

const TIMEOUT = 90_000;
const { suite, api, script, requests, inPage } = scriptedSuite();


/** Every public method of a freed runtime, each as `[name, outcome]`: `thrown` with its class and code. */
const AFTER_FREE = async (rt) => {
  const calls = {
    loadTools: () => rt.loadTools(),
    registerTool: () => rt.registerTool({ name: "x", description: "x", handler: () => 1 }),
    unregisterTool: () => rt.unregisterTool("x"),
    setBackendTools: () => rt.setBackendTools([]),
    listTools: () => rt.listTools("t"),
    setToolEnabled: () => rt.setToolEnabled("t", "x", true),
    activeTools: () => rt.activeTools("t"),
    setMessages: () => rt.setMessages("t", []),
    forgetThread: () => rt.forgetThread("t"),
    messages: () => rt.messages("t"),
    state: () => rt.state("t"),
    interrupts: () => rt.interrupts("t"),
    isRunning: () => rt.isRunning("t"),
    run: () => rt.run({ threadId: "t", messages: [] }),
    abort: () => rt.abort("t"),
    subscribe: () => rt.subscribe(() => {}),
  };
  const out = {};
  for (const [name, call] of Object.entries(calls)) {
    try {
      await call();
      out[name] = "returned";
    } catch (error) {
      out[name] = `${error instanceof ChatRuntimeError ? "ChatRuntimeError" : error?.name} ${error?.code}`;
    }
  }
  return out;
};

const everyMethodRefused = Object.fromEntries(
  ["loadTools", "registerTool", "unregisterTool", "setBackendTools", "listTools", "setToolEnabled", "activeTools", "setMessages", "forgetThread", "messages", "state", "interrupts", "isRunning", "run", "abort", "subscribe"].map(
    (name) => [name, "ChatRuntimeError runtime/freed"],
  ),
);

test("free() while a tool module loads: run() resolves aborted, the handler never runs, every method then throws runtime/freed", { timeout: TIMEOUT }, async () => {
  await script("t-free", [callRun("t-free", "c1", "get_browser_time", { format: "iso" }), answer("t-free")]);
  const seen = await inPage(async (AFTER_FREE) => {
    let release;
    const held = new Promise((done) => (release = done));
    window.handlerRan = false;
    const rt = new ChatRuntime({
      runUrl: "/api/threads/{threadId}/runs",
      toolsUrl: "/tools/tools.json",
      importModule: async (url) => {
        await held;
        return { getBrowserTime: () => { window.handlerRan = true; return "now"; } };
      },
    });
    const events = [];
    rt.subscribe((event) => events.push(event.type));
    await rt.loadTools();
    rt.setToolEnabled("t-free", "get_browser_time", true);
    const run = rt.run({ threadId: "t-free", messages: [{ id: "u1", role: "user", content: "Time?" }] });
    while (!events.includes("tool_started")) await new Promise((done) => setTimeout(done, 10));
    rt.free();
    const result = await Promise.race([run, new Promise((done) => setTimeout(() => done("hung"), 10_000))]);
    release();
    await new Promise((done) => setTimeout(done, 300));
    rt.free(); // a second free does nothing
    return {
      status: result.status ?? result,
      tool: result.messages?.filter((m) => m.role === "tool").map((m) => m.content.split("\n")[0]),
      handlerRan: window.handlerRan,
      after: await new Function(`return (${AFTER_FREE})`)()(rt),
      // A fact of the options, not a method: still read after free().
      backend: rt.backend,
    };
  }, AFTER_FREE.toString());
  assert.deepEqual(seen, {
    status: "aborted",
    tool: ["TOOL ERROR: INTERRUPTED"],
    handlerRan: false,
    after: everyMethodRefused,
    backend: "agui",
  });
  // The stopped round's restart was never sent.
  assert.equal((await requests("t-free")).length, 1);
});

test("free() while the stream is open: run() resolves aborted and the body is cancelled; free() during loadTools rejects it runtime/freed", { timeout: TIMEOUT }, async () => {
  const seen = await inPage(async () => {
    const encoder = new TextEncoder();
    let cancelled = false;
    let toolsRelease;
    const rt = new ChatRuntime({
      runUrl: "/api/threads/{threadId}/runs",
      toolsUrl: "/tools/tools.json",
      fetch: async (url) => {
        if (String(url).endsWith("tools.json")) {
          await new Promise((done) => (toolsRelease = done));
          return fetch(url);
        }
        const body = new ReadableStream({
          start(controller) {
            controller.enqueue(encoder.encode(`data: ${JSON.stringify({ type: "RUN_STARTED", threadId: "t-open", runId: "r1" })}\n\n`));
          },
          cancel() {
            cancelled = true;
          },
        });
        return new Response(body, { headers: { "content-type": "text/event-stream" } });
      },
    });
    const loading = rt.loadTools().then(() => "resolved", (error) => `${error instanceof ChatRuntimeError} ${error.code}`);
    const events = [];
    rt.subscribe((event) => events.push(event), { events: ["agui"] });
    const run = rt.run({ threadId: "t-open", messages: [{ id: "u1", role: "user", content: "Hi" }] });
    while (events.length === 0) await new Promise((done) => setTimeout(done, 10));
    rt.free();
    const result = await Promise.race([run, new Promise((done) => setTimeout(() => done("hung"), 10_000))]);
    toolsRelease();
    await new Promise((done) => setTimeout(done, 200));
    return { status: result.status ?? result, cancelled, loading: await loading };
  });
  assert.deepEqual(seen, { status: "aborted", cancelled: true, loading: "true runtime/freed" });
});

test("unregisterTool with a call in flight (timeoutMs: null): ctx.signal fires, the call is answered INTERRUPTED (removed), the run ends and the next one is not busy", { timeout: TIMEOUT }, async () => {
  await script("t-rm", [callRun("t-rm", "c1", "approve"), answer("t-rm", "Understood."), answer("t-rm", "Next.", "srv-3")]);
  const seen = await inPage(async () => {
    const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs", toolsUrl: null });
    let signal;
    rt.registerTool({
      name: "approve",
      description: "asks a person",
      timeoutMs: null,
      handler: (args, ctx) => {
        signal = ctx.signal;
        return new Promise(() => {}); // the card waits forever
      },
    });
    rt.setToolEnabled("t-rm", "approve", true);
    const events = [];
    rt.subscribe((event) => events.push(event));
    const run = rt.run({ threadId: "t-rm", messages: [{ id: "u1", role: "user", content: "Do it" }] });
    while (!signal) await new Promise((done) => setTimeout(done, 10));
    const removed = rt.unregisterTool("approve");
    const result = await Promise.race([run, new Promise((done) => setTimeout(() => done("hung"), 10_000))]);
    const next = await rt.run({ threadId: "t-rm", messages: [{ id: "u2", role: "user", content: "And now?" }] });
    const finishedEvent = events.find((e) => e.type === "tool_finished");
    return {
      removed,
      aborted: signal.aborted,
      reason: `${signal.reason instanceof ChatRuntimeError} ${signal.reason?.code}`,
      status: result.status ?? result,
      tool: result.messages.filter((m) => m.role === "tool").map((m) => [m.error, m.content.split("\n").slice(0, 2).join(" | ")]),
      finished: [finishedEvent.error.code],
      next: next.status,
    };
  });
  assert.deepEqual(seen, {
    removed: true,
    aborted: true,
    reason: "true tool/removed",
    status: "completed",
    tool: [["INTERRUPTED: approve was removed from the page while it ran", "TOOL ERROR: INTERRUPTED | approve was removed from the page while it ran"]],
    finished: ["INTERRUPTED"],
    next: "completed",
  });
});

test("one error shape: RunResult.error and run_finished's error are ChatRuntimeErrors with code, status and cause", { timeout: TIMEOUT }, async () => {
  const seen = await inPage(async () => {
    class FetchError extends Error {
      constructor(status) { super(`HTTP ${status}`); this.status = status; }
    }
    const thrown = new FetchError(401);
    const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs", toolsUrl: null, fetch: async () => { throw thrown; } });
    let event;
    rt.subscribe((e) => { if (e.type === "run_finished") event = e; });
    const result = await rt.run({ threadId: "t-err", messages: [{ id: "u1", role: "user", content: "x" }] });
    const shape = (error) => ({
      isClass: error instanceof ChatRuntimeError,
      isError: error instanceof Error,
      name: error.name,
      code: error.code,
      status: error.status,
      cause: error.cause === thrown,
      message: error.message,
    });
    return { result: shape(result.error), event: { ...shape(event.error), cause: undefined } };
  });
  const expected = { isClass: true, isError: true, name: "ChatRuntimeError", code: "run/http", status: 401, cause: true, message: seen.result.message };
  assert.deepEqual(seen.result, expected);
  assert.match(seen.result.message, /401/);
  assert.deepEqual(seen.event, { ...expected, cause: undefined });
});

test("NaN and ±Infinity are refused by every numeric option: tool/bad-option for timeoutMs, options/invalid for the constructor's", { timeout: TIMEOUT }, async () => {
  // JSON.stringify writes them as null, which read as "absent" (the default) or, for timeoutMs,
  // "no deadline": a NaN timeout ran a tool with none.
  const seen = await inPage(async () => {
    const caught = (f) => {
      try {
        f();
        return "ok";
      } catch (error) {
        return `${error instanceof ChatRuntimeError} ${error.code} ${error.field} ${error.toolName} ${error.message}`;
      }
    };
    const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs", toolsUrl: null });
    const register = (timeoutMs) => caught(() => {
      rt.registerTool({ name: "t1", description: "d", handler: () => 1, timeoutMs });
      rt.unregisterTool("t1");
    });
    const construct = (key, value) => caught(() => new ChatRuntime({ runUrl: "/r/{threadId}", toolsUrl: null, [key]: value }).free());
    const values = [NaN, Infinity, -Infinity];
    return {
      timeoutMs: values.map(register),
      constructor: ["maxRounds", "maxToolResultBytes", "toolTimeoutMs"].flatMap((key) => values.map((v) => construct(key, v))),
      fine: [register(5000), construct("maxRounds", 3)],
    };
  });
  assert.deepEqual(seen.timeoutMs, [
    "true tool/bad-option timeoutMs t1 `timeoutMs`: expected a finite number, found NaN",
    "true tool/bad-option timeoutMs t1 `timeoutMs`: expected a finite number, found Infinity",
    "true tool/bad-option timeoutMs t1 `timeoutMs`: expected a finite number, found -Infinity",
  ]);
  assert.deepEqual(seen.constructor, ["maxRounds", "maxToolResultBytes", "toolTimeoutMs"].flatMap((key) =>
    ["NaN", "Infinity", "-Infinity"].map((v) => `true options/invalid ${key} undefined \`${key}\`: expected a finite number, found ${v}`)));
  assert.deepEqual(seen.fine, ["ok", "ok"]);
});

test("registerTool: a bad timeoutMs, defaultEnabled or followUp throws tool/bad-option with toolName, as tools.json reports it", { timeout: TIMEOUT }, async () => {
  const seen = await inPage(async () => {
    const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs", toolsUrl: null });
    const attempt = (options) => {
      try {
        rt.registerTool({ name: "t1", description: "d", handler: () => 1, ...options });
        rt.unregisterTool("t1");
        return "ok";
      } catch (error) {
        return `${error instanceof ChatRuntimeError} ${error.code} ${error.toolName}`;
      }
    };
    return [
      attempt({ timeoutMs: 0 }),
      attempt({ timeoutMs: 600_001 }),
      attempt({ timeoutMs: "5000" }),
      attempt({ timeoutMs: 1.5 }),
      attempt({ defaultEnabled: "yes" }),
      attempt({ followUp: 1 }),
      attempt({ timeoutMs: 10n }),
      attempt({ timeoutMs: null, defaultEnabled: true, followUp: false }),
      attempt({ timeoutMs: 600_000, defaultEnabled: undefined }),
    ];
  });
  assert.deepEqual(seen, [
    "true tool/bad-option t1",
    "true tool/bad-option t1",
    "true tool/bad-option t1",
    "true tool/bad-option t1",
    "true tool/bad-option t1",
    "true tool/bad-option t1",
    "true tool/bad-option t1",
    "ok",
    "ok",
  ]);
});

test("setMessages sends its messages event in the next frame, without waiting for a run", { timeout: TIMEOUT }, async () => {
  const got = await inPage(async () => {
    const rt = new window.ChatRuntime({ runUrl: "/api/threads/{threadId}/runs", toolsUrl: null, storage: null });
    const events = [];
    rt.subscribe((event) => events.push(event), { events: ["messages"] });
    rt.setMessages("t-seed", [
      { id: "u1", role: "user", content: "hi" },
      { id: "a1", role: "assistant", content: "hello" },
    ]);
    // Two frames: the runtime sends its events at the next one.
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    rt.free();
    return events.map((event) => ({ threadId: event.threadId, ids: event.messages.map((m) => m.id) }));
  });
  assert.deepEqual(got, [{ threadId: "t-seed", ids: ["u1", "a1"] }]);
});
