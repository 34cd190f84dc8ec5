// The React adapter's thread store (react/src/thread-store.ts, compiled into pkg/ by `make build`),
// which `useThread` reads, given `messages` events: with `replace: true` the event's list is the
// thread's whole list, so the store drops what it does not name (a Coder chat's streamed previews
// and the page's own user message, replaced by the committed copies under the server's ids), keeps
// unchanged objects, and merges later events by id at the right positions again.
import { test } from "node:test";
import assert from "node:assert/strict";

import { ThreadStore } from "../../pkg/thread-store.js";

const user = { id: "u-local", role: "user", content: "What's the weather in Paris?" };
const preview = { id: "preview-1", role: "assistant", content: "Let me check." };
const committed = [
  { id: "1", role: "user", content: "What's the weather in Paris?" },
  { id: "2", role: "assistant", content: "Let me check." },
];

/** A store for thread "t" on a host without a runtime (the events alone drive it). */
function store() {
  const map = new Map();
  const s = new ThreadStore({ runtime: null }, map, "t");
  map.set("t", s);
  return s;
}
const messages = (s) => s.getSnapshot().messages;

test("useThread's store: a replacing messages event replaces the list and drops what it does not name", () => {
  const s = store();
  let renders = 0;
  s.subscribe(() => renders++);
  s.handle({ type: "messages", threadId: "t", messages: [user] });
  s.handle({ type: "messages", threadId: "t", messages: [preview] });
  assert.deepEqual(messages(s), [user, preview]);
  const before = renders;
  s.handle({ type: "messages", threadId: "t", messages: committed, replace: true });
  assert.deepEqual(messages(s), committed, "the preview and the page's own copy are gone");
  assert.equal(renders, before + 1, "one render for the replacement");
  // Later events merge by id again, at the positions of the replaced list.
  const answer = { id: "3", role: "assistant", content: "18°C" };
  s.handle({ type: "messages", threadId: "t", messages: [answer] });
  assert.deepEqual(messages(s), [...committed, answer]);
  const edited = { ...committed[1], content: "Let me check the weather." };
  s.handle({ type: "messages", threadId: "t", messages: [edited] });
  assert.deepEqual(messages(s), [committed[0], edited, answer], "changed in place, not appended");
});

test("useThread's store: a replacement equal to the list keeps the objects and does not re-render", () => {
  const s = store();
  let renders = 0;
  s.subscribe(() => renders++);
  s.handle({ type: "messages", threadId: "t", messages: committed });
  const list = messages(s);
  const before = renders;
  s.handle({ type: "messages", threadId: "t", messages: [{ ...committed[0] }, { ...committed[1] }], replace: true });
  assert.equal(messages(s), list, "the same list");
  assert.equal(renders, before, "no render");
  // A replacement that drops the last message keeps the first one's object.
  s.handle({ type: "messages", threadId: "t", messages: [{ ...committed[0] }], replace: true });
  assert.equal(messages(s).length, 1);
  assert.equal(messages(s)[0], list[0], "an unchanged message keeps its object");
});
