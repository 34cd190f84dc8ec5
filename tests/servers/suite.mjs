// The scenarios every real AG-UI server is put through: ChatRuntime in headless Chromium against a
// Python server (tests/servers/*_app.py: the real adapter on a scripted model), which serves the
// page, the package and the tools itself (one origin) and logs every request it gets.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { test } from "node:test";

import { browserSuite } from "../e2e/harness.mjs";
import { startProcess } from "../support/spawn.mjs";

const root = new URL("../../", import.meta.url);
const PYTHON = new URL("target/servers-venv/bin/python", root).pathname;
const TIMEOUT = 90_000;

/** Starts `tests/servers/<app>` from the venv; resolves with `{ base, stop }` once it listens. */
export async function startServer(app) {
  assert.ok(existsSync(PYTHON), `${PYTHON} is missing: run \`make servers-venv\``);
  for (const file of ["pkg/chat_runtime.js"]) {
    assert.ok(existsSync(new URL(file, root)), `${file} is missing: run \`make build\``);
  }
  const { url, stop } = await startProcess(PYTHON, [app], {
    name: app,
    cwd: new URL("tests/servers/", root).pathname,
    env: { PYTHONDONTWRITEBYTECODE: "1" },
    ready: { line: /^listening on (http:\/\/127\.0\.0\.1:\d+)$/ },
    timeoutMs: TIMEOUT,
    echo: true,
  });
  return { base: url, stop };
}

/** The events of an SSE text as the servers write them (one `data:` line per event). */
export function sseEvents(text) {
  return text.split("\n").filter((line) => line.startsWith("data:")).map((line) => JSON.parse(line.slice(5)));
}

/** The ids of the tool calls a response opened, in order. */
export const callsOf = (response) => sseEvents(response).filter((e) => e.type === "TOOL_CALL_START").map((e) => e.toolCallId);

/**
 * The hooks of one server's suite (tests/e2e/harness.mjs `browserSuite` over the Python app): the
 * server and Chromium for the file; per test a fresh context on /runtime.html, and no uncaught page
 * error allowed.
 */
export function serverSuite(app) {
  const suite = browserSuite({ start: () => startServer(app), reset: null });

  /** The server's log of POST /api/agent for one thread: `[{ body, response }]`. */
  suite.requests = async (threadId) => {
    const response = await fetch(`${suite.base}/test/requests`);
    assert.ok(response.ok, `GET /test/requests: HTTP ${response.status}`);
    return (await response.json()).requests.filter((r) => r.body.threadId === threadId);
  };

  /**
   * Creates `window.rt` in the page (`history`, the tools of tools.json, `enable`d for `threadId`;
   * `sendServerTools`: a prepareRequest that sends the thread's state exactly as the server last
   * sent it, `tools` included).
   */
  suite.createRuntime = (threadId, { history, enable = [], sendServerTools = false }) =>
    suite.page.evaluate(async ({ threadId, history, enable, sendServerTools }) => {
      const options = { runUrl: "/api/agent", toolsUrl: "/tools/tools.json", history };
      if (sendServerTools) {
        options.prepareRequest = (body, info) => ({ ...body, state: window.rt.state(info.threadId) ?? {} });
      }
      const rt = (window.rt = new window.ChatRuntime(options));
      window.events = [];
      rt.subscribe((event) => window.events.push(event), { events: ["tool_started", "tool_finished", "round_started", "diagnostic"] });
      const report = await rt.loadTools();
      if (report.diagnostics.length) throw new Error(JSON.stringify(report.diagnostics));
      for (const name of enable) rt.setToolEnabled(threadId, name, true);
    }, { threadId, history, enable, sendServerTools });

  /** Starts a turn: the user says `text`; the outcome is kept in the page. */
  suite.startTurn = (threadId, text) =>
    suite.page.evaluate(({ threadId, text }) => {
      window.turn = window.rt.run({ threadId, messages: [{ id: crypto.randomUUID(), role: "user", content: text }] }).then(
        (result) => ({ result }),
        (error) => ({ error: { code: error.code, message: error.message } }),
      );
    }, { threadId, text });

  /** Waits for the started turn; returns its RunResult. */
  suite.finishTurn = async () => {
    const outcome = await suite.page.evaluate(() => window.turn);
    assert.equal(outcome.error, undefined, `run rejected: ${JSON.stringify(outcome.error)}`);
    return outcome.result;
  };

  suite.turn = async (threadId, text) => {
    await suite.startTurn(threadId, text);
    return suite.finishTurn();
  };

  /** The tool calls the page's handlers received: `[{ name, toolCallId, args }]`. */
  suite.calls = () => suite.page.evaluate(() => globalThis.__calls ?? []);
  return suite;
}

