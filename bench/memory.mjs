// The wasm heap against what the threads hold: section 5 of bench/RESULTS.md. `make bench` runs it
// (bench/run.mjs imports it); `node bench/memory.mjs` or `BENCH_ONLY=memory node bench/run.mjs`
// runs it alone (after `make build`) and rewrites only that section. A report, not a test: nothing here fails on a size.
//
// One fresh page per line, since wasm memory never shrinks: its size after the run is the run's
// peak. Environment: BENCH_MEMORY_MB (the corpora's size, default 20), BENCH_CORPORA (default
// "token,args,state,mixed").
import { fileURLToPath } from "node:url";

import { launchChromium, startBenchAgent, writeSection } from "./support.mjs";

const env = (name, fallback) => process.env[name] ?? fallback;
const MiB = (x) => (x / 2 ** 20).toFixed(1);
const MB = (x) => (x / 1e6).toFixed(2);
const KiB = (x) => String(x / 1024);
/** (peak − the fresh module) in MB over the thread(s) as JSON in MB: the measure. */
const grown = (r) => ((r.after - r.before) / r.thread).toFixed(1);

/** The lines of the table: `[label, page function, ...arguments]`. */
export function memoryLines() {
  const mb = Number(env("BENCH_MEMORY_MB", 20));
  const names = env("BENCH_CORPORA", "token,args,state,mixed").split(",");
  const lines = [];
  for (const name of names) {
    lines.push({ what: `${name} ${mb} MB, delivered in 1-16 KiB chunks`, name, delivery: "chunked", fn: "wasmOfRun", args: [name, mb, "chunked"] });
    lines.push({ what: `${name} ${mb} MB, the same bytes as one \`Response\` body`, name, delivery: "whole", fn: "wasmOfRun", args: [name, mb, "whole"] });
  }
  // The state corpus's thread is its state, ~0.06 MB at any length: its 1 MB run is the control
  // that tells a fixed cost (the same at 1 MB) from one that grows with the stream.
  if (names.includes("state") && mb > 1) {
    lines.push({ what: "state 1 MB, delivered in 1-16 KiB chunks (the state lines' control)", name: "state", delivery: "control", fn: "wasmOfRun", args: ["state", 1, "chunked"] });
  }
  lines.push({ what: "2,000 turns in one thread (200-char messages)", fn: "wasmOfTurns", args: [1, 2000, 200] });
  lines.push({ what: "2,000 turns in one thread, default options (`subscribe(fn)`, `history: \"full\"`)", fn: "wasmOfTurns", args: [1, 2000, 200, false, true] });
  lines.push({ what: "10,000 turns in one thread, default options", fn: "wasmOfTurns", args: [1, 10000, 200, false, true] });
  lines.push({ what: "500 threads × 20 turns (200-char messages)", fn: "wasmOfTurns", args: [500, 20, 200] });
  lines.push({ what: "500 threads × 20 turns, each forgotten after its turns", forgotten: true, fn: "wasmOfTurns", args: [500, 20, 200, true] });
  // BENCH_MEMORY_ONLY: a regular expression over the lines' `what` (e.g. "turns").
  const only = process.env.BENCH_MEMORY_ONLY ? new RegExp(process.env.BENCH_MEMORY_ONLY) : null;
  return only ? lines.filter((l) => only.test(l.what)) : lines;
}

/** Measures every line, each on a page of `freshPage()`, through `call(page, fn, ...args)`. */
export async function measureMemory(freshPage, call, log = console.log) {
  const results = [];
  for (const line of memoryLines()) {
    const page = await freshPage();
    const res = await call(page, line.fn, ...line.args);
    await page.close();
    // The same bytes hold the same thread: no frame passes while one body is read, so the
    // listener of the one-body line sees only the end; it takes the chunked line's measure.
    const chunked = results.find((r) => r.name === line.name && r.delivery === "chunked");
    if (line.delivery === "whole" && chunked) res.thread = Math.max(res.thread, chunked.thread);
    results.push({ ...line, ...res });
    const early = res.early ? `, after the first 20 threads ${MiB(res.early)} MiB` : "";
    log(`memory: ${line.what}: wasm ${MiB(res.after)} MiB${early}, thread ${MB(res.thread)} MB, ${(res.after / res.thread).toFixed(1)}×, (peak − fresh) / thread ${grown(res)}×`);
  }
  return results;
}

export { replaceSection } from "./support.mjs";

