// End-to-end: the app's own `storage` and `fetch` may call back into the same runtime while the
// runtime is calling them (a storage wrapper that logs the tool list, an auth fetch that reads the
// thread). Nothing of the runtime's state is borrowed while JavaScript runs, so these calls work,
// and the runtime never panics (with `panic = "abort"` a panic would kill the module for the page).
import { test } from "node:test";
import assert from "node:assert/strict";

import { api as harnessApi, browserSuite } from "./harness.mjs";

const TIMEOUT = 90_000;
const suite = browserSuite();
const script = (threadId, responses) => harnessApi(suite.base, "/test/script", { threadId, responses });

const answerRun = (threadId) => ({
  events: [
    { type: "RUN_STARTED", threadId, runId: "s1" },
    { type: "TEXT_MESSAGE_START", messageId: "a1", role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "a1", delta: "Hi." },
    { type: "TEXT_MESSAGE_END", messageId: "a1" },
    { type: "RUN_FINISHED", threadId, runId: "s1" },
  ],
});

test("a storage wrapper that calls back into the runtime from getItem and setItem works", { timeout: TIMEOUT }, async () => {
  const threadId = "t-store";
  await script(threadId, [answerRun(threadId)]);
  const outcome = await suite.page.evaluate(async (threadId) => {
    const seen = [];
    let rt;
    const reenter = (where) => {
      // Every call a wrapper might make: read the tools, the thread, subscribe and unsubscribe.
      const tools = rt.listTools(threadId).length;
      const messages = rt.messages(threadId).length;
      rt.subscribe(() => {})();
      seen.push(`${where}:${tools}:${messages}`);
    };
    const storage = {
      getItem(key) {
        reenter(`get ${key}`);
        return localStorage.getItem(key);
      },
      setItem(key, value) {
        reenter(`set ${key}`);
        // A wrapper may even change a toggle of another thread while one is being saved.
        if (key === `chat:tools:${threadId}`) rt.setToolEnabled("other", "echo", true);
        localStorage.setItem(key, value);
      },
      removeItem(key) {
        localStorage.removeItem(key);
      },
    };
    rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs", storage });
    await rt.loadTools();
    rt.setToolEnabled(threadId, "get_browser_time", true);
    const enabled = rt.listTools(threadId).filter((e) => e.enabled).map((e) => e.name);
    const result = await rt.run({ threadId, messages: [{ id: "u1", role: "user", content: "Hi" }] });
    return {
      enabled,
      other: rt.listTools("other").filter((e) => e.enabled).map((e) => e.name),
      status: result.status,
      seen,
      stored: localStorage.getItem(`chat:tools:${threadId}`),
    };
  }, threadId);
  assert.deepEqual(outcome.enabled, ["get_browser_time"]);
  assert.deepEqual(outcome.other, ["echo"]);
  assert.equal(outcome.status, "completed");
  assert.equal(outcome.stored, '{"get_browser_time":true}');
  assert.ok(outcome.seen.some((s) => s.startsWith(`get chat:tools:${threadId}`)), JSON.stringify(outcome.seen));
  assert.ok(outcome.seen.some((s) => s.startsWith(`set chat:tools:${threadId}`)), JSON.stringify(outcome.seen));
});

test("a fetch wrapper that calls back into the runtime works", { timeout: TIMEOUT }, async () => {
  const threadId = "t-fetch";
  await script(threadId, [answerRun(threadId)]);
  const outcome = await suite.page.evaluate(async (threadId) => {
    const seen = [];
    let rt;
    const fetchWrapper = (url, init) => {
      seen.push(`${new URL(url, location.href).pathname} running=${rt.isRunning(threadId)} messages=${rt.messages(threadId).length} tools=${rt.listTools(threadId).length}`);
      rt.setToolEnabled(threadId, "echo", true);
      rt.subscribe(() => {})();
      return fetch(url, init);
    };
    rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs", fetch: fetchWrapper, storage: null });
    await rt.loadTools();
    const result = await rt.run({ threadId, messages: [{ id: "u1", role: "user", content: "Hi" }] });
    return { status: result.status, seen, echo: rt.listTools(threadId).find((e) => e.name === "echo").enabled };
  }, threadId);
  assert.equal(outcome.status, "completed");
  assert.equal(outcome.echo, true);
  assert.deepEqual(outcome.seen, [
    "/tools/tools.json running=false messages=0 tools=0",
    `/api/threads/${threadId}/runs running=true messages=1 tools=${outcome.seen.length && Number(outcome.seen[1].split("tools=")[1])}`,
  ]);
  assert.ok(Number(outcome.seen[1].split("tools=")[1]) > 0);
});

// The runtime keeps each turn's promise by the turn's handle (the session's), not by the thread's
// id: a listener of a turn's last events may start the thread's next turn before the first `run()`
// has settled, and each promise still settles with its own turn's result.
test("a run started by a run_finished listener: each run() settles with its own result", { timeout: TIMEOUT }, async () => {
  const threadId = "t-again";
  const second = {
    events: [
      { type: "RUN_STARTED", threadId, runId: "s2" },
      { type: "TEXT_MESSAGE_START", messageId: "a2", role: "assistant" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "a2", delta: "Again." },
      { type: "TEXT_MESSAGE_END", messageId: "a2" },
      { type: "RUN_FINISHED", threadId, runId: "s2" },
    ],
  };
  await script(threadId, [answerRun(threadId), second]);
  const outcome = await suite.page.evaluate(async (threadId) => {
    const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs" });
    let next = null;
    rt.subscribe((event) => {
      if (event.threadId !== threadId || next !== null) return;
      next = rt.run({ threadId, messages: [{ id: "u2", role: "user", content: "Again" }] });
    }, { events: ["run_finished"] });
    const settled = (promise) =>
      Promise.race([
        promise.then((r) => ({ status: r.status, ids: r.messages.map((m) => m.id) })),
        new Promise((resolve) => setTimeout(() => resolve("not settled"), 5000)),
      ]);
    const first = await settled(rt.run({ threadId, messages: [{ id: "u1", role: "user", content: "Hi" }] }));
    const later = next === null ? "not started" : await settled(next);
    return { first, later };
  }, threadId);
  assert.deepEqual(outcome.first, { status: "completed", ids: ["u1", "a1"] });
  assert.deepEqual(outcome.later, { status: "completed", ids: ["u1", "a1", "u2", "a2"] });
});
