// Where chat-runtime's stream-to-messages time goes (not part of `make bench`; run by hand):
//   node bench/profile.mjs [corpus,corpus] [MB]
// 1. A with and without a subscriber, and the floor (alternating, medians of 5): with no listener
//    the runtime skips the per-event JSON round trip of `agui` events (the driver's `emit`,
//    src/wasm/driver; src/wasm/runtime.rs when this was written).
// 2. A CPU profile (CDP Profiler) of A with a subscriber: self time by function, top 20.
// PKG_DIR=dir serves another build as /pkg (e.g. `wasm-pack build --profiling` for wasm names).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = fileURLToPath(new URL("../", import.meta.url));
process.chdir(root);
const names = (process.argv[2] ?? "token,args,state,mixed").split(",");
const mb = Number(process.argv[3] ?? 5);
const pkg = process.env.PKG_DIR ?? "pkg";

const agent = spawn("target/release/chat-runtime-agent",
  ["--mode", "script", "--port", "0", "--static", "/=bench", "--static", `/pkg=${pkg}`],
  { stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise((resolve) => {
  let out = "";
  agent.stdout.on("data", (d) => { out += d; const m = /listening on (\S+)/.exec(out); if (m) resolve(m[1]); });
});
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium", headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--js-flags=--expose-gc"],
});
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };

for (const name of names) {
  const page = await browser.newPage();
  await page.goto(`${url}/index.html`);
  await page.waitForFunction(() => window.benchReady === true);
  // A with an optional subscriber, timed like bench.mjs runA; also counts the listener's calls.
  // The corpus, its chunked stream and the floor are the benchmark page's own (bench.mjs).
  await page.evaluate(async ([name, mb]) => {
    const { loadA, prepare, stream: chunked, measure } = window.bench;
    const { mod } = await loadA();
    const { chunks } = prepare(name, mb);
    const stream = () => chunked(chunks);
    window.runFloor = () => measure("floor", name, mb);
    window.runA = async (subscribe) => {
      globalThis.gc?.();
      const rt = new mod.ChatRuntime({ runUrl: "/x/{threadId}", toolsUrl: null, storage: null,
        fetch: async () => new Response(stream(), { headers: { "content-type": "text/event-stream" } }) });
      const calls = { agui: 0, messages: 0, other: 0 };
      if (subscribe) rt.subscribe((e) => { calls[e.type in calls ? e.type : "other"]++; }, { events: ["messages"] });
      const t0 = performance.now();
      const r = await rt.run({ threadId: "bench-thread", messages: [{ id: "u1", role: "user", content: "Go." }] });
      const ms = performance.now() - t0;
      // What one `messages` event costs at the end (the whole list through JSON, as a frame flush does).
      const t1 = performance.now();
      const count = rt.messages("bench-thread").length;
      const listMs = performance.now() - t1;
      rt.free();
      if (r.status !== "completed") throw new Error(r.status);
      return { ms, calls, listMs, count };
    };
  }, [name, mb]);
  await page.evaluate(() => window.runA(true));
  await page.evaluate(() => window.runA(false));
  const on = [], off = [], floor = [];
  let calls, list = [];
  for (let r = 0; r < 5; r++) {
    floor.push((await page.evaluate(() => window.runFloor())).ms);
    for (const sub of r % 2 ? [false, true] : [true, false]) {
      const res = await page.evaluate((s) => window.runA(s), sub);
      (sub ? on : off).push(res.ms);
      if (sub) { calls = res.calls; list.push(res.listMs); }
    }
  }
  const f = median(floor);
  console.log(`${name} ${mb} MB: with a subscriber ${median(on).toFixed(0)} ms (floor/A ${(f / median(on)).toFixed(2)}), ` +
    `without ${median(off).toFixed(0)} ms (floor/A ${(f / median(off)).toFixed(2)}), floor ${f.toFixed(0)} ms ` +
    `(listener calls per run: ${JSON.stringify(calls)}; one whole-list messages() at the end: ${median(list).toFixed(1)} ms)`);

  if (process.env.NO_PROFILE) { await page.close(); continue; }
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
  await cdp.send("Profiler.start");
  for (let r = 0; r < 3; r++) await page.evaluate(() => window.runA(true));
  const { profile } = await cdp.send("Profiler.stop");
  if (process.env.PROFILE_OUT) (await import("node:fs")).writeFileSync(`${process.env.PROFILE_OUT}-${name}.cpuprofile`, JSON.stringify(profile));
  const self = new Map();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = new Map();
  profile.samples.forEach((id, i) => dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  let total = 0;
  for (const [id, us] of dt) {
    const f = byId.get(id).callFrame;
    const key = `${f.functionName || "(anonymous)"} ${f.url ? f.url.replace(url, "") : ""}${f.functionName ? "" : ":" + f.lineNumber + ":" + f.columnNumber}`.trim();
    self.set(key, (self.get(key) ?? 0) + us);
    total += us;
  }
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 20);
  console.log(`  CPU profile (3 runs, ${(total / 1000).toFixed(0)} ms sampled), self time:`);
  for (const [k, us] of top) console.log(`    ${(100 * us / total).toFixed(1).padStart(5)}%  ${k}`);
  await page.close();
}
await browser.close();
agent.kill("SIGTERM");