/** Section 5 of bench/RESULTS.md. */
export function memorySection(results, command) {
  const rows = results.filter((r) => !r.forgotten).map((r) => {
    // A run whose thread held more mid-run than at its end (the state corpus) says both.
    const held = r.final !== undefined && r.thread > r.final * 1.05 ? `${MB(r.thread)} (${MB(r.final)} at the end)` : MB(r.thread);
    return `| ${r.what} | ${MiB(r.before)} | **${MiB(r.after)}** | ${held} | ${(r.after / r.thread).toFixed(1)}× | **${grown(r)}×** |`;
  });
  const forgotten = results.filter((r) => r.forgotten).map((r) => `- ${r.what}: wasm memory ${MiB(r.before)} MiB at start, ` +
    `${MiB(r.early)} MiB after the first 20 threads, **${MiB(r.after)} MiB** after all 500: the first 20 threads grew it ` +
    `by ${KiB(r.early - r.before)} KiB, the later 480 (24 times as many) by **${KiB(r.after - r.early)} KiB** ` +
    `(wasm memory grows by 64 KiB pages; one thread held at most ${MB(r.thread)} MB as JSON).`);
  const ratio = (name, delivery) => results.find((r) => r.name === name && r.delivery === delivery);
  const whole = results.filter((r) => r.delivery === "whole").map((r) => {
    const chunked = ratio(r.name, "chunked");
    return `${r.name} ${(r.after / chunked.after).toFixed(2)}×`;
  });
  return `## 5. Memory

Command: \`${command}\`. The wasm memory (\`memory.buffer.byteLength\` of the module's exports) of
one run of A, each line on a fresh page: wasm memory never shrinks, so its size after the run is
the run's peak (and a long session keeps it). "The thread(s) as JSON" is the most the runtime's
threads held at once, as the UTF-8 length of \`JSON.stringify({ messages, state })\`. For the
corpus lines A subscribes \`subscribe(fn, { events: ["messages", "state"] })\` and the listener
keeps what the events say (in JavaScript): it measures the thread whenever the state is longer
than it ever was, and at the end (a lower bound of the most: it samples once a frame); the
state corpus's state grows to ~1,750 items and each snapshot resets it, so its thread is largest
mid-run (the column says its end too). No frame passes while one body is read: a one-body line
takes its chunked line's measure, the same bytes holding the same thread. For the turn
lines it is \`messages(threadId)\` of every thread at the end (they only grow). The corpora are
section 1's; "one \`Response\` body" hands the same bytes over as \`new Response(bytes)\`, one
chunk, as a buffering proxy or a cache does. The turn lines run one small run per turn (a user
message and a 200-char answer), subscribed \`{ events: ["messages"] }\`; the "default options"
lines subscribe as the README's first example (\`subscribe(fn)\`, every event) with the
constructor's defaults (\`history: "full"\`: each request carries the whole thread).
"(peak − fresh) / thread" is the growth over the fresh module (the wasm memory at start) in bytes
over that JSON: the goal is at most 2×. docs/architecture.md ("Memory") says how the heap is
bounded.

| what | wasm memory at start (MiB) | peak wasm memory (MiB) | the thread(s) as JSON (MB) | peak / thread | (peak − fresh) / thread |
|---|---|---|---|---|---|
${rows.join("\n")}

One body against the chunks (peak / peak): ${whole.join(", ")}.

Forgotten threads (\`forgetThread\` after each thread's turns) measure reuse, not a thread: the
runtime holds one thread at a time, so what counts is whether the memory the forgotten threads
held is used again, the peak after 500 threads against after the first 20 (the goal: the later
threads add next to nothing).

${forgotten.join("\n")}
`;
}

// ---- alone: `node bench/memory.mjs` (or `BENCH_ONLY=memory node bench/run.mjs`) -----------------

/** Measures with an agent and a browser of its own, and rewrites section 5 of bench/RESULTS.md. */
export async function main() {
  const root = fileURLToPath(new URL("../", import.meta.url));
  process.chdir(root);
  // It serves files only: the debug build does as well as the release one.
  const { agent } = await startBenchAgent(["target/release/chat-runtime-agent", "target/debug/chat-runtime-agent"]);
  const url = agent.url;
  const browser = await launchChromium(["--js-flags=--expose-gc"]);
  const context = await browser.newContext();
  const freshPage = async () => {
    const page = await context.newPage();
    page.on("pageerror", (e) => console.log("page error:", e.message));
    await page.goto(`${url}/index.html`);
    await page.waitForFunction(() => window.benchReady === true);
    return page;
  };
  const call = (page, fn, ...args) => page.evaluate(([fn, args]) => window.bench[fn](...args), [fn, args]);
  try {
    const results = await measureMemory(freshPage, call);
    const vars = ["BENCH_MEMORY_MB", "BENCH_CORPORA"].filter((k) => process.env[k]).map((k) => `${k}=${process.env[k]} `).join("");
    const section = memorySection(results, `${vars}node bench/memory.mjs`);
    console.log(section);
    if (!process.env.BENCH_MEMORY_NO_WRITE) writeSection("## 5. Memory", section);
  } finally {
    await browser.close();
    await agent.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
