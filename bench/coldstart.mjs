// Cold start to the first tool result: section 6 of bench/RESULTS.md. `make bench` runs it
// (bench/run.mjs imports it); `node bench/coldstart.mjs` or `BENCH_ONLY=coldstart node bench/run.mjs`
// runs it alone (after `make build bench-dist`) and rewrites only that section. A report, not a test.
//
// Every load is a fresh browser context (an empty HTTP cache, and the cache disabled over CDP; the
// agent also sends `Cache-Control: no-store`) opening bench/cold.html, which loads its system and
// runs one scripted tool conversation: a round whose answer calls `ping`, the tool executed in the
// browser, its result sent back, a final text. Times are the page's `performance.now()`, i.e. from
// the start of the navigation. Environment: BENCH_COLD_LOADS (loads per system, default 15).
import { existsSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";

import { fmt, launchChromium, median, startBenchAgent, writeSection } from "./support.mjs";

const SYSTEMS = ["A", "AT", "B"];
const LABELS = {
  A: "A: `init()` (what `initChatRuntime()` runs) + `new ChatRuntime` + `registerTool` + `run`",
  AT: "A from `tools.json`: the same with `toolsUrl` (`loadTools()`, then the tool module's `import()`)",
  B: "B: `import` of `HttpAgent` (dist/agui-httpagent.js) + `runAgent`, the tool run by hand code, `addMessage`, `runAgent`",
};


/** The agent's script for one load: the tool call, then (after the result) the answer. */
function conversation(threadId) {
  return [
    { events: [
      { type: "RUN_STARTED", threadId, runId: "run-1" },
      { type: "TOOL_CALL_START", toolCallId: "call-1", toolCallName: "ping", parentMessageId: "msg-1" },
      { type: "TOOL_CALL_ARGS", toolCallId: "call-1", delta: "{}" },
      { type: "TOOL_CALL_END", toolCallId: "call-1" },
      { type: "RUN_FINISHED", threadId, runId: "run-1", outcome: { type: "success", pendingToolCallIds: ["call-1"] } },
    ] },
    { events: [
      { type: "RUN_STARTED", threadId, runId: "run-2" },
      { type: "TEXT_MESSAGE_START", messageId: "msg-2", role: "assistant" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "msg-2", delta: "All done." },
      { type: "TEXT_MESSAGE_END", messageId: "msg-2" },
      { type: "RUN_FINISHED", threadId, runId: "run-2" },
    ] },
  ];
}

let loads = 0;
/** One cold load of `system`: `{ ready, toolResult, answer, bytes }` in ms since navigation start. */
async function coldLoad(browser, url, system) {
  const threadId = `cold-${process.pid}-${++loads}`;
  const res = await fetch(`${url}/test/script`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ threadId, responses: conversation(threadId) }),
  });
  if (!res.ok) throw new Error(`script: ${res.status}`);
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    await page.goto(`${url}/cold.html?system=${system}&thread=${threadId}`);
    await page.waitForFunction(() => window.cold !== undefined, null, { timeout: 60_000 });
    const cold = await page.evaluate(() => window.cold);
    if (cold.error) throw new Error(`${system}: ${cold.error}`);
    return cold;
  } finally {
    await context.close();
  }
}

/** `loads` cold loads of each system, alternating the order; the samples by system. */
export async function measureColdStart(browser, url, log = console.log) {
  const n = Number(process.env.BENCH_COLD_LOADS ?? 15);
  const samples = Object.fromEntries(SYSTEMS.map((s) => [s, []]));
  // The 1-minute load average at each load: the machine is shared, and a busy moment shows.
  const loadavg = [];
  for (const system of SYSTEMS) await coldLoad(browser, url, system); // warm-up: the agent, the OS file cache
  for (let r = 0; r < n; r++) {
    for (const system of r % 2 ? [...SYSTEMS].reverse() : SYSTEMS) {
      loadavg.push(os.loadavg()[0]);
      samples[system].push(await coldLoad(browser, url, system));
    }
  }
  for (const system of SYSTEMS) {
    log(`cold start ${system}: first tool result ${fmt(median(samples[system].map((c) => c.toolResult)))} ms, answer ${fmt(median(samples[system].map((c) => c.answer)))} ms`);
  }
  return { n, samples, loadavg };
}

