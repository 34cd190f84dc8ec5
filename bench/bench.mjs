// The benchmark page's code (bench/index.html), driven by bench/run.mjs through Playwright.
// Nothing heavy is imported at load, so a fresh page can also measure start-up.
//
//   A     = chat-runtime's ChatRuntime (/pkg/chat_runtime.js), subscribe(fn, { events: ["messages"] })
//   AR    = the same, subscribed as the README's first example: subscribe((event) => ...), no options
//   B     = @ag-ui/client 1.0.0 HttpAgent (bundled by esbuild into /dist/agui.js)
//   floor = TextDecoder (stream mode) + split on "\n\n" + JSON.parse of each `data:` line
import { generate, chunkSizes, THREAD_ID, RUN_ID } from "./corpora.mjs";

const USER = { id: "u1", role: "user", content: "Go." };
const SSE = { "content-type": "text/event-stream" };
const corpora = new Map();
let A = null; // { mod, wasm }
let B = null; // the @ag-ui/client module

export async function loadA() {
  if (!A) {
    const mod = await import("/pkg/chat_runtime.js");
    const wasm = await mod.default();
    A = { mod, wasm };
  }
  return A;
}
async function loadB() {
  if (!B) B = await import("/dist/agui.js");
  return B;
}

/** Yields to the event loop (a macrotask, no timer clamping), as a network read would. */
const channel = new MessageChannel();
const waiting = [];
channel.port1.onmessage = () => waiting.shift()();
const macrotask = () => new Promise((resolve) => { waiting.push(resolve); channel.port2.postMessage(0); });

let memory = null; // { peakHeap } while sampling
function sampleMemory() {
  if (memory && performance.memory) memory.peakHeap = Math.max(memory.peakHeap, performance.memory.usedJSHeapSize);
}

/** A fresh ReadableStream over the corpus's pre-cut chunks: one chunk per macrotask. */
export function stream(chunks) {
  let i = 0;
  return new ReadableStream({
    async pull(controller) {
      await macrotask();
      sampleMemory();
      if (i < chunks.length) controller.enqueue(chunks[i++]);
      else controller.close();
    },
  }, { highWaterMark: 0 });
}

/** Generates the corpus (once per page) and cuts it into 1-16 KiB Uint8Array chunks. */
export function prepare(name, mb) {
  const key = `${name}/${mb}`;
  if (!corpora.has(key)) {
    const { text, events } = generate(name, mb * 1_000_000);
    const bytes = new TextEncoder().encode(text);
    const chunks = [];
    let at = 0;
    for (const size of chunkSizes(bytes.length)) {
      chunks.push(bytes.slice(at, at + size));
      at += size;
    }
    corpora.set(key, { bytes: bytes.length, events, chunks, whole: bytes });
  }
  return corpora.get(key);
}

/**
 * One run of ChatRuntime on the corpus. `readme` false is A, the tuned subscriber
 * (`{ events: ["messages"] }`); true is AR, the README's first example verbatim: a listener
 * with no options, which gets every event type but `agui` (opt-in).
 */
async function runChatRuntime(corpus, readme) {
  const { mod } = await loadA();
  const runtime = new mod.ChatRuntime({
    runUrl: "/bench/{threadId}/runs",
    toolsUrl: null,
    storage: null,
    fetch: async () => new Response(stream(corpus.chunks), { headers: SSE }),
  });
  let updates = 0;
  let spinners = 0;
  const calls = {}; // listener calls by event type (AR)
  const render = (threadId, messages) => { updates += messages.length > 0 ? 1 : 0; };
  const showSpinner = () => { spinners++; };
  const unsubscribe = readme
    // The README's "Frontend tools in five minutes": subscribe((event) => { ... }), no options.
    ? runtime.subscribe((event) => {
      calls[event.type] = (calls[event.type] ?? 0) + 1;
      if (event.type === "messages") render(event.threadId, event.messages);
      if (event.type === "tool_started") showSpinner(event.toolCallId, event.toolName, event.args);
    })
    // What a UI that renders from messages would have: a `messages` subscriber only.
    : runtime.subscribe(
      (event) => {
        if (event.type === "messages") render(event.threadId, event.messages);
      },
      { events: ["messages"] },
    );
  const t0 = performance.now();
  const result = await runtime.run({ threadId: THREAD_ID, messages: [USER] });
  const ms = performance.now() - t0;
  unsubscribe();
  runtime.free();
  const label = readme ? "AR" : "A";
  if (result.status !== "completed") throw new Error(`${label}: ${result.status} ${JSON.stringify(result.error)}`);
  return { ms, updates, spinners, calls, messages: result.messages, state: result.state };
}
const runA = (corpus) => runChatRuntime(corpus, false);
const runAR = (corpus) => runChatRuntime(corpus, true);

