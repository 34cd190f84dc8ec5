// Lone UTF-16 surrogates (docs/guarantees.md). An AG-UI server in JS slices strings
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

// ---- Exits: nothing of the JSON layer's internal form leaves the runtime ---------------------
// The JSON layer keeps a lone surrogate of JSON text as two private chars (U+10FFFF then
// U+100000 + offset; src/json). Every string the runtime hands to JavaScript other than as JSON
// text (a URL to `import()` or `importModule`, the URL and headers of a `fetch`, a storage key, a
// thrown error's message and fields) must be the JS string it stands for, or be refused.

const MANIFEST_URL = "http://x/tools/tools.json";

/** A `tools.json` Response. */
const manifestResponse = (entries) =>
  new Response(JSON.stringify(entries), { headers: { "content-type": "application/json" } });

/**
 * Loads a manifest of one tool `t` (`importPath`, default on) and runs a turn that calls it:
 * the URLs `importModule` was given, and the run's result.
 */
async function importOf(importPath) {
  const imported = [];
  let runs = 0;
  const fetch = async (url, init) => {
    if (url === MANIFEST_URL) {
      return manifestResponse([
        { tool: { name: "t", description: "d" }, importPath, entrypoint: "f", defaultEnabled: true },
      ]);
    }
    const input = JSON.parse(init.body);
    runs++;
    const events = runs === 1 ? toolRun(input.threadId, input.runId, "t", ["{}"]) : textRun(input.threadId, input.runId, ["ok"]);
    return sseResponse(FRAMINGS.lf(encode(events)), 1 << 16);
  };
  const importModule = async (url) => {
    imported.push(url);
    return { f: async () => "done" };
  };
  const rt = new ChatRuntime({ runUrl: "http://x/api/{threadId}", toolsUrl: MANIFEST_URL, storage: null, fetch, importModule });
  try {
    const report = await rt.loadTools();
    assert.deepStrictEqual(report.diagnostics, []);
    const result = await rt.run({ threadId: "t1", messages: [{ id: "u1", role: "user", content: "go" }] });
    return { imported, result };
  } finally {
    rt.free();
  }
}

test("an importPath with a lone surrogate is imported as the browser resolves it, not in the internal form", async () => {
  const { imported, result } = await importOf("/x\uD800.js");
  assert.equal(result.status, "completed", JSON.stringify(result.error));
  // What `import("/x\ud800.js")` of a page on http://x would load: the lone surrogate as U+FFFD.
  assert.deepStrictEqual(imported, ["http://x/x%EF%BF%BD.js"]);
  assert.deepStrictEqual(imported, [new URL("/x\uD800.js", MANIFEST_URL).href]);
});

// The property tests below run every exit over strings made of these pieces: lone halves (high,
// low, and the halves of U+10FFFF), pairs, U+10FFFF itself and the plane-16 chars the internal
// form uses (U+100000, U+1007FF), and plain text. Each `LONE` string holds at least one lone
// surrogate; each `WELL_FORMED` string holds none but always one of U+10FFFF / U+100000.
const PIECES = ["a", "Z", "0", "-", "é", "日", "😀", "\uD800", "\uDBFF", "\uDC00", "\uDFFF", "\uD83D", "\uDE00",
  "\u{10FFFF}", "\u{100000}", "\u{1007FF}", "\u{10FFFE}", "\uFFFD", "%", " "];
const LONE_PIECES = ["\uD800", "\uDBFF", "\uDC00", "\uDFFF", "\uD83D", "\uDE00"];

/** xorshift32: the same strings on every run. */
function generator(seed) {
  let x = seed >>> 0 || 1;
  const next = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
  const pick = (list) => list[next() % list.length];
  return (pieces, extra) => {
    const parts = Array.from({ length: 1 + (next() % 8) }, () => pick(pieces));
    parts.splice(next() % (parts.length + 1), 0, pick(extra));
    return parts.join("");
  };
}

const gen = generator(0x5eed);
const LONE = Array.from({ length: 40 }, () => gen(PIECES, LONE_PIECES)).filter(isLone);
const WELL_FORMED = Array.from({ length: 20 }, () => gen(PIECES.filter((p) => !LONE_PIECES.includes(p)), ["\u{10FFFF}", "\u{100000}"]));
assert.ok(LONE.length >= 30 && WELL_FORMED.every((s) => !isLone(s)));