/** Section 6 of bench/RESULTS.md. */
export function coldSection({ n, samples, loadavg }, command) {
  const col = (system, key) => median(samples[system].map((c) => c[key]));
  const rows = SYSTEMS.map((s) =>
    `| ${LABELS[s]} | ${fmt(col(s, "ready"))} ms | **${fmt(col(s, "toolResult"))} ms** | ${fmt(col(s, "answer"))} ms | ${(col(s, "bytes") / 1024).toFixed(1)} KiB |`);
  return `## 6. Cold start to the first tool result

Command: \`${command}\`. Each load is a fresh browser context (empty HTTP cache, the cache disabled
over CDP, \`Cache-Control: no-store\` from the agent) opening \`bench/cold.html\`, served with the
package from 127.0.0.1 by the scripted agent: the page loads its system and runs one tool
conversation (a round whose answer calls \`ping\`, the tool executed in the page, its result sent
back, a final text). Times are \`performance.now()\` in the page, from the start of the navigation
(the HTML's own fetch included); medians of ${n} loads per system, alternating (A AT B / B AT A),
after one warm-up load each. "Fetched" is the sum of \`encodedBodySize\` of the page's requests
(the agent compresses nothing: raw bytes; over a network the wasm goes gzip, section 4). The
1-minute load average during the loads: ${fmt(Math.min(...loadavg))}–${fmt(Math.max(...loadavg))}, median
${fmt(median(loadavg))} on ${os.cpus().length} cores (above that, other jobs competed for the CPU: A and
A from \`tools.json\` run the same code up to "module ready", and their difference there is noise).

| | module ready | **first tool result** | answer (after the restart) | fetched |
|---|---|---|---|---|
${rows.join("\n")}

"Module ready": \`init()\` resolved (A), the bundle imported (B). "First tool result": the tool
returned its result (A: inside the handler the runtime called; B: the hand code ran it). "Answer":
the run, restarted with the result, ended with the agent's text. Localhost hides the transfer time
of the wasm, which is what an app keeps off its first page load (chat-runtime/react starts lazily;
\`initChatRuntime()\` on hover or focus of the chat entry starts the fetch and compile earlier).
`;
}

// ---- alone: `node bench/coldstart.mjs` (or `BENCH_ONLY=coldstart node bench/run.mjs`) -------------

/** Measures with an agent and a browser of its own, and rewrites section 6 of bench/RESULTS.md. */
export async function main() {
  const root = fileURLToPath(new URL("../", import.meta.url));
  process.chdir(root);
  for (const file of ["pkg/chat_runtime.js", "bench/dist/agui-httpagent.js"]) {
    if (!existsSync(file)) throw new Error(`no ${file}: make build bench-dist`);
  }
  const { agent, url, binary } = await startBenchAgent(["target/release/chat-runtime-agent", "target/debug/chat-runtime-agent"]);
  const browser = await launchChromium(["--disable-quic", "--disable-background-networking", "--disable-component-update", "--disable-sync"]);
  try {
    const results = await measureColdStart(browser, url);
    const vars = ["BENCH_COLD_LOADS"].filter((k) => process.env[k]).map((k) => `${k}=${process.env[k]} `).join("");
    const section = coldSection(results, `${vars}node bench/coldstart.mjs (agent: ${binary})`);
    console.log(section);
    if (!process.env.BENCH_COLD_NO_WRITE) writeSection("## 6. Cold start", section);
  } finally {
    await browser.close();
    await agent.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
