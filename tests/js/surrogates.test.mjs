// Lone UTF-16 surrogates (issue "Hostile inputs", point 6). An AG-UI server in JS slices strings
// by code unit, so a TEXT_MESSAGE_CONTENT or TOOL_CALL_ARGS delta may end between the two halves
// of an emoji; JSON.stringify then writes each half as a lone escape ("\ud83d", then "\ude00...").
// `@ag-ui/client` joins them back when it appends the deltas. Here the streams are written by the
// official @ag-ui/encoder with deltas cut at every code-unit offset, in every SSE framing the
// decoder reads, and checked: (a) decodeEventStream gives for every event exactly what JSON.parse
// of its data gives; (b) a real ChatRuntime reassembles the deltas exactly (the tool handler gets
// the arguments object, the final message holds the original text).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { EventEncoder } from "@ag-ui/encoder";
import { initSync, decodeEventStream, decodeEventStreamReport, ChatRuntime } from "../../pkg/chat_runtime.js";

initSync({ module: readFileSync(new URL("../../pkg/chat_runtime_bg.wasm", import.meta.url)) });

const TEXTS = ["héllo 😀 wörld 🎉👍🏽", "🏔️\u{10FFFF}x\u{100000}😀"];
const ARGS = { city: "Zürich 🏔️", note: "😀😀" };
const ARGS_TEXT = JSON.stringify(ARGS); // {"city":"Zürich 🏔️","note":"😀😀"}
const encoder = new EventEncoder();

/** The code units of `s`, one string each (`[...s]` would split by code point). */
const codeUnits = (s) => Array.from({ length: s.length }, (_, i) => s[i]);

/** `s` cut in two at every code-unit offset, and cut into single code units. */
function cuts(s) {
  const all = [];
  for (let k = 0; k <= s.length; k++) all.push([s.slice(0, k), s.slice(k)].filter((p) => p !== ""));
  all.push(codeUnits(s));
  return all;
}

const isLone = (s) => /[\uD800-\uDFFF]/u.test(s); // with the u flag only unpaired halves match

/** A text run: the text in `pieces` deltas. */
function textRun(threadId, runId, pieces, messageId = "m-text") {
  return [
    { type: "RUN_STARTED", threadId, runId },
    { type: "TEXT_MESSAGE_START", messageId, role: "assistant" },
    ...pieces.map((delta) => ({ type: "TEXT_MESSAGE_CONTENT", messageId, delta })),
    { type: "TEXT_MESSAGE_END", messageId },
    { type: "RUN_FINISHED", threadId, runId },
  ];
}

/** A run that calls `toolName` with the arguments text in `pieces` deltas. */
function toolRun(threadId, runId, toolName, pieces, toolCallId = "call-1") {
  return [
    { type: "RUN_STARTED", threadId, runId },
    { type: "TOOL_CALL_START", toolCallId, toolCallName: toolName, parentMessageId: "m-call" },
    ...pieces.map((delta) => ({ type: "TOOL_CALL_ARGS", toolCallId, delta })),
    { type: "TOOL_CALL_END", toolCallId },
    { type: "RUN_FINISHED", threadId, runId },
  ];
}

/** The SSE framings the decoder reads, each from the encoder's own frames. */
const FRAMINGS = {
  lf: (frames) => frames.join(""),
  crlf: (frames) => frames.join("").replaceAll("\n", "\r\n"),
  cr: (frames) => frames.join("").replaceAll("\n", "\r"),
  "no space": (frames) => frames.join("").replaceAll("data: ", "data:"),
  // JSON.stringify(..., 1) breaks the JSON between tokens only; each line its own `data:` line
  // (joined back with "\n" by the decoder). Lone surrogates stay escaped.
  "multi-line data": (frames) =>
    frames
      .map((f) => JSON.stringify(JSON.parse(dataOf(f)), null, 1).split("\n").map((l) => `data: ${l}\n`).join("") + "\n")
      .join(""),
};

const dataOf = (frame) => frame.slice("data: ".length, -2);