async function runB(corpus, limitMs = Infinity) {
  const { HttpAgent } = await loadB();
  const agent = new HttpAgent({
    url: "/bench/runs",
    threadId: THREAD_ID,
    initialMessages: [USER],
    fetch: async () => new Response(stream(corpus.chunks), { headers: SSE }),
  });
  let updates = 0;
  // The same UI-like subscriber: counts message updates.
  agent.subscribe({ onMessagesChanged: () => { updates++; } });
  // A run longer than `limitMs` is aborted (abortRun) and reported as a lower bound.
  // (abortRun alone does not stop it: the events already read keep being applied, so the
  // driver also closes the page after an aborted run.)
  let aborted = false;
  let timer = null;
  const limit = new Promise((resolve) => {
    if (Number.isFinite(limitMs)) timer = setTimeout(() => { aborted = true; agent.abortRun(); resolve(); }, limitMs);
  });
  const t0 = performance.now();
  const done = agent.runAgent({ runId: RUN_ID }).catch((error) => { if (!aborted) throw error; });
  await Promise.race([done, limit]);
  const ms = performance.now() - t0;
  clearTimeout(timer);
  return { ms, aborted, updates, messages: agent.messages, state: agent.state };
}

async function runFloor(corpus) {
  const t0 = performance.now();
  const reader = stream(corpus.chunks).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let events = 0;
  for (;;) {
    const { done, value } = await reader.read();
    buffer += decoder.decode(value, { stream: !done });
    const frames = buffer.split("\n\n");
    buffer = done ? "" : frames.pop();
    for (const frame of frames) {
      for (const line of frame.split("\n")) {
        if (line.startsWith("data:")) {
          JSON.parse(line.slice(5));
          events++;
        }
      }
    }
    if (done) break;
  }
  return { ms: performance.now() - t0, events };
}

// ---- result comparison ----------------------------------------------------------------------