/** The text of the last assistant message. */
export function lastText(result) {
  const last = result.messages.filter((m) => m.role === "assistant" && typeof m.content === "string" && m.content).at(-1);
  return last?.content ?? "";
}

/**
 * Checks the server's log of a thread: every restart carries exactly one `role: "tool"` message per
 * call of the round before, in the calls' order, with their `toolCallId`s; no request answers a
 * call twice; with history "full" each request holds every call the thread made so far, each
 * answered right after the assistant message that made it; with "new", only the previous round's.
 * Returns the rounds' call ids.
 */
export function checkRestarts(requests, history) {
  let issued = [];
  let previous = [];
  const rounds = [];
  for (const [index, { body, response }] of requests.entries()) {
    const answered = body.messages.filter((m) => m.role === "tool").map((m) => m.toolCallId);
    assert.equal(new Set(answered).size, answered.length, `request ${index}: a call is answered twice: ${answered}`);
    if (history === "full") {
      assert.deepEqual(answered, issued, `request ${index}: the thread's calls, each answered once, in order`);
      body.messages.forEach((message, at) => {
        const ids = (message.toolCalls ?? []).map((call) => call.id);
        if (!ids.length) return;
        const next = body.messages.slice(at + 1, at + 1 + ids.length);
        assert.deepEqual(next.map((m) => m.role === "tool" && m.toolCallId), ids, `request ${index}: the results follow their calls`);
      });
    } else {
      assert.deepEqual(answered, previous, `request ${index}: the previous round's calls, each answered once, in order`);
    }
    previous = callsOf(response);
    issued = [...issued, ...previous];
    rounds.push(previous);
  }
  return rounds;
}

/**
 * The scenarios, for one server in one history mode. `modelSees(content)`: what the server's model
 * reads for a tool message with `error` set and that `content`.
 */
