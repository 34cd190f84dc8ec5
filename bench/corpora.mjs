// Deterministic, recorded-style AG-UI streams for the browser benchmark (`make bench`), modelled on
// the native corpora of benches/throughput.rs. Runs in the page and in Node (no imports).
//
// Each corpus is a *pattern* (one message, one tool call, one state episode, one mixed step)
// repeated until the body reaches the target size; the entity open at that point is closed
// properly, so every stream is a valid AG-UI 1.0 run: RUN_STARTED ... RUN_FINISHED.
// Tool calls always get a TOOL_CALL_RESULT (backend-style), so no client restarts the run.

export const THREAD_ID = "bench-thread";
export const RUN_ID = "bench-run";
export const MB = 1_000_000; // sizes and MB/s use decimal megabytes

export const CORPORA = {
  // 50,000 text deltas per assistant message (about 4 MB): a 1 MB stream holds a cut-short message.
  token: {
    describe: "assistant messages of 50,000 text deltas each (`tok<i> `), repeated",
    *units() {
      for (let k = 0; ; k++) {
        const id = `m${k}`;
        yield {
          open: [{ type: "TEXT_MESSAGE_START", messageId: id, role: "assistant" }],
          body: (i) => (i < 50_000 ? { type: "TEXT_MESSAGE_CONTENT", messageId: id, delta: `tok${i} ` } : null),
          close: [{ type: "TEXT_MESSAGE_END", messageId: id }],
        };
      }
    },
  },
  // 1 MiB of tool arguments (`{"text":"xxx..."}`) in 10,000 deltas per call, then its result.
  args: {
    describe: "tool calls with 1 MiB of arguments in 10,000 deltas of 105 chars each, each answered by a TOOL_CALL_RESULT",
    *units() {
      const piece = "x".repeat(105);
      for (let k = 0; ; k++) {
        const id = `c${k}`;
        yield {
          open: [
            { type: "TOOL_CALL_START", toolCallId: id, toolCallName: "write_file", parentMessageId: `m${k}` },
            { type: "TOOL_CALL_ARGS", toolCallId: id, delta: '{"text":"' },
          ],
          body: (i) => (i < 10_000 ? { type: "TOOL_CALL_ARGS", toolCallId: id, delta: piece } : null),
          close: [
            { type: "TOOL_CALL_ARGS", toolCallId: id, delta: '"}' },
            { type: "TOOL_CALL_END", toolCallId: id },
            { type: "TOOL_CALL_RESULT", messageId: `r${k}`, toolCallId: id, content: `wrote file ${k}`, role: "tool" },
          ],
        };
      }
    },
  },
  // A STATE_SNAPSHOT, then 4,000 JSON Patch deltas on a growing state (a list that gains about
  // 7 items per 16 ops, so about 1,750 items at the end of the episode); the next episode
  // starts over with a new snapshot.
  state: {
    describe: "episodes of a STATE_SNAPSHOT + 4,000 STATE_DELTA ops on a growing state (items list up to ~1,750 entries)",
    *units() {
      for (let k = 0; ; k++) {
        yield {
          open: [{ type: "STATE_SNAPSHOT", snapshot: { episode: k, progress: 0, items: [], status: "start" } }],
          body: (i) => {
            if (i >= 4_000) return null;
            let op;
            switch (i % 4) {
              case 0: op = { op: "replace", path: "/progress", value: i }; break;
              case 1: op = { op: "add", path: "/items/-", value: { id: i, label: `item ${i}` } }; break;
              case 2: op = { op: "replace", path: "/status", value: `working ${i}` }; break;
              default:
                op = i % 16 === 15
                  ? { op: "remove", path: "/items/0" }
                  : { op: "add", path: "/items/-", value: { id: i, label: `item ${i}`, done: false } };
            }
            return { type: "STATE_DELTA", delta: [op] };
          },
          close: [],
        };
      }
    },
  },
  // Interleaved steps, text, tool calls with results and state: the native `mixed` step.
  mixed: {
    describe: "steps of text (10 deltas), a tool call with its result and a state delta, interleaved",
    *units() {
      yield { open: [{ type: "STATE_SNAPSHOT", snapshot: { n: 0 } }], body: () => null, close: [] };
      for (let i = 0; ; i++) {
        const events = [
          { type: "STEP_STARTED", stepName: `s${i}` },
          { type: "TEXT_MESSAGE_START", messageId: `m${i}`, role: "assistant" },
          ...Array.from({ length: 10 }, (_, j) => ({ type: "TEXT_MESSAGE_CONTENT", messageId: `m${i}`, delta: `word${j} ` })),
          { type: "TEXT_MESSAGE_END", messageId: `m${i}` },
          { type: "TOOL_CALL_START", toolCallId: `c${i}`, toolCallName: "search", parentMessageId: `m${i}` },
          { type: "TOOL_CALL_ARGS", toolCallId: `c${i}`, delta: `{"query":"item ${i}"}` },
          { type: "TOOL_CALL_END", toolCallId: `c${i}` },
          { type: "TOOL_CALL_RESULT", messageId: `r${i}`, toolCallId: `c${i}`, content: `result ${i}`, role: "tool" },
          { type: "STATE_DELTA", delta: [{ op: "replace", path: "/n", value: i }] },
          { type: "STEP_FINISHED", stepName: `s${i}` },
        ];
        yield { open: events, body: () => null, close: [] };
      }
    },
  },
};

/** `{ text, events }`: the corpus's SSE body of at least `bytes` bytes (ASCII, so chars = bytes). */
export function generate(name, bytes) {
  const corpus = CORPORA[name];
  if (!corpus) throw new Error(`unknown corpus ${name}`);
  const parts = [];
  let size = 0;
  let events = 0;
  const push = (event) => {
    const frame = `data: ${JSON.stringify(event)}\n\n`;
    parts.push(frame);
    size += frame.length;
    events++;
  };
  const closing = [{ type: "RUN_FINISHED", threadId: THREAD_ID, runId: RUN_ID }];
  const closingBytes = closing.reduce((n, e) => n + JSON.stringify(e).length + 8, 0);
  push({ type: "RUN_STARTED", threadId: THREAD_ID, runId: RUN_ID });
  for (const unit of corpus.units()) {
    unit.open.forEach(push);
    for (let i = 0; size + closingBytes < bytes; i++) {
      const event = unit.body(i);
      if (!event) break;
      push(event);
    }
    unit.close.forEach(push);
    if (size + closingBytes >= bytes) break;
  }
  closing.forEach(push);
  return { text: parts.join(""), events };
}

/** Deterministic pseudo-random chunk sizes of 1-16 KiB (xorshift32, fixed seed). */
export function chunkSizes(total, seed = 0x9e3779b9) {
  let x = seed >>> 0;
  const sizes = [];
  for (let at = 0; at < total; ) {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    const size = Math.min(1024 + (x % (15 * 1024 + 1)), total - at);
    sizes.push(size);
    at += size;
  }
  return sizes;
}
