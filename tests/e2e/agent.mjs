// Starts the real demo agent (target/debug/chat-runtime-agent, demo mode) for the browser tests:
// it serves the page (demo/), the package (pkg/), the tools (demo/tools/) and the recorded streams
// (tests/fixtures/), and answers the runs with its scripted planner, without pauses (--pace-ms 0).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { after, before } from "node:test";

import { launch } from "./browser.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Resolves with `{ child, url }` once the agent prints `listening on http://127.0.0.1:PORT`. By
 * default it serves the demo page, the package, the tools and the recorded streams without pauses;
 * `statics` (`--static` values) and `paceMs` change that for the packaging tests.
 */
export function startAgent({ timeoutMs = 30_000, paceMs = 0, statics } = {}) {
  const bin = `${root}target/debug/chat-runtime-agent`;
  assert.ok(existsSync(bin), `${bin} is missing: run \`cargo build -p chat-runtime-agent\` (make test-e2e does)`);
  if (statics === undefined) {
    for (const file of ["pkg/chat_runtime.js", "demo/tools/weather.js"]) {
      assert.ok(existsSync(`${root}${file}`), `${file} is missing: run \`make build\``);
    }
  }
  const served = statics ?? ["/=demo", "/pkg=pkg", "/tools=demo/tools", "/fixtures=tests/fixtures"];
  const child = spawn(
    bin,
    ["--mode", "demo", "--port", "0", "--pace-ms", String(paceMs), ...served.flatMap((s) => ["--static", s])],
    { cwd: root, stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`the demo agent did not start: ${out}`)), timeoutMs);
    child.once("exit", (code) => reject(new Error(`the demo agent exited (${code}): ${out}`)));
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url });
      }
    });
  });
}

/** Stops the agent (SIGTERM) and waits for it to exit. */
export async function stopAgent(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once("exit", done));
  child.kill("SIGTERM");
  await exited;
}

/**
 * The hooks of a demo-page suite: the demo agent (`startAgent()`) and Chromium for the file.
 * Returns the live state, `{ base, browser }`, set once the suite's `before` ran.
 */
export function demoSuite() {
  const suite = { agent: null, base: null, browser: null };
  before(async () => {
    ({ child: suite.agent, url: suite.base } = await startAgent());
    suite.browser = await launch();
  });
  after(async () => {
    await suite.browser?.close();
    await stopAgent(suite.agent);
  });
  return suite;
}