export function scenarios(suite, history, { modelSees = (content) => content } = {}) {
  const prefix = `${history}-`;

  /** The log's checks plus: each call the server made ran at most once in the page. */
  async function checkThread(threadId) {
    const requests = await suite.requests(threadId);
    const rounds = checkRestarts(requests, history);
    const ran = (await suite.calls()).map((c) => c.toolCallId);
    assert.equal(new Set(ran).size, ran.length, `no call runs twice: ${ran}`);
    for (const id of ran) assert.ok(rounds.flat().includes(id), `${id} was made by the server`);
    return { requests, rounds };
  }

  const toolMessages = (result) => result.messages.filter((m) => m.role === "tool");

  test(`${history}: one frontend call`, { timeout: TIMEOUT }, async () => {
    const threadId = `${prefix}one`;
    await suite.createRuntime(threadId, { history, enable: ["get_time"] });
    const result = await suite.turn(threadId, "call get_time");
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.equal(result.rounds, 2);
    const calls = await suite.calls();
    assert.deepEqual(calls.map((c) => [c.name, c.args]), [["get_time", { zone: "UTC" }]]);
    const [tool] = toolMessages(result);
    assert.equal(tool.toolCallId, calls[0].toolCallId);
    assert.equal(tool.content, "12:00 in UTC");
    assert.equal(lastText(result), `Results: ${calls[0].toolCallId} => 12:00 in UTC`);
    const { requests, rounds } = await checkThread(threadId);
    assert.equal(requests.length, 2);
    assert.deepEqual(rounds, [[calls[0].toolCallId], []]);
    assert.deepEqual(requests[0].body.tools.map((t) => t.name), ["get_time"]);
  });

  test(`${history}: two calls in parallel`, { timeout: TIMEOUT }, async () => {
    const threadId = `${prefix}parallel`;
    await suite.createRuntime(threadId, { history, enable: ["get_time", "get_weather"] });
    const result = await suite.turn(threadId, "call get_time and get_weather");
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.equal(result.rounds, 2);
    const { requests, rounds } = await checkThread(threadId);
    assert.equal(requests.length, 2);
    assert.equal(rounds[0].length, 2, "one response opens both calls");
    const calls = await suite.calls();
    assert.deepEqual(calls.map((c) => c.name).sort(), ["get_time", "get_weather"]);
    // Both handlers started before either finished: they ran concurrently.
    const order = await suite.page.evaluate(() => window.events.filter((e) => e.type === "tool_started" || e.type === "tool_finished").map((e) => e.type));
    assert.deepEqual(order, ["tool_started", "tool_started", "tool_finished", "tool_finished"]);
    assert.deepEqual(toolMessages(result).map((m) => m.content), ["12:00 in UTC", '{"city":"Paris","sky":"sunny"}']);
    assert.equal(lastText(result), `Results: ${rounds[0][0]} => 12:00 in UTC | ${rounds[0][1]} => {"city":"Paris","sky":"sunny"}`);
  });

  test(`${history}: a disabled tool is not offered; the model answers plainly`, { timeout: TIMEOUT }, async () => {
    const threadId = `${prefix}disabled`;
    await suite.createRuntime(threadId, { history, enable: ["get_weather"] });
    const result = await suite.turn(threadId, "call get_time");
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.equal(result.rounds, 1);
    assert.equal(lastText(result), "I cannot call get_time: not offered.");
    assert.deepEqual(await suite.calls(), []);
    const { requests } = await checkThread(threadId);
    assert.equal(requests.length, 1);
    assert.deepEqual(requests[0].body.tools.map((t) => t.name), ["get_weather"]);
  });

  test(`${history}: a throwing tool: the error reaches the model and the run completes`, { timeout: TIMEOUT }, async () => {
    const threadId = `${prefix}throws`;
    await suite.createRuntime(threadId, { history, enable: ["fails"] });
    const result = await suite.turn(threadId, "call fails");
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.equal(result.rounds, 2);
    const [tool] = toolMessages(result);
    assert.match(tool.content, /^TOOL ERROR: TOOL_EXECUTION_FAILED\n.*the tool failed: boom/);
    const { requests } = await checkThread(threadId);
    assert.equal(requests.length, 2);
    const sent = requests[1].body.messages.find((m) => m.role === "tool");
    assert.equal(sent.content, tool.content);
    assert.ok(sent.error, "the tool message says it is an error");
    // The model got the error text: it quotes it back.
    assert.equal(lastText(result), `Results: ${tool.toolCallId} => ${modelSees(tool.content)}`);
  });

  test(`${history}: Stop while a tool runs, then the next turn`, { timeout: TIMEOUT }, async () => {
    const threadId = `${prefix}stop`;
    await suite.createRuntime(threadId, { history, enable: ["slow"] });
    await suite.startTurn(threadId, "call slow");
    await suite.page.waitForFunction(() => (globalThis.__calls ?? []).some((c) => c.name === "slow"), null, { timeout: 60_000 });
    await suite.page.evaluate((threadId) => window.rt.abort(threadId), threadId);
    const stopped = await suite.finishTurn();
    assert.equal(stopped.status, "aborted");
    assert.equal(stopped.rounds, 1);
    const [interrupted] = toolMessages(stopped);
    assert.match(interrupted.content, /^TOOL ERROR: INTERRUPTED\n/);
    assert.equal((await suite.requests(threadId)).length, 1, "nothing restarts after Stop");

    const next = await suite.turn(threadId, "hello");
    assert.equal(next.status, "completed", JSON.stringify(next.error));
    assert.equal(next.rounds, 1);
    assert.equal(lastText(next), "You said: hello");
    const { requests, rounds } = await checkThread(threadId);
    assert.equal(requests.length, 2);
    assert.deepEqual(rounds[0], [interrupted.toolCallId]);
    assert.equal((await suite.calls()).length, 1, "the stopped call ran once");
  });
}


/**
 * A tool used in one turn and turned off before the next: the next turn must not offer it. The
 * runtime sends the thread's state without the server's copy of `tools`; `sendServerTools` sends
 * the state exactly as the server last sent it (what `@ag-ui/client` does). Returns what the
 * second turn cost: `{ rounds, requests, result }`.
 */
export async function turnedOff(suite, history, threadId, { sendServerTools = false } = {}) {
  await suite.createRuntime(threadId, { history, enable: ["get_time"], sendServerTools });
  const first = await suite.turn(threadId, "call get_time");
  assert.equal(first.status, "completed", JSON.stringify(first.error));
  assert.equal(first.rounds, 2);
  const state = await suite.page.evaluate((threadId) => window.rt.state(threadId), threadId);
  await suite.page.evaluate((threadId) => window.rt.setToolEnabled(threadId, "get_time", false), threadId);
  const before = (await suite.requests(threadId)).length;
  const second = await suite.turn(threadId, "call get_time");
  assert.equal(second.status, "completed", JSON.stringify(second.error));
  const requests = (await suite.requests(threadId)).slice(before);
  for (const { body } of requests) assert.deepEqual(body.tools, [], "the request offers no tool");
  checkRestarts(await suite.requests(threadId), history);
  return { rounds: second.rounds, requests, result: second, state };
}
