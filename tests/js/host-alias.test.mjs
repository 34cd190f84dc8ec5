// The React adapter's host (react/src/host.ts, compiled into pkg/ by `make build`) at a Coder
// chat's `thread_created`: nothing is renamed. The stores of the id the first run went by stay
// under it and read the chat's from then on (each takes the chat's id from the event); the chat's
// id leads to the same objects, for lookups (a hook given either id) and for the runtime's events
// naming the chat. A runtime stand-in drives it (the events alone, as the wasm would send them).
import { test } from "node:test";
import assert from "node:assert/strict";

import { Host } from "../../pkg/host.js";

/** A runtime stand-in: its threads' messages by id, and the host's event listener. */
function fakeRuntime() {
  const threads = new Map();
  const runtime = {
    backend: "coder",
    threads,
    listener: null,
    subscribe(listener) {
      runtime.listener = listener;
      return () => (runtime.listener = null);
    },
    messages: (id) => threads.get(id) ?? [],
    isRunning: () => false,
    listTools: () => [],
    state: () => undefined,
    setBackendTools() {},
    emit: (event) => runtime.listener(event),
  };
  return runtime;
}

async function started() {
  const runtime = fakeRuntime();
  const host = new Host({ runtime, loadTools: false, load: "mount" });
  await host.ready();
  return { host, runtime };
}

const said = { id: "1", role: "user", content: "hi" };

test("thread_created: the first id's stores read the chat's and stay under the first id; the chat's id leads to them", async () => {
  const { host, runtime } = await started();
  const thread = host.startChat("first");
  const toggles = host.toggles("first");
  const state = host.state("first");
  assert.equal(thread.startsChat, true);
  let renders = 0;
  thread.subscribe(() => renders++);

  runtime.threads.set("chat", [said]);
  runtime.emit({ type: "thread_created", threadId: "chat", previousThreadId: "first" });

  for (const [store, lookup] of [[thread, (id) => host.thread(id)], [toggles, (id) => host.toggles(id)], [state, (id) => host.state(id)]]) {
    assert.equal(lookup("chat"), store, "the chat's id reaches the first id's store");
    assert.equal(lookup("first"), store, "the first id still does");
    assert.equal(store.key, "first", "the store stays under its key");
    assert.equal(store.threadId, "chat", "and reads the chat (the event's id)");
  }
  assert.equal(host.threads.size, 1, "one thread store");
  assert.deepEqual([...host.threads.keys()], ["first"]);
  assert.equal(thread.getSnapshot().threadId, "chat", "the readers see the chat's id");
  assert.equal(thread.startsChat, false, "later runs post to the chat");
  assert.ok(renders >= 1, "the readers re-rendered");

  // The runtime's later events name the chat: they reach the same store.
  const answer = { id: "2", role: "assistant", content: "hello" };
  runtime.emit({ type: "messages", threadId: "chat", messages: [answer] });
  assert.deepEqual(thread.getSnapshot().messages.map((m) => m.id), ["2"]);
  runtime.emit({ type: "run_finished", threadId: "chat", status: "completed" });
  assert.equal(thread.getSnapshot().running, false);
});

test("thread_created: a store a hook made for the chat's id first is retired, its readers find the first id's", async () => {
  const { host, runtime } = await started();
  const thread = host.startChat("first2");
  const early = host.thread("chat2");
  let told = 0;
  early.subscribe(() => told++);
  runtime.emit({ type: "thread_created", threadId: "chat2", previousThreadId: "first2" });
  assert.ok(told >= 1, "the early store's readers render again");
  assert.equal(host.thread("chat2"), thread, "and then find the first id's store");
  assert.equal(host.threads.has("chat2"), false, "the early store left the map");
  // A late subscription of the retired store does not put it back.
  early.subscribe(() => {});
  await new Promise((done) => setTimeout(done, 0));
  assert.equal(host.threads.has("chat2"), false);
  assert.equal(host.thread("chat2"), thread);
});

test("a first id used again for a new chat: the old chat's stores are retired, each id gets its own", async () => {
  const { host, runtime } = await started();
  const old = host.startChat("fixed");
  runtime.emit({ type: "thread_created", threadId: "chat3", previousThreadId: "fixed" });
  assert.equal(host.thread("chat3"), old);
  let told = 0;
  old.subscribe(() => told++);

  const fresh = host.startChat("fixed");
  assert.notEqual(fresh, old, "a new chat, not the one the id led to");
  assert.equal(fresh.threadId, "fixed");
  assert.equal(fresh.startsChat, true);
  assert.ok(told >= 1, "the old store's readers render again");
  const chat = host.thread("chat3");
  assert.notEqual(chat, old);
  assert.notEqual(chat, fresh);
  assert.equal(chat.key, "chat3");
  assert.equal(chat.threadId, "chat3");
});