/** A run calling `calls` (`{ id, name, args }`), each with its arguments in one delta. */
function callsRun(threadId, runId, calls) {
  return [
    { type: "RUN_STARTED", threadId, runId },
    ...calls.flatMap(({ id, name, args = {} }) => [
      { type: "TOOL_CALL_START", toolCallId: id, toolCallName: name, parentMessageId: "m-call" },
      { type: "TOOL_CALL_ARGS", toolCallId: id, delta: JSON.stringify(args) },
      { type: "TOOL_CALL_END", toolCallId: id },
    ]),
    { type: "RUN_FINISHED", threadId, runId },
  ];
}

/** `f()`'s ChatRuntimeError (fails when it does not throw one). */
function thrown(f) {
  try {
    f();
  } catch (error) {
    assert.equal(error.name, "ChatRuntimeError", String(error));
    return error;
  }
  assert.fail("no error was thrown");
}

test("exits: every importPath is imported as the browser resolves it", async () => {
  const paths = [...LONE, ...WELL_FORMED].map((s) => `/p/${s}.js`);
  const imported = new Set();
  let runs = 0;
  const fetch = async (url, init) => {
    if (url === MANIFEST_URL) {
      return manifestResponse(paths.map((importPath, i) => ({
        tool: { name: `t${i}`, description: "d" }, importPath, entrypoint: "f", defaultEnabled: true,
      })));
    }
    const input = JSON.parse(init.body);
    const events = ++runs === 1
      ? callsRun(input.threadId, input.runId, paths.map((_, i) => ({ id: `c${i}`, name: `t${i}` })))
      : textRun(input.threadId, input.runId, ["ok"]);
    return sseResponse(FRAMINGS.lf(encode(events)), 1 << 16);
  };
  const importModule = async (url) => {
    imported.add(url);
    return { f: async () => "done" };
  };
  const rt = new ChatRuntime({ runUrl: "http://x/api/{threadId}", toolsUrl: MANIFEST_URL, storage: null, fetch, importModule });
  try {
    assert.deepStrictEqual((await rt.loadTools()).diagnostics, []);
    const result = await rt.run({ threadId: "t1", messages: [{ id: "u1", role: "user", content: "go" }] });
    assert.equal(result.status, "completed", JSON.stringify(result.error));
  } finally {
    rt.free();
  }
  const expected = new Set(paths.map((p) => new URL(p, MANIFEST_URL).href));
  assert.deepStrictEqual([...imported].sort(), [...expected].sort());
});

test("exits: fetch gets the run URL, toolsUrl and headers as the app gave them; a header cannot hold a lone surrogate", async () => {
  for (const [i, s] of [...LONE, ...WELL_FORMED].entries()) {
    const header = WELL_FORMED[i % WELL_FORMED.length];
    const seen = [];
    const fetch = async (url, init) => {
      seen.push({ url, headers: init.headers });
      if (url.endsWith(".json")) return manifestResponse([]);
      const input = JSON.parse(init.body);
      return sseResponse(FRAMINGS.lf(encode(textRun(input.threadId, input.runId, ["ok"]))), 1 << 16);
    };
    const toolsUrl = `http://x/tools/${s}.json`;
    const rt = new ChatRuntime({ runUrl: `http://x/api/${s}/{threadId}`, toolsUrl, storage: null, fetch, headers: { "x-h": header, [header]: "v" } });
    try {
      await rt.loadTools();
      const result = await rt.run({ threadId: "t1", messages: [{ id: "u1", role: "user", content: "go" }] });
      assert.equal(result.status, "completed", JSON.stringify(result.error));
    } finally {
      rt.free();
    }
    assert.equal(seen[0].url, new URL(toolsUrl).href);
    assert.equal(seen[1].url, `http://x/api/${s}/t1`);
    assert.equal(seen[1].headers["x-h"], header);
    assert.equal(seen[1].headers[header], "v");
  }
  for (const s of LONE) {
    for (const headers of [{ "x-h": s }, { [s]: "v" }]) {
      const error = thrown(() => new ChatRuntime({ runUrl: "http://x/{threadId}", fetch: () => assert.fail("fetch"), headers }));
      assert.equal(error.code, "options/invalid");
      assert.equal(error.field, "headers");
      assert.match(error.message, /lone UTF-16 surrogate/);
    }
  }
});