/** JSON with sorted keys and without `undefined`: key order is not a difference. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value).sort().filter((k) => value[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/** Where two JSON values first differ: `path: a vs b` (values cut short). */
function firstDifference(a, b, path = "", names = ["A", "B"]) {
  const short = (v) => { const s = canonical(v); return s.length > 120 ? `${s.slice(0, 120)}…(${s.length} chars)` : s; };
  if (canonical(a) === canonical(b)) return null;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${path || "/"}: length ${a.length} vs ${b.length}`;
    for (let i = 0; i < a.length; i++) { const d = firstDifference(a[i], b[i], `${path}/${i}`, names); if (d) return d; }
  }
  if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)].filter((k) => a[k] !== undefined || b[k] !== undefined));
    for (const k of keys) { const d = firstDifference(a[k], b[k], `${path}/${k}`, names); if (d) return d; }
  }
  return `${path || "/"}: ${names[0]} ${short(a)} vs ${names[1]} ${short(b)}`;
}

function compare(a, b, names = ["A", "B"]) {
  const messages = firstDifference(a.messages, b.messages, "messages", names);
  const state = firstDifference(a.state ?? {}, b.state ?? {}, "state", names);
  return { equal: !messages && !state, messages, state, countA: a.messages.length, countB: b.messages.length };
}

// ---- what the driver calls ------------------------------------------------------------------

const gc = () => { if (typeof globalThis.gc === "function") globalThis.gc(); };

export async function info(name, mb) {
  await loadA();
  await loadB();
  const c = prepare(name, mb);
  return { bytes: c.bytes, events: c.events, chunks: c.chunks.length };
}

/** One timed run of `system` on the corpus. */
export async function measure(system, name, mb, limitMs = Infinity) {
  const corpus = prepare(name, mb);
  gc();
  const run = { A: runA, AR: runAR, B: runB, floor: runFloor }[system];
  const result = await run(corpus, limitMs);
  return { ms: result.ms, aborted: result.aborted ?? false, updates: result.updates, calls: result.calls };
}

/** Runs A and AR once each and compares their final messages and state. */
export async function checkReadme(name, mb) {
  const corpus = prepare(name, mb);
  gc();
  const a = await runA(corpus);
  gc();
  const ar = await runAR(corpus);
  return { ...compare(a, ar, ["A", "AR"]), msA: a.ms, msAR: ar.ms, calls: ar.calls, spinners: ar.spinners };
}

/** Runs A and B once each and compares their final messages and state; B's time is returned too. */
export async function check(name, mb) {
  const corpus = prepare(name, mb);
  gc();
  const a = await runA(corpus);
  gc();
  const b = await runB(corpus);
  return { ...compare(a, b), msA: a.ms, msB: b.ms };
}

/** Peak JS heap during one run of A (after a GC), and the wasm memory size after it. */
export async function memoryOf(system, name, mb) {
  const corpus = prepare(name, mb);
  gc();
  const before = performance.memory?.usedJSHeapSize ?? null;
  memory = { peakHeap: before ?? 0 };
  const wasmBefore = system === "A" ? (await loadA()).wasm.memory.buffer.byteLength : null;
  const run = { A: runA, B: runB }[system];
  const result = await run(corpus);
  sampleMemory();
  const peak = memory.peakHeap;
  memory = null;
  return {
    ms: result.ms,
    heapBefore: before,
    heapPeak: before === null ? null : peak,
    wasmBefore,
    wasmAfter: system === "A" ? A.wasm.memory.buffer.byteLength : null,
  };
}

// ---- wasm memory (bench/memory.mjs): one line per fresh page --------------------------------

const utf8Length = (text) => new TextEncoder().encode(text).length;
const wasmBytes = () => A.wasm.memory.buffer.byteLength;

/**
 * The most a thread held at once, as JSON, seen through the `messages` and `state` events: the
 * listener keeps the messages the events name (in JavaScript, not in the wasm heap) and the last
 * state, and measures the two together whenever the state's JSON is longer than it ever was
 * (rare: the state corpus's episodes grow to ~1,750 items, then a snapshot resets them). The
 * messages of these runs only grow, so `largest()` (the larger of those samples and the end)
 * is a lower bound of the true most, and the ratios over it are not flattered.
 */
function heldTracker() {
  const messages = new Map();
  let state = {};
  let longestState = 2;
  let most = 0;
  const measure = () => utf8Length(JSON.stringify({ messages: [...messages.values()], state }));
  return {
    listener(event) {
      if (event.type === "messages") {
        if (event.replace) messages.clear();
        for (const m of event.messages) messages.set(m.id, m);
      } else if (event.type === "state") {
        state = event.state;
        const length = JSON.stringify(state).length;
        if (length > longestState) {
          longestState = length;
          most = Math.max(most, measure());
        }
      }
    },
    largest: (final) => Math.max(most, final),
  };
}

/**
 * The wasm memory of one run of A on the corpus (wasm memory never shrinks: the size after the
 * run is its peak), delivered as the 1-16 KiB chunks of section 1 (`chunked`) or as one
 * `Response` body (`whole`: a buffering proxy, a cache), the thread it leaves as JSON (`final`)
 * and the most it held at once (`thread`, [`heldTracker`]).
 */
export async function wasmOfRun(name, mb, delivery) {
  const corpus = prepare(name, mb);
  const { mod } = await loadA();
  gc();
  const before = wasmBytes();
  const runtime = new mod.ChatRuntime({
    runUrl: "/bench/{threadId}/runs",
    toolsUrl: null,
    storage: null,
    fetch: async () => new Response(delivery === "whole" ? corpus.whole : stream(corpus.chunks), { headers: SSE }),
  });
  const held = heldTracker();
  const unsubscribe = runtime.subscribe(held.listener, { events: ["messages", "state"] });
  const result = await runtime.run({ threadId: THREAD_ID, messages: [USER] });
  const after = wasmBytes();
  const final = utf8Length(JSON.stringify({ messages: result.messages, state: result.state }));
  unsubscribe();
  runtime.free();
  if (result.status !== "completed") throw new Error(`memory: ${result.status} ${JSON.stringify(result.error)}`);
  return { before, after, thread: held.largest(final), final };
}

/**
 * The wasm memory of `threads` threads of `turns` turns each: a user message and an answer of
 * `chars` chars each, one run per turn (a small body, as one chunk), and the threads as JSON.
 * With `forget`, each thread is dropped (`forgetThread`) after its turns, "the threads as JSON"
 * is the largest one thread held, and `early` is the wasm memory after the first 20 threads:
 * what the later threads add to it is memory the forgotten ones did not give back for reuse.
 * With `readme`, subscribed as the README's first example. With `marks`, `marked` is the wasm
 * memory every `marks` turns (to see where a long chat grows).
 */
export async function wasmOfTurns(threads, turns, chars, forget = false, readme = false, history = undefined, marks = 0) {
  const marked = [];
  const { mod } = await loadA();
  gc();
  const before = wasmBytes();
  const say = (n) => `${"lorem ipsum dolor sit amet ".repeat(Math.ceil(chars / 27))}`.slice(0, chars - String(n).length) + n;
  let turn = 0;
  const runtime = new mod.ChatRuntime({
    runUrl: "/bench/{threadId}/runs",
    toolsUrl: null,
    storage: null,
    ...(history ? { history } : {}),
    fetch: async (url, init) => {
      // The ids lead the body: read them there, not by parsing a long thread's whole body.
      const head = init.body.slice(0, 512);
      const ids = /"threadId":"([^"]*)","runId":"([^"]*)"/.exec(head);
      const { threadId, runId } = ids ? { threadId: ids[1], runId: ids[2] } : JSON.parse(init.body);
      const id = `a${turn}`;
      const events = [
        { type: "RUN_STARTED", threadId, runId },
        { type: "TEXT_MESSAGE_START", messageId: id, role: "assistant" },
        { type: "TEXT_MESSAGE_CONTENT", messageId: id, delta: say(turn) },
        { type: "TEXT_MESSAGE_END", messageId: id },
        { type: "RUN_FINISHED", threadId, runId },
      ];
      return new Response(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(""), { headers: SSE });
    },
  });
  // `readme`: subscribed as the README's first example (every event, no options).
  const unsubscribe = readme ? runtime.subscribe(() => {}) : runtime.subscribe(() => {}, { events: ["messages"] });
  let largest = 0;
  let early = null;
  for (let t = 0; t < threads; t++) {
    for (let k = 0; k < turns; k++, turn++) {
      const result = await runtime.run({ threadId: `t${t}`, messages: [{ id: `u${turn}`, role: "user", content: say(turn) }] });
      if (result.status !== "completed") throw new Error(`memory: ${result.status} ${JSON.stringify(result.error)}`);
      if (marks && (turn + 1) % marks === 0) marked.push(wasmBytes());
    }
    if (forget) {
      largest = Math.max(largest, utf8Length(JSON.stringify(runtime.messages(`t${t}`))));
      if (!runtime.forgetThread(`t${t}`)) throw new Error(`memory: t${t} was not forgotten`);
    }
    if (t === 19) early = wasmBytes();
  }
  const after = wasmBytes();
  let thread = largest;
  for (let t = 0; t < threads; t++) thread += utf8Length(JSON.stringify(runtime.messages(`t${t}`)));
  unsubscribe();
  runtime.free();
  return { before, after, thread, early, ...(marks ? { marked } : {}) };
}

// ---- loop overhead: a 10-round tool conversation against the scripted agent -----------------

const PING = { name: "ping", description: "Answers at once.", parameters: { type: "object", properties: {} } };

function conversation(rounds) {
  const responses = [];
  for (let k = 0; k < rounds; k++) {
    responses.push({ events: [
      { type: "RUN_STARTED", threadId: "x", runId: `run-${k}` },
      { type: "TOOL_CALL_START", toolCallId: `call-${k}`, toolCallName: "ping", parentMessageId: `msg-${k}` },
      { type: "TOOL_CALL_ARGS", toolCallId: `call-${k}`, delta: "{}" },
      { type: "TOOL_CALL_END", toolCallId: `call-${k}` },
      { type: "RUN_FINISHED", threadId: "x", runId: `run-${k}`, outcome: { type: "success", pendingToolCallIds: [`call-${k}`] } },
    ] });
  }
  responses.push({ events: [
    { type: "RUN_STARTED", threadId: "x", runId: "run-final" },
    { type: "TEXT_MESSAGE_START", messageId: "msg-final", role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "msg-final", delta: "All done." },
    { type: "TEXT_MESSAGE_END", messageId: "msg-final" },
    { type: "RUN_FINISHED", threadId: "x", runId: "run-final" },
  ] });
  return responses;
}

let threadCounter = 0;
async function script(rounds) {
  const threadId = `loop-${Date.now()}-${threadCounter++}`;
  const response = await fetch("/test/script", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ threadId, responses: conversation(rounds) }),
  });
  if (!response.ok) throw new Error(`script: ${response.status}`);
  return threadId;
}

/**
 * A `fetch` that reads each response to its last byte before handing it over (as a buffered
 * `Response`) and adds up that time: the server's and the network's share of a round, measured
 * in the same run as the client's.
 */
function timedFetch() {
  const io = { ms: 0 };
  const f = async (url, init) => {
    const t0 = performance.now();
    const response = await fetch(url, init);
    const body = await response.arrayBuffer();
    io.ms += performance.now() - t0;
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { f, io };
}

async function loopA(threadId) {
  const { mod } = await loadA();
  const { f, io } = timedFetch();
  const runtime = new mod.ChatRuntime({ runUrl: "/api/threads/{threadId}/runs", toolsUrl: null, storage: null, maxRounds: 20, fetch: f });
  runtime.registerTool({ ...PING, handler: () => "pong" });
  const unsubscribe = runtime.subscribe(() => {});
  const t0 = performance.now();
  const result = await runtime.run({ threadId, messages: [USER] });
  const ms = performance.now() - t0;
  unsubscribe();
  runtime.free();
  if (result.status !== "completed") throw new Error(`loop A: ${result.status} ${JSON.stringify(result.error)}`);
  return { ms, io: io.ms, requests: result.rounds, messages: result.messages.length };
}

async function loopB(threadId) {
  const { HttpAgent } = await loadB();
  const { f, io } = timedFetch();
  const agent = new HttpAgent({ url: `/api/threads/${threadId}/runs`, threadId, initialMessages: [USER], fetch: f });
  agent.subscribe({ onMessagesChanged: () => {} });
  const tools = { ping: () => "pong" };
  let requests = 0;
  let seq = 0;
  const t0 = performance.now();
  for (;;) {
    await agent.runAgent({ tools: [PING] });
    requests++;
    // The calls with no tool message yet.
    const answered = new Set(agent.messages.filter((m) => m.role === "tool").map((m) => m.toolCallId));
    const pending = agent.messages.flatMap((m) => (m.role === "assistant" ? m.toolCalls ?? [] : []))
      .filter((call) => !answered.has(call.id));
    if (pending.length === 0) break;
    for (const call of pending) {
      const result = await tools[call.function.name](JSON.parse(call.function.arguments || "{}"));
      agent.addMessage({ id: `tool-${seq++}`, role: "tool", toolCallId: call.id, content: String(result) });
    }
  }
  const ms = performance.now() - t0;
  return { ms, io: io.ms, requests, messages: agent.messages.length };
}

/** The same 11 requests with plain fetch + reading the body: the server's and the network's time. */
async function loopRaw(threadId, rounds) {
  const t0 = performance.now();
  for (let k = 0; k <= rounds; k++) {
    const response = await fetch(`/api/threads/${threadId}/runs`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ threadId, runId: `raw-${k}`, messages: [USER], tools: [], context: [] }),
    });
    await response.text();
  }
  const ms = performance.now() - t0;
  return { ms, io: ms, requests: rounds + 1 };
}

export async function loop(system, rounds = 10) {
  await loadA();
  await loadB();
  const threadId = await script(rounds);
  gc();
  const run = { A: loopA, B: loopB, raw: (t) => loopRaw(t, rounds) }[system];
  return run(threadId);
}

// ---- start-up (on a fresh page) -------------------------------------------------------------

export async function startup(system) {
  if (system === "A") {
    const t0 = performance.now();
    const mod = await import("/pkg/chat_runtime.js");
    const t1 = performance.now();
    await mod.default();
    new mod.ChatRuntime({ runUrl: "/x", toolsUrl: null, storage: null });
    const t2 = performance.now();
    return { total: t2 - t0, initToRuntime: t2 - t1 };
  }
  const t0 = performance.now();
  const { HttpAgent } = await import("/dist/agui.js");
  new HttpAgent({ url: "/x" });
  return { total: performance.now() - t0 };
}

// ---- the pattern budget: the worst legal patterns against long texts --------------------------

/**
 * Milliseconds of one turn of A whose one tool call carries `{ text }` of `chars` `a`s against a
 * tool schema with `pattern` (`kind: "tool"`), or of a `run` whose interrupt answer of `chars` `a`s
 * is checked against a `responseSchema` with `pattern` and refused or sent (`kind: "interrupt"`).
 * The median of `reps`, and what the call or the run said.
 */
export async function patternTime(kind, pattern, chars, reps = 5) {
  const { mod } = await loadA();
  const text = "a".repeat(chars);
  const times = [];
  let said = "";
  for (let r = 0; r < reps; r++) {
    const threadId = `p${r}`;
    let round = 0;
    const sse = (events) => new Response(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(""), { headers: SSE });
    const runtime = new mod.ChatRuntime({
      runUrl: "/bench/{threadId}/runs",
      toolsUrl: null,
      storage: null,
      fetch: async (url, init) => {
        const { runId } = JSON.parse(init.body);
        const start = { type: "RUN_STARTED", threadId, runId };
        round++;
        if (kind === "tool" && round === 1) {
          return sse([start,
            { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "shout", parentMessageId: "a1" },
            { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: JSON.stringify({ text }) },
            { type: "TOOL_CALL_END", toolCallId: "c1" },
            { type: "RUN_FINISHED", threadId, runId }]);
        }
        if (kind === "interrupt" && round === 1) {
          const responseSchema = { type: "object", properties: { answer: { type: "string", pattern } } };
          return sse([start, { type: "RUN_FINISHED", threadId, runId, outcome: { type: "interrupt", interrupts: [{ id: "i1", reason: "input", responseSchema }] } }]);
        }
        return sse([start, { type: "RUN_FINISHED", threadId, runId }]);
      },
    });
    if (kind === "tool") {
      runtime.registerTool({
        name: "shout",
        description: "Shouts.",
        parameters: { type: "object", properties: { text: { type: "string", pattern } } },
        handler: () => "SHOUTED",
      });
      runtime.setToolEnabled(threadId, "shout", true);
      const t0 = performance.now();
      const result = await runtime.run({ threadId, messages: [USER] });
      times.push(performance.now() - t0);
      said = result.messages.find((m) => m.role === "tool")?.content.split("\n").slice(0, 2).join(" ") ?? result.status;
    } else {
      await runtime.run({ threadId, messages: [USER] });
      const t0 = performance.now();
      said = await runtime.run({ threadId, messages: [], resume: [{ interruptId: "i1", status: "resolved", payload: { answer: text } }] })
        .then((result) => result.status, (error) => `${error.code}: ${error.message}`);
      times.push(performance.now() - t0);
    }
    runtime.free();
  }
  return { ms: median(times), said };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
