// Shared set-up of the browser end-to-end suites: the scripted AG-UI server (demo/agent in script
// mode, serving /pkg, /tools and the test pages), its control API, and polling.
import assert from "node:assert/strict";
import { after, afterEach, before, beforeEach } from "node:test";

import { startProcess } from "../support/spawn.mjs";
import { launch } from "./browser.mjs";

export const root = new URL("../../", import.meta.url);

/**
 * Starts `chat-runtime-agent --mode script` on a free port, serving the package, the e2e tools
 * and pages. Resolves with `{ child, base, stop }` once it prints its address.
 */
export async function startScriptAgent() {
  const { child, url, stop } = await startProcess(
    new URL("target/debug/chat-runtime-agent", root).pathname,
    ["--mode", "script", "--port", "0", "--static", "/pkg=pkg", "--static", "/tools=tests/e2e/tools", "--static", "/=tests/e2e/pages"],
    {
      name: "chat-runtime-agent",
      hint: "run cargo build -p chat-runtime-agent",
      cwd: root.pathname,
      ready: { line: /^listening on (http:\/\/127\.0\.0\.1:\d+)$/ },
      echo: true,
    },
  );
  return { child, base: url, stop };
}

/** The server's control API: GET `path`, or POST `body` as JSON; asserts a 2xx answer. */
export async function api(base, path, body) {
  const init = body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  const response = await fetch(base + path, init);
  const json = await response.json();
  assert.ok(response.ok, `${path}: HTTP ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** Polls `check` (async, returns truthy when done) until it holds. */
export async function until(what, check, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 10));
  }
}

/** Gives a negative check ("nothing more happens") time to be wrong. */
export const settle = (ms = 400) => new Promise((done) => setTimeout(done, ms));

/**
 * The hooks of a browser suite: a server and Chromium for the file, and per test a fresh context
 * (fresh localStorage) on `/runtime.html`, the server reset, and no uncaught page error allowed.
 * The server is the scripted one by default (its scripts and records cleared before each test);
 * `start` (resolving with `{ base, stop }`) and `reset` (given the base URL; `null`: nothing) serve
 * another one that serves the same page (tests/servers); `page` is the page's path (`/runtime.html?build=coder`:
 * the Coder build). Returns the live state:
 * `{ base, page, context }`.
 */
export function browserSuite({ start = startScriptAgent, reset = (base) => api(base, "/test/reset", {}), page = "/runtime.html" } = {}) {
  const suite = { server: null, base: null, browser: null, context: null, page: null, pageErrors: [] };
  before(async () => {
    suite.server = await start();
    suite.base = suite.server.base;
    suite.browser = await launch();
  });
  after(async () => {
    await suite.browser?.close();
    await suite.server?.stop();
  });
  beforeEach(async () => {
    await reset?.(suite.base);
    suite.context = await suite.browser.newContext();
    suite.page = await suite.context.newPage();
    suite.pageErrors = [];
    suite.page.on("pageerror", (error) => suite.pageErrors.push(error));
    await suite.page.goto(`${suite.base}${page}`);
    await suite.page.waitForSelector("body[data-ready=true]", { state: "attached", timeout: 60_000 });
  });
  afterEach(async () => {
    await suite.context?.close();
    assert.deepEqual(suite.pageErrors.map(String), [], "uncaught errors in the page");
  });
  return suite;
}

/**
 * A `browserSuite()` on the scripted agent with the steps its tests take: `api(path, body)`,
 * `script(threadId, responses)` (queue the agent's answers), `requests(threadId)` (what it got) and
 * `inPage(fn, arg)` (run `fn` in the test's page).
 */
export function scriptedSuite(options) {
  const suite = browserSuite(options);
  const call = (path, body) => api(suite.base, path, body);
  return {
    suite,
    api: call,
    script: (threadId, responses) => call("/test/script", { threadId, responses }),
    requests: (threadId) => call(`/test/requests?threadId=${encodeURIComponent(threadId)}`),
    inPage: (fn, arg) => suite.page.evaluate(fn, arg),
  };
}

// ---- scripted runs: the AG-UI events the suites script for the server ------------------------

export const started = (threadId, runId) => ({ type: "RUN_STARTED", threadId, runId });
export const finished = (threadId, runId) => ({ type: "RUN_FINISHED", threadId, runId });

/** A run that answers with `reply` as one assistant message (`m-<runId>`). */
export const answer = (threadId, reply = "Done.", runId = "srv-2") => ({
  events: [
    started(threadId, runId),
    { type: "TEXT_MESSAGE_START", messageId: `m-${runId}`, role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: `m-${runId}`, delta: reply },
    { type: "TEXT_MESSAGE_END", messageId: `m-${runId}` },
    finished(threadId, runId),
  ],
});

/** A run (`srv-1`) that calls tool `name` as `id` with `args`, on assistant message `a1`. */
export const callRun = (threadId, id, name, args = {}) => ({
  events: [
    started(threadId, "srv-1"),
    { type: "TOOL_CALL_START", toolCallId: id, toolCallName: name, parentMessageId: "a1" },
    { type: "TOOL_CALL_ARGS", toolCallId: id, delta: JSON.stringify(args) },
    { type: "TOOL_CALL_END", toolCallId: id },
    finished(threadId, "srv-1"),
  ],
});
