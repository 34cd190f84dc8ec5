// applyMessages and syncMessages (react/src, compiled into pkg/ by `make build`) given a `messages`
// event with `replace: true`: the thread's whole list replaces the app's, so what it drops is gone
// (issue 36: a Coder chat's committed copies replace its streamed previews under other ids), and
// every unchanged object is kept. Without `replace`, the merge by id is as before.
import { test } from "node:test";
import assert from "node:assert/strict";

import { applyMessages } from "../../pkg/apply-messages.js";
import { syncMessages } from "../../pkg/sync-messages.js";

const user = { id: "u-local", role: "user", content: "What's the weather in Paris?" };
const preview = { id: "preview-1", role: "assistant", content: "Let me check." };
// The committed copies, under the server's ids.
const committed = [
  { id: "1", role: "user", content: "What's the weather in Paris?" },
  { id: "2", role: "assistant", content: "Let me check." },
];

test("applyMessages with replace drops what the event does not name, in the event's order", () => {
  const prev = [user, preview];
  const merged = applyMessages(prev, committed);
  assert.equal(merged.length, 4, "a merge by id keeps the stale copies (the bug)");
  const replaced = applyMessages(prev, committed, true);
  assert.deepEqual(replaced, committed);
});

test("applyMessages with replace keeps unchanged objects, and prev itself when nothing changed", () => {
  const prev = [committed[0], committed[1], preview];
  const next = applyMessages(prev, [{ ...committed[0] }, { ...committed[1] }], true);
  assert.equal(next.length, 2);
  assert.equal(next[0], committed[0], "an equal message keeps its old object");
  assert.equal(next[1], committed[1]);
  const same = applyMessages(committed, [{ ...committed[0] }, { ...committed[1] }], true);
  assert.equal(same, committed);
});

test("syncMessages writes a replacing event as the whole list", () => {
  let listener = null;
  const runtime = {
    subscribe(fn, options) {
      assert.deepEqual(options, { events: ["messages"] });
      listener = fn;
      return () => {};
    },
  };
  const stores = new Map();
  syncMessages(runtime, { write: (id, update) => stores.set(id, update(stores.get(id))) });
  listener({ type: "messages", threadId: "t", messages: [user] });
  listener({ type: "messages", threadId: "t", messages: [preview] });
  assert.deepEqual(stores.get("t"), [user, preview]);
  listener({ type: "messages", threadId: "t", messages: committed, replace: true });
  assert.deepEqual(stores.get("t"), committed);
  // A later change merges by id again.
  const answer = { id: "3", role: "assistant", content: "18°C" };
  listener({ type: "messages", threadId: "t", messages: [answer] });
  assert.deepEqual(stores.get("t"), [...committed, answer]);
});

test("syncMessages maps a replacing event's messages before it replaces", () => {
  let listener = null;
  const runtime = { subscribe: (fn) => ((listener = fn), () => {}) };
  const stores = new Map();
  syncMessages(runtime, { map: (m) => ({ ...m, mapped: true }), write: (id, update) => stores.set(id, update(stores.get(id))) });
  listener({ type: "messages", threadId: "t", messages: [user, preview] });
  listener({ type: "messages", threadId: "t", messages: committed, replace: true });
  assert.deepEqual(stores.get("t").map((m) => [m.id, m.mapped]), [["1", true], ["2", true]]);
});
