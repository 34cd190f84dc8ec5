// End-to-end, in headless Chromium: a message's long strings (8 KiB and more: a tool call's
// arguments, a long answer, a long result) cross to JavaScript apart from the JSON of the
// messages they are in, and strings that start with U+0000 (the mark of one handed apart) are
// handed apart whatever their length. Every way messages reach the page gets exactly the strings
// the stream and the app wrote: a `messages` event, `run()`'s value with and without a `messages`
// listener, `rt.messages()`. Lone surrogates, escapes and the JSON layer's private chars included.
import { test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./harness.mjs";

const TIMEOUT = 90_000;

const suite = browserSuite();

/**
 * Runs one turn of a stream made in the page (the runtime's `fetch` option) and returns, as
 * `JSON.stringify` text (exact for lone surrogates), what each way handed out and what the
 * stream and the request hold.
 */
async function runLong({ listener }) {
  return suite.page.evaluate(async ({ listener }) => {
    const odd = "a\"b\\c\n\u2028é😀\ud800\u{10FFFF}\u{100000}\udc00";
    const long = (char, n) => `${odd}${char.repeat(n)}${odd}`;
    const text = long("x", 20_000);
    const args = JSON.stringify({ text: long("y", 100_000), list: [odd] });
    const nul = "\u0000 starts with U+0000";
    const nulLong = `\u0000${"z".repeat(9_000)}`;
    const result = long("r", 12_000);
    const user = {
      id: "u1",
      role: "user",
      content: [{ type: "text", text: "\u0000part" }, { type: "text", text: long("p", 9_000) }],
    };
    const events = [
      { type: "RUN_STARTED", threadId: "t", runId: "r1" },
      { type: "TEXT_MESSAGE_START", messageId: "a1", role: "assistant" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "a1", delta: text.slice(0, 5_000) },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "a1", delta: text.slice(5_000) },
      { type: "TEXT_MESSAGE_END", messageId: "a1" },
      { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "write_file", parentMessageId: "a1" },
      { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: args.slice(0, 50_000) },
      { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: args.slice(50_000) },
      { type: "TOOL_CALL_END", toolCallId: "c1" },
      { type: "TOOL_CALL_RESULT", messageId: "t1", toolCallId: "c1", content: result, role: "tool" },
      { type: "TEXT_MESSAGE_START", messageId: "a2", role: "assistant" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "a2", delta: nul },
      { type: "TEXT_MESSAGE_END", messageId: "a2" },
      { type: "TEXT_MESSAGE_START", messageId: "a3", role: "assistant" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "a3", delta: nulLong },
      { type: "TEXT_MESSAGE_END", messageId: "a3" },
      { type: "RUN_FINISHED", threadId: "t", runId: "r1" },
    ];
    const body = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");
    const expected = [
      user,
      {
        id: "a1", role: "assistant", content: text,
        toolCalls: [{ id: "c1", type: "function", function: { name: "write_file", arguments: args } }],
      },
      { id: "t1", role: "tool", content: result, toolCallId: "c1" },
      { id: "a2", role: "assistant", content: nul },
      { id: "a3", role: "assistant", content: nulLong },
    ];
    const rt = new ChatRuntime({
      runUrl: "/runs/{threadId}",
      toolsUrl: null,
      storage: null,
      fetch: async () => new Response(body, { headers: { "content-type": "text/event-stream" } }),
    });
    // JSON text with each object's keys sorted: the order the runtime writes them in is not
    // what is tested.
    const sorted = (v) => Array.isArray(v) ? v.map(sorted)
      : v && typeof v === "object" ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])]))
      : v;
    const canon = (v) => JSON.stringify(sorted(v));
    const fromEvents = new Map();
    if (listener) {
      rt.subscribe((event) => {
        for (const message of event.messages) fromEvents.set(message.id, message);
      }, { events: ["messages"] });
    }
    const run = await rt.run({ threadId: "t", messages: [user] });
    return {
      status: run.status,
      error: JSON.stringify(run.error),
      expected: canon(expected),
      events: listener ? canon([...fromEvents.values()]) : null,
      result: canon(run.messages),
      newMessages: canon(run.newMessages),
      expectedNew: canon(expected),
      read: canon(rt.messages("t")),
    };
  }, { listener });
}

/** Equal texts, or where they part (the texts are long). */
function same(actual, expected, what) {
  if (actual === expected) return;
  let at = 0;
  while (actual[at] === expected[at]) at++;
  assert.fail(`${what}: differs at ${at} of ${expected.length}: ${JSON.stringify(actual.slice(Math.max(0, at - 80), at + 80))} for ${JSON.stringify(expected.slice(Math.max(0, at - 80), at + 80))}`);
}

for (const listener of [true, false]) {
  test(`long strings and strings starting with U+0000 reach the page exactly (${listener ? "a `messages` listener" : "no listener"})`, { timeout: TIMEOUT }, async () => {
    const seen = await runLong({ listener });
    assert.equal(seen.status, "completed", seen.error);
    if (listener) same(seen.events, seen.expected, "the `messages` events");
    same(seen.result, seen.expected, "run()'s messages");
    same(seen.newMessages, seen.expectedNew, "run()'s newMessages (the request's message too)");
    same(seen.read, seen.expected, "rt.messages()");
  });
}
