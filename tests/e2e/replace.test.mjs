// End-to-end: a `messages` event that replaces the thread's list (issue 36). A MESSAGES_SNAPSHOT
// that drops a streamed message reaches the app as `replace: true` with the whole list, and an
// app's store fed with `applyMessages` or `syncMessages` (the package's main entry) drops it too:
// the store ends equal to `rt.messages(threadId)`, in headless Chromium against the scripted
// AG-UI server (demo/agent).
import { test } from "node:test";
import assert from "node:assert/strict";

import { api as harnessApi, browserSuite } from "./harness.mjs";

const TIMEOUT = 90_000;
const suite = browserSuite();
const script = (threadId, responses) => harnessApi(suite.base, "/test/script", { threadId, responses });

test("a MESSAGES_SNAPSHOT that drops a streamed message removes it from applyMessages and syncMessages stores", { timeout: TIMEOUT }, async () => {
  const threadId = "t-replace";
  const events = [
    { type: "RUN_STARTED", threadId, runId: "s1" },
    { type: "TEXT_MESSAGE_START", messageId: "draft", role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "draft", delta: "Thinking out loud" },
    { type: "TEXT_MESSAGE_END", messageId: "draft" },
    // The server's own account of the thread: the draft is gone, the answer is new.
    {
      type: "MESSAGES_SNAPSHOT",
      messages: [
        { id: "u1", role: "user", content: "Hi" },
        { id: "final", role: "assistant", content: "Hello." },
      ],
    },
    { type: "RUN_FINISHED", threadId, runId: "s1" },
  ];
  // A pause before each event: the draft reaches the app in a frame of its own, before the snapshot.
  await script(threadId, [{ events, delayMs: 40 }]);
  const out = await suite.page.evaluate(async (threadId) => {
    const { applyMessages, syncMessages } = await import("/pkg/chat_runtime.js");
    const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs" });
    const seen = [];
    let applied = [];
    rt.subscribe(
      (e) => {
        seen.push({ ids: e.messages.map((m) => m.id), replace: e.replace });
        applied = applyMessages(applied, e.messages, e.replace);
      },
      { events: ["messages"] },
    );
    const stores = new Map();
    syncMessages(rt, { write: (id, update) => stores.set(id, update(stores.get(id))) });
    const result = await rt.run({ threadId, messages: [{ id: "u1", role: "user", content: "Hi" }] });
    const ids = (list) => list.map((m) => m.id);
    return {
      status: result.status,
      seen,
      thread: ids(rt.messages(threadId)),
      applied: ids(applied),
      synced: ids(stores.get(threadId) ?? []),
    };
  }, threadId);
  assert.equal(out.status, "completed");
  assert.deepEqual(out.thread, ["u1", "final"]);
  // The draft was shown on its own first, then the snapshot replaced the list and said so.
  assert.ok(out.seen.some((e) => e.ids.includes("draft") && e.replace === undefined), JSON.stringify(out.seen));
  const last = out.seen.at(-1);
  assert.deepEqual(last, { ids: ["u1", "final"], replace: true }, JSON.stringify(out.seen));
  assert.deepEqual(out.applied, out.thread, "applyMessages(prev, e.messages, e.replace) dropped the draft");
  assert.deepEqual(out.synced, out.thread, "syncMessages dropped the draft");
});

test("events that only add or change messages carry no `replace` and merge as before", { timeout: TIMEOUT }, async () => {
  const threadId = "t-merge";
  const events = [
    { type: "RUN_STARTED", threadId, runId: "s1" },
    { type: "TEXT_MESSAGE_START", messageId: "a1", role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "a1", delta: "Hel" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "a1", delta: "lo." },
    { type: "TEXT_MESSAGE_END", messageId: "a1" },
    { type: "RUN_FINISHED", threadId, runId: "s1" },
  ];
  await script(threadId, [{ events, delayMs: 40 }]);
  const out = await suite.page.evaluate(async (threadId) => {
    const { applyMessages } = await import("/pkg/chat_runtime.js");
    const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs" });
    const replaces = [];
    let applied = [];
    rt.subscribe(
      (e) => {
        replaces.push("replace" in e);
        applied = applyMessages(applied, e.messages, e.replace);
      },
      { events: ["messages"] },
    );
    await rt.run({ threadId, messages: [{ id: "u1", role: "user", content: "Hi" }] });
    return { replaces, applied: applied.map((m) => [m.id, m.content]), thread: rt.messages(threadId).map((m) => [m.id, m.content]) };
  }, threadId);
  assert.ok(out.replaces.length >= 2, JSON.stringify(out.replaces));
  assert.ok(out.replaces.every((r) => r === false), "no `replace` member on a merge event");
  assert.deepEqual(out.applied, out.thread);
});