function encode(events) {
  const frames = events.map((e) => encoder.encodeSSE(e));
  for (const f of frames) assert.ok(f.startsWith("data: ") && f.endsWith("\n\n"));
  return frames;
}

test("decodeEventStream gives JSON.parse's value for every event, lone surrogates included", () => {
  let lone = 0;
  const check = (frames) => {
    const expected = frames.map((f) => JSON.parse(dataOf(f)));
    for (const [name, frame] of Object.entries(FRAMINGS)) {
      const body = frame(frames);
      assert.deepStrictEqual(decodeEventStream(body), expected, name);
      assert.deepStrictEqual(decodeEventStream(new TextEncoder().encode(body)), expected, name);
    }
    lone += expected.filter((e) => typeof e.delta === "string" && isLone(e.delta)).length;
  };
  for (const text of TEXTS) for (const pieces of cuts(text)) check(encode(textRun("t", "r", pieces)));
  for (const pieces of cuts(ARGS_TEXT)) check(encode(toolRun("t", "r", "weather", pieces)));
  assert.ok(lone >= 40, `the cuts made only ${lone} deltas with a lone surrogate`);
});

test("lone surrogates anywhere in an event are kept as JSON.parse keeps them", () => {
  const events = [
    { type: "RUN_STARTED", threadId: "t\uD800", runId: "r\uDFFF" },
    { type: "CUSTOM", name: "\uDC00", value: { "\uD83D": ["\uDE00", { "k\uDBFF": "\uDBFF\uDFFF" }], n: "\u{10FFFF}\u{100000}" } },
    { type: "X_\uD800", "a\uDC00": "\uD800" },
    { type: "RUN_FINISHED", threadId: "t\uD800", runId: "r\uDFFF" },
  ];
  const frames = encode(events).map((f, i) => (i === 3 ? "id: \u{10FFFF}\u{100000}\uD800\n" + f : f));
  const report = decodeEventStreamReport(frames.join(""));
  assert.deepStrictEqual(report.events, events);
  assert.equal(report.warnings.length, 1);
  // An SSE id is text, not JSON: the lone surrogate was replaced on the way to UTF-8 already.
  assert.equal(report.lastEventId, "\u{10FFFF}\u{100000}\uFFFD");
});

/** A Response whose body arrives in chunks of `size` bytes (or whole). */
function sseResponse(body, size) {
  const bytes = new TextEncoder().encode(body);
  const stream = new ReadableStream({
    start(controller) {
      for (let at = 0; at < bytes.length; at += size) controller.enqueue(bytes.subarray(at, at + size));
      controller.close();
    },
  });
  return new Response(stream, { headers: { "content-type": "text/event-stream" } });
}

/**
 * Runs a ChatRuntime whose server first calls the tool with `argsPieces`, then answers with
 * `textPieces`; returns what the handler got, the final assistant text and the second request.
 */
async function runLoop({ argsPieces, textPieces, framing, chunk }) {
  const threadId = "thread-1";
  const requests = [];
  const fetch = async (url, init) => {
    const input = JSON.parse(init.body);
    requests.push(input);
    const events =
      requests.length === 1
        ? toolRun(input.threadId, input.runId, "weather", argsPieces)
        : textRun(input.threadId, input.runId, textPieces);
    return sseResponse(FRAMINGS[framing](encode(events)), chunk);
  };
  const rt = new ChatRuntime({ runUrl: "http://x/api/threads/{threadId}/runs", toolsUrl: null, storage: null, fetch });
  try {
    const calls = [];
    rt.registerTool({
      name: "weather",
      description: "The weather in a city",
      parameters: { type: "object", properties: { city: { type: "string" }, note: { type: "string" } } },
      handler: async (args) => {
        calls.push(args);
        return "sunny";
      },
    });
    rt.setToolEnabled(threadId, "weather", true);
    const result = await rt.run({
      threadId,
      messages: [{ id: "u1", role: "user", content: "Weather in Zürich?" }],
    });
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    const last = result.messages.at(-1);
    assert.equal(last.role, "assistant");
    return { calls, text: last.content, requests, result };
  } finally {
    rt.free();
  }
}

