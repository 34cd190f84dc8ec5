// Two builds of A side by side (not part of `make bench`; run by hand):
//   node bench/ab.mjs BASE_PKG_DIR STEP_PKG_DIR [corpus] [MB] [rounds]
// Both packages are loaded in one page (/pkg and /pkg2) and their runs interleaved with the
// floor's (base, floor, step; the order reversed every other round), each A run as
// bench/profile.mjs's with a `messages` subscriber. Prints medians and minimums: on the shared
// machine the load moves a run by ±30 %, a pair of whole profile.mjs runs cannot tell a 5 % step,
// and runs side by side in one page see the same load.
import { spawn } from "node:child_process";
import { chromium } from "playwright-core";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";

process.chdir(fileURLToPath(new URL("../", import.meta.url)));
const [baseDir, stepDir, name = "mixed", mbs = "5", roundsS = "9"] = process.argv.slice(2);
const mb = Number(mbs), rounds = Number(roundsS);
if (!baseDir || !stepDir) throw new Error("usage: node bench/ab.mjs BASE_PKG_DIR STEP_PKG_DIR [corpus] [MB] [rounds]");
const agent = spawn("target/release/chat-runtime-agent",
  ["--mode", "script", "--port", "0", "--static", "/=bench", "--static", `/pkg=${baseDir}`, "--static", `/pkg2=${stepDir}`],
  { stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise((resolve) => {
  let out = "";
  agent.stdout.on("data", (d) => { out += d; const m = /listening on (\S+)/.exec(out); if (m) resolve(m[1]); });
});
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--js-flags=--expose-gc"] });
const page = await browser.newPage();
await page.goto(`${url}/index.html`);
await page.waitForFunction(() => window.benchReady === true);
await page.evaluate(async ([name, mb]) => {
  const { loadA, prepare, stream: chunked, measure } = window.bench;
  const base = (await loadA()).mod;
  const step = await import("/pkg2/chat_runtime.js"); await step.default();
  const { chunks } = prepare(name, mb);
  window.runFloor = () => measure("floor", name, mb);
  window.runA = async (which) => {
    const mod = which === "base" ? base : step;
    globalThis.gc?.();
    const rt = new mod.ChatRuntime({ runUrl: "/x/{threadId}", toolsUrl: null, storage: null,
      fetch: async () => new Response(chunked(chunks), { headers: { "content-type": "text/event-stream" } }) });
    rt.subscribe(() => {}, { events: ["messages"] });
    const t0 = performance.now();
    const r = await rt.run({ threadId: "bench-thread", messages: [{ id: "u1", role: "user", content: "Go." }] });
    const ms = performance.now() - t0;
    const n = rt.messages("bench-thread").length;
    rt.free();
    if (r.status !== "completed") throw new Error(r.status);
    return { ms, n };
  };
}, [name, mb]);
for (const w of ["base", "step", "base", "step"]) await page.evaluate((w) => window.runA(w), w);
const t = { base: [], step: [], floor: [] };
const loads = [];
for (let r = 0; r < rounds; r++) {
  loads.push(loadavg()[0]);
  const order = r % 2 ? ["step", "floor", "base"] : ["base", "floor", "step"];
  for (const w of order) {
    const res = w === "floor" ? await page.evaluate(() => window.runFloor()) : await page.evaluate((w) => window.runA(w), w);
    t[w].push(res.ms);
  }
}
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
const min = (xs) => Math.min(...xs);
const f = (x) => x.toFixed(1);
console.log(`${name} ${mb} MB, ${rounds} rounds, load ${f(min(loads))}-${f(Math.max(...loads))}: ` +
  `base median ${f(med(t.base))} min ${f(min(t.base))} | step median ${f(med(t.step))} min ${f(min(t.step))} | ` +
  `floor median ${f(med(t.floor))} min ${f(min(t.floor))} | step/base median ${(med(t.step) / med(t.base)).toFixed(3)} min ${(min(t.step) / min(t.base)).toFixed(3)} | ` +
  `floor/A median base ${(med(t.floor) / med(t.base)).toFixed(2)} step ${(med(t.floor) / med(t.step)).toFixed(2)} | ` +
  `step/base of each round's pair: median ${med(t.step.map((s, i) => s / t.base[i])).toFixed(3)}`);
await browser.close();
agent.kill("SIGTERM");