test("exits: a reconnect sends Last-Event-ID as the stream wrote it", async () => {
  for (const id of WELL_FORMED) {
    const seen = [];
    const fetch = async (url, init) => {
      seen.push(init.headers["Last-Event-ID"]);
      const input = JSON.parse(init.body);
      // The first answer is cut after an event with an SSE id; the second finishes the run.
      const body = seen.length === 1
        ? `retry: 1\nid: ${id}\n` + encode([{ type: "RUN_STARTED", threadId: input.threadId, runId: input.runId }])[0]
        : encode(textRun(input.threadId, input.runId, ["ok"]).slice(1)).join("");
      return sseResponse(body, 1 << 16);
    };
    const rt = new ChatRuntime({ runUrl: "http://x/{threadId}", toolsUrl: null, storage: null, fetch });
    try {
      const result = await rt.run({ threadId: "t1", messages: [{ id: "u1", role: "user", content: "go" }] });
      assert.equal(result.status, "completed", JSON.stringify(result.error));
    } finally {
      rt.free();
    }
    assert.deepStrictEqual(seen, [undefined, id]);
  }
});

test("exits: storage keys are the thread's, values are JSON whose names are the JS strings", async () => {
  const calls = [];
  const items = new Map();
  const storage = {
    getItem: (key) => (calls.push(["get", key]), items.get(key) ?? null),
    setItem: (key, value) => (calls.push(["set", key, value]), items.set(key, value)),
  };
  const rt = new ChatRuntime({ runUrl: "http://x/{threadId}", toolsUrl: null, storage, fetch: () => assert.fail("fetch") });
  try {
    rt.registerTool({ name: "t", description: "d", handler: () => "x" });
    // Names saved by another writer, which the toggles keep as they are.
    const names = [...LONE, ...WELL_FORMED];
    const ids = WELL_FORMED.map((s) => s.replaceAll("\u{10FFFF}", "")).filter((s) => s !== "");
    for (const id of ids) {
      items.set(`chat:tools:${id}`, JSON.stringify(Object.fromEntries(names.map((n) => [n, true]))));
      calls.length = 0;
      rt.setToolEnabled(id, "t", true);
      const keys = new Set([`chat:tools:${id}`, "chat:tools:default"]);
      assert.ok(calls.every(([, key]) => keys.has(key)), JSON.stringify(calls));
      const sets = calls.filter(([op]) => op === "set");
      assert.deepStrictEqual(sets.map(([, key]) => key), [`chat:tools:${id}`]);
      assert.deepStrictEqual(JSON.parse(sets[0][2]), { ...Object.fromEntries(names.map((n) => [n, true])), t: true });
    }
    // A thread id no thread can have reaches no storage.
    for (const id of [...LONE, ...WELL_FORMED.filter((s) => s.includes("\u{10FFFF}"))]) {
      calls.length = 0;
      assert.equal(thrown(() => rt.setToolEnabled(id, "t", true)).code, "input/invalid");
      assert.deepStrictEqual(calls, []);
    }
  } finally {
    rt.free();
  }
});

test("exits: ctx, events and the results sent back carry the server's ids and the tool's messages exactly", async () => {
  const ids = [...LONE, ...WELL_FORMED];
  const requests = [];
  const ctxs = [];
  const events = [];
  const fetch = async (url, init) => {
    const input = JSON.parse(init.body);
    requests.push(input);
    const run = requests.length === 1
      ? callsRun(input.threadId, input.runId, ids.map((id, i) => ({ id, name: "t", args: { i } })))
      : textRun(input.threadId, input.runId, ["ok"]);
    return sseResponse(FRAMINGS.lf(encode(run)), 1 << 16);
  };
  const rt = new ChatRuntime({ runUrl: "http://x/{threadId}", toolsUrl: null, storage: null, fetch });
  try {
    rt.registerTool({
      name: "t",
      description: "d",
      parameters: { type: "object", properties: { i: { type: "integer" } } },
      defaultEnabled: true,
      handler: async ({ i }, ctx) => {
        ctxs.push(ctx.toolCallId);
        if (i % 2) throw new Error(`boom ${ids[i]}`);
        return ids[i];
      },
    });
    rt.subscribe((event) => events.push(event), { events: ["tool_started", "tool_finished"] });
    const result = await rt.run({ threadId: "t1", messages: [{ id: "u1", role: "user", content: "go" }] });
    assert.equal(result.status, "completed", JSON.stringify(result.error));
  } finally {
    rt.free();
  }
  assert.deepStrictEqual(ctxs.sort(), [...ids].sort());
  assert.deepStrictEqual(events.filter((e) => e.type === "tool_started").map((e) => e.toolCallId).sort(), [...ids].sort());
  const sent = requests[1].messages.filter((m) => m.role === "tool");
  for (const [i, id] of ids.entries()) {
    const message = sent.find((m) => m.toolCallId === id);
    const finished = events.find((e) => e.type === "tool_finished" && e.toolCallId === id);
    assert.ok(message && finished, JSON.stringify(id));
    // A handler's thrown message crosses exactly, lone surrogates included.
    if (i % 2) assert.ok(message.content.includes(`boom ${id}`), JSON.stringify([message.content, id]));
    else assert.equal(message.content, id);
  }
});