const framings = Object.keys(FRAMINGS);
const CHUNKS = [1 << 16, 7, 1];

test("ChatRuntime joins tool-call arguments cut at every code unit", async () => {
  const [text] = TEXTS;
  let i = 0;
  for (const argsPieces of cuts(ARGS_TEXT)) {
    const framing = framings[i % framings.length];
    const chunk = CHUNKS[i % CHUNKS.length];
    i++;
    const { calls, text: answer, requests } = await runLoop({ argsPieces, textPieces: [text], framing, chunk });
    const where = `${JSON.stringify(argsPieces)} (${framing}, ${chunk}-byte chunks)`;
    assert.deepStrictEqual(calls, [ARGS], where);
    assert.equal(answer, text, where);
    // The call goes back to the server with its arguments text as it came.
    const call = requests[1].messages.find((m) => m.toolCalls).toolCalls[0];
    assert.equal(call.function.arguments, ARGS_TEXT, where);
  }
});

test("ChatRuntime joins text deltas cut at every code unit", async () => {
  let i = 0;
  for (const text of TEXTS) {
    for (const textPieces of cuts(text)) {
      const framing = framings[i % framings.length];
      const chunk = CHUNKS[i % CHUNKS.length];
      i++;
      const { calls, text: answer } = await runLoop({ argsPieces: [ARGS_TEXT], textPieces, framing, chunk });
      const where = `${JSON.stringify(textPieces)} (${framing}, ${chunk}-byte chunks)`;
      assert.equal(answer, text, where);
      assert.deepStrictEqual(calls, [ARGS], where);
    }
  }
});

test("ChatRuntime, every framing: a split emoji in the arguments and in the text", async () => {
  const text = TEXTS[0];
  const argsCut = ARGS_TEXT.indexOf("😀") + 1;
  const textCut = text.indexOf("😀") + 1;
  for (const framing of framings) {
    for (const chunk of CHUNKS) {
      const { calls, text: answer } = await runLoop({
        argsPieces: [ARGS_TEXT.slice(0, argsCut), ARGS_TEXT.slice(argsCut)],
        textPieces: [text.slice(0, textCut), text.slice(textCut)],
        framing,
        chunk,
      });
      assert.deepStrictEqual(calls, [ARGS], `${framing}, ${chunk}`);
      assert.equal(answer, text, `${framing}, ${chunk}`);
    }
  }
});

test("ChatRuntime keeps the lone surrogates of the text as JSON.parse does", async () => {
  const { calls, text } = await runLoop({
    argsPieces: [ARGS_TEXT],
    textPieces: ["a\uD83D", "b\uDE00", "\uD83D", "\uD83D", "\uDE00\uDE00"],
    framing: "lf",
    chunk: 5,
  });
  assert.deepStrictEqual(calls, [ARGS]);
  assert.equal(text, "a\uD83Db\uDE00\uD83D\uD83D\uDE00\uDE00");
});

// The arguments text of a call is assembled from the deltas (internal strings) and read with
// `json::parse_internal`: its raw lone surrogate is that one code unit, as JSON.parse reads it.
test("ChatRuntime hands the tool a raw lone surrogate of the arguments text as JSON.parse does", async () => {
  // The arguments text holds a raw lone surrogate: JSON.parse of it gives a string with it.
  const argsText = '{"city":"Z\uD800","note":"\\udc00"}';
  const { calls, requests } = await runLoop({
    argsPieces: [argsText.slice(0, 10), argsText.slice(10)],
    textPieces: ["ok"],
    framing: "lf",
    chunk: 5,
  });
  const call = requests[1].messages.find((m) => m.toolCalls).toolCalls[0];
  assert.equal(call.function.arguments, argsText);
  assert.deepStrictEqual(calls, [JSON.parse(argsText)]);
});
