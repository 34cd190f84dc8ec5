// The pattern budget in Chromium: section 7 of bench/RESULTS.md. `make bench` runs it (bench/run.mjs
// imports it); `node bench/pattern.mjs` or `BENCH_ONLY=pattern node bench/run.mjs` runs it alone
// (after `make build`) and rewrites only that section. A report, not a test: the tests assert the
// error (tests/pattern.rs, tests/e2e/hostile.test.mjs), this says how long it takes.
import os from "node:os";
import { fileURLToPath } from "node:url";

import { launchChromium, startBenchAgent, writeSection } from "./support.mjs";

/** The worst legal pattern for the budget (18,001 states, all alive at every `a`), and controls. */
const WORST = "(?:a?){9000}b";
const LINES = [
  { what: "tool call, 80 KB argument, `^a+$` (control)", args: ["tool", "^a+$", 80_000] },
  { what: `tool call, 80 KB argument, \`${WORST}\``, args: ["tool", WORST, 80_000] },
  { what: "interrupt answer, 40 KB, `^a+$` (control)", args: ["interrupt", "^a+$", 40_000] },
  { what: `interrupt answer, 40 KB, \`${WORST}\``, args: ["interrupt", WORST, 40_000] },
];

/** Measures every line on one page of `freshPage()`, through `call(page, fn, ...args)`. */
export async function measurePattern(freshPage, call, log = console.log) {
  const page = await freshPage();
  const results = [];
  const load = os.loadavg()[0];
  try {
    for (const line of LINES) {
      const res = await call(page, "patternTime", ...line.args);
      results.push({ ...line, ...res, load });
      log(`pattern: ${line.what}: ${res.ms.toFixed(1)} ms (${res.said})`);
    }
  } finally {
    await page.close();
  }
  return results;
}

/** Section 7 of bench/RESULTS.md. */
export function patternSection(results, command) {
  const rows = results.map((r) => `| ${r.what} | **${r.ms.toFixed(1)} ms** | ${r.said.replaceAll("|", "\\|").slice(0, 160)} |`);
  const [toolControl, tool, answerControl, answer] = results;
  return `## 7. Pattern budget

Command: \`${command}\`. Every \`pattern\` match of one validation shares a budget of steps
(\`MAX_MATCH_STEPS\` in src/tools/pattern/mod.rs: a step is one thread of the matcher at one char,
at most states × characters). Before it, \`${WORST}\` against 80,000 \`a\`s (1.4 billion steps) froze
the page for 7.7 s. Median of 5 on one page: a whole turn of A whose one call carries the argument
(the call is answered \`INVALID_TOOL_ARGUMENTS\` and the run restarts once), and a \`run\` whose
interrupt answer is checked against the server's \`responseSchema\` (refused before it is sent).
The control lines take the same path with an ordinary pattern; the difference is the match.

| what | time | what the run said |
|---|---|---|
${rows.join("\n")}

The budget's cost: ${(tool.ms - toolControl.ms).toFixed(1)} ms for the tool call, ${(answer.ms - answerControl.ms).toFixed(1)} ms for the interrupt answer (goal: under 50 ms), at a
1-minute load average of ${toolControl.load.toFixed(1)} on ${os.cpus().length} cores (the machine is shared: a busy moment
stretches wall time).
`;
}

/** Measures with an agent and a browser of its own, and rewrites section 7 of bench/RESULTS.md. */
export async function main() {
  const root = fileURLToPath(new URL("../", import.meta.url));
  process.chdir(root);
  const { agent } = await startBenchAgent(["target/release/chat-runtime-agent", "target/debug/chat-runtime-agent"]);
  const browser = await launchChromium();
  const context = await browser.newContext();
  const freshPage = async () => {
    const page = await context.newPage();
    page.on("pageerror", (e) => console.log("page error:", e.message));
    await page.goto(`${agent.url}/index.html`);
    await page.waitForFunction(() => window.benchReady === true);
    return page;
  };
  const call = (page, fn, ...args) => page.evaluate(([fn, args]) => window.bench[fn](...args), [fn, args]);
  try {
    const section = patternSection(await measurePattern(freshPage, call), "node bench/pattern.mjs");
    console.log(section);
    if (!process.env.BENCH_PATTERN_NO_WRITE) writeSection("## 7. Pattern budget", section);
  } finally {
    await browser.close();
    await agent.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