test("exits: thrown errors carry tool names, interrupt ids, pointers and URLs as the JS strings", async () => {
  const rt = new ChatRuntime({ runUrl: "http://x/{threadId}", toolsUrl: null, storage: null, fetch: () => assert.fail("fetch") });
  try {
    for (const s of [...LONE, ...WELL_FORMED]) {
      const bad = thrown(() => rt.registerTool({ name: s, description: "d", handler: () => "x" }));
      assert.deepStrictEqual([bad.code, bad.toolName], ["tool/bad-name", s]);
      // A backend tool may be named anything: listed, and locked by that exact name.
      rt.setBackendTools([{ name: s, description: "d" }]);
      assert.deepStrictEqual(rt.listTools(null).map((e) => e.name), [s]);
      const locked = thrown(() => rt.setToolEnabled(null, s, false));
      assert.deepStrictEqual([locked.code, locked.toolName], ["tools/locked", s]);
      assert.equal(rt.unregisterTool(s), false);
      // A resume that answers the interrupt `s` twice.
      const twice = await rt
        .run({ threadId: "t1", resume: [{ interruptId: s, status: "resolved" }, { interruptId: s, status: "resolved" }] })
        .then(() => assert.fail("resolved"), (e) => e);
      assert.deepStrictEqual([twice.name, twice.code, twice.interruptId], ["ChatRuntimeError", "input/invalid", s]);
    }
  } finally {
    rt.free();
  }
  // A relative toolsUrl without a page: the message quotes it as the app wrote it.
  for (const s of [...LONE, ...WELL_FORMED]) {
    const rt = new ChatRuntime({ runUrl: "http://x/{threadId}", toolsUrl: s, storage: null, fetch: () => assert.fail("fetch") });
    try {
      const error = await rt.loadTools().then(() => assert.fail("resolved"), (e) => e);
      assert.deepStrictEqual([error.name, error.code, error.message], ["ChatRuntimeError", "options/invalid", `\`${s}\` is not a URL (relative URLs need a page)`]);
    } finally {
      rt.free();
    }
  }
});

test("exits: a resume payload off its schema names the property by its JSON pointer, as the JS string", async () => {
  for (const s of [...LONE, ...WELL_FORMED]) {
    let runs = 0;
    const fetch = async (url, init) => {
      const input = JSON.parse(init.body);
      runs++;
      const schema = { type: "object", properties: { [s]: { type: "string" } } };
      return sseResponse(FRAMINGS.lf(encode([
        { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId },
        { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId, outcome: { type: "interrupt", interrupts: [{ id: s, reason: "r", responseSchema: schema }] } },
      ])), 1 << 16);
    };
    const rt = new ChatRuntime({ runUrl: "http://x/{threadId}", toolsUrl: null, storage: null, fetch });
    try {
      const first = await rt.run({ threadId: "t1", messages: [{ id: "u1", role: "user", content: "go" }] });
      assert.equal(first.status, "interrupted", JSON.stringify(first.error));
      assert.deepStrictEqual(rt.interrupts("t1").map((i) => i.id), [s]);
      const error = await rt
        .run({ threadId: "t1", resume: [{ interruptId: s, status: "resolved", payload: { [s]: 1 } }] })
        .then(() => assert.fail("resolved"), (e) => e);
      assert.deepStrictEqual([error.code, error.interruptId, error.field], ["input/invalid", s, `/${s}`]);
      assert.equal(runs, 1);
    } finally {
      rt.free();
    }
  }
});
