// Starts the real demo agent (target/debug/chat-runtime-agent, demo mode) for the browser tests:
// it serves the page (demo/), the package (pkg/), the tools (demo/tools/) and the recorded streams
// (tests/fixtures/), and answers the runs with its scripted planner, without pauses (--pace-ms 0).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { after, before } from "node:test";

import { startProcess, stopProcess } from "../support/spawn.mjs";
import { launch } from "./browser.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Resolves with `{ child, url, stop }` once the agent prints `listening on http://127.0.0.1:PORT`.
 * By default it serves the demo page, the package, the tools and the recorded streams without
 * pauses; `statics` (`--static` values), `paceMs` and `mode` (`gateway`) change that for the
 * packaging tests.
 */
export async function startAgent({ timeoutMs = 30_000, paceMs = 0, statics, args = [], mode = "demo" } = {}) {
  const bin = `${root}target/debug/chat-runtime-agent`;
  assert.ok(existsSync(bin), `${bin} is missing: run \`cargo build -p chat-runtime-agent\` (make test-e2e does)`);
  if (statics === undefined) {
    for (const file of ["pkg/chat_runtime.js", "demo/tools/weather.js"]) {
      assert.ok(existsSync(`${root}${file}`), `${file} is missing: run \`make build\``);
    }
  }
  const served = statics ?? ["/=demo", "/pkg=pkg", "/tools=demo/tools", "/fixtures=tests/fixtures"];
  return startProcess(
    bin,
    ["--mode", mode, "--port", "0", "--pace-ms", String(paceMs), ...served.flatMap((s) => ["--static", s]), ...args],
    { name: "the demo agent", cwd: root, ready: { line: /listening on (http:\/\/127\.0\.0\.1:\d+)/ }, timeoutMs, echo: true },
  );
}

/** Stops the agent (SIGTERM to its process group) and waits for it to exit. */
export async function stopAgent(child) {
  await stopProcess(child);
}

/**
 * The hooks of a demo-page suite: the demo agent (`startAgent()`) and Chromium for the file.
 * The agent runs as `make demo` runs it: its Coder mock requires a session and signs every page
 * in by cookie with Coder's CSRF token (`--coder-sign-in`), so `?backend=coder` is cookie mode with
 * CSRF on, as on a real Coder deployment.
 * Returns the live state, `{ base, browser }`, set once the suite's `before` ran.
 */
export const DEMO_AGENT_ARGS = ["--coder-token", "demo-session", "--coder-sign-in"];
export function demoSuite() {
  const suite = { agent: null, base: null, browser: null };
  before(async () => {
    ({ child: suite.agent, url: suite.base } = await startAgent({ args: DEMO_AGENT_ARGS }));
    suite.browser = await launch();
  });
  after(async () => {
    await suite.browser?.close();
    await stopAgent(suite.agent);
  });
  return suite;
}
