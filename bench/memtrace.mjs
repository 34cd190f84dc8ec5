// The wasm memory at each event of one run (not part of `make bench`; run by hand):
//   CORPUS=mixed MB=20 [PKG_DIR=dir] node bench/memtrace.mjs
// A run of the bench page's corpus, chunked and as one body, each on a fresh page, with a listener
// for `messages`, `state` and `run_finished` that notes the wasm memory whenever it grew: where a
// peak is reached (a vector's doubling, the run's end flush). Wasm memory never shrinks.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
process.chdir(fileURLToPath(new URL("../", import.meta.url)));
const agent = spawn("target/release/chat-runtime-agent", ["--mode", "script", "--port", "0", "--static", "/=bench", "--static", `/pkg=${process.env.PKG_DIR ?? "pkg"}`], { stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise((r) => { let o = ""; agent.stdout.on("data", (d) => { o += d; const m = /listening on (\S+)/.exec(o); if (m) r(m[1]); }); });
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox", "--js-flags=--expose-gc"] });
for (const delivery of ["chunked", "whole"]) {
  const page = await browser.newPage();
  await page.goto(`${url}/index.html`);
  await page.waitForFunction(() => window.benchReady === true);
  const out = await page.evaluate(async ([delivery, name, mb]) => {
    const { loadA, prepare, stream } = window.bench;
    const corpus = prepare(name, mb);
    const A = await loadA();
    const mem = () => A.wasm.memory.buffer.byteLength / 1048576;
    const trace = [["start", mem()]];
    const rt = new A.mod.ChatRuntime({ runUrl: "/b/{threadId}/runs", toolsUrl: null, storage: null,
      fetch: async () => new Response(delivery === "whole" ? corpus.whole : stream(corpus.chunks), { headers: { "content-type": "text/event-stream" } }) });
    let n = 0;
    rt.subscribe((e) => { n += e.messages?.length ?? 0; trace.push([`${e.type} ${e.messages?.length ?? ""} total ${n}`, mem()]); }, { events: ["messages", "state", "run_finished"] });
    const r = await rt.run({ threadId: "bench-thread", messages: [{ id: "u", role: "user", content: "go" }] });
    trace.push(["after run", mem()]);
    rt.messages("bench-thread"); trace.push(["after messages()", mem()]);
    return { status: r.status, trace: trace.filter((t, i, a) => i == 0 || t[1] != a[i - 1][1] || i == a.length - 1) };
  }, [delivery, process.env.CORPUS ?? "mixed", Number(process.env.MB ?? 20)]);
  console.log(delivery, out.status); for (const [w, m] of out.trace) console.log(`  ${m.toFixed(2)}  ${w}`);
  await page.close();
}
await browser.close(); agent.kill();
