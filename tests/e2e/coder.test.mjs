// End-to-end: ChatRuntime on the Coder backend (`backend: { type: "coder" }`) in headless Chromium
// against the Coder mock of demo/agent (`/api/v2/chats`, same origin as the page). Each test
// scripts what the chat's model does (`/test/coder/setup`), runs turns through the public API
// (`run`, `abort`, `subscribe`, `messages`) with tools registered the way apps do (tools.json and
// `registerTool`), and checks both what the page saw and what the mock received
// (`/test/coder/chats/{id}`: tool-results POSTs, message POSTs, interrupts, streams).
// Needs `make build` and `cargo build -p chat-runtime-agent` (make test-e2e does both).
import { test } from "node:test";
import assert from "node:assert/strict";

import { settle, scriptedSuite, until } from "./harness.mjs";

// The package's Coder build (`chat-runtime/coder`): the AG-UI build has no Coder backend.
const { suite, api, inPage } = scriptedSuite({ page: "/runtime.html?build=coder" });

/** Any organization: the mock only checks that it is a UUID and not the nil one. */
const ORG = "0f1e2d3c-4b5a-4697-8877-665544332211";
const CHAT_ID = /^c0de0000-0000-4000-8000-\d+$/;
/** The second line of a failure's three-line `TOOL ERROR` text. */
const INTERRUPTED = /^TOOL ERROR: INTERRUPTED\n/;

// ---- the mock ---------------------------------------------------------------------------------

/** Scripts the next chat created whose first text contains `match` (or a chat by `chatId`). */
const setup = (body) => api("/test/coder/setup", body);
/** What the mock holds and received for a chat. */
const record = (chatId) => api(`/test/coder/chats/${chatId}`);
/** Every chat, in creation order. */
const chats = () => api("/test/coder/chats");
const inject = (chatId, events) => api("/test/coder/inject", { chatId, events });
/** The only chat the test created. */
async function onlyChat() {
  const list = await until("a chat", async () => {
    const all = await chats();
    return all.length > 0 && all;
  });
  assert.equal(list.length, 1, "one chat");
  return list[0].id;
}
const waitStatus = (chatId, status) =>
  until(`chat ${chatId} ${status}`, async () => {
    const r = await record(chatId);
    return r.chat.status === status && r;
  });

/** The mock's committed history as the AG-UI messages the runtime must show (docs/coder.md). */
function committed(messages) {
  const out = [];
  for (const m of messages) {
    const id = String(m.id);
    const text = m.content.filter((p) => p.type === "text").map((p) => p.text).join("");
    if (m.role === "user") out.push({ id, role: "user", content: text });
    if (m.role === "assistant") {
      const calls = m.content.filter((p) => p.type === "tool-call");
      out.push({
        id,
        role: "assistant",
        ...(text ? { content: text } : {}),
        ...(calls.length
          ? { toolCalls: calls.map((c) => ({ id: c.tool_call_id, type: "function", function: { name: c.tool_name, arguments: JSON.stringify(c.args ?? {}) } })) }
          : {}),
      });
    }
    if (m.role === "tool") {
      m.content
        .filter((p) => p.type === "tool-result")
        .forEach((p, i) => {
          const content = typeof p.result === "string" ? p.result : JSON.stringify(p.result);
          out.push({ id: i === 0 ? id : `${id}-${i}`, role: "tool", toolCallId: p.tool_call_id, content, ...(p.is_error ? { error: content } : {}) });
        });
    }
  }
  return norm(out);
}
/** Compares tool-call arguments as values (key order is the server's business). */
const norm = (messages) =>
  messages.map((m) =>
    m.toolCalls ? { ...m, toolCalls: m.toolCalls.map((c) => ({ ...c, function: { ...c.function, arguments: JSON.parse(c.function.arguments) } })) } : m,
  );

// ---- the page ---------------------------------------------------------------------------------

/**
 * Creates `window.rt` on the Coder backend: tools.json loaded, `enable`d as the new chat's
 * defaults (the tools of tools.json start off), the page's test tools of `register` registered
 * (on by default), every event collected in `window.events`, and each handler's run logged in
 * `window.ran` (`name:toolCallId`).
 */
async function coderRuntime({ enable = [], register = [], disable = [] } = {}) {
  await inPage(
    async (spec) => {
      window.events = [];
      window.ran = [];
      // Playwright hands an Error back with its name, message and stack only.
      window.plainResult = (r) => ({
        ...r,
        error: r.error && { code: r.error.code, message: r.error.message, status: r.error.status, details: r.error.details },
      });
      const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
      window.active = 0;
      window.maxActive = 0;
      let release;
      window.held = new Promise((done) => (release = done));
      window.release = release;
      const handlers = {
        // Overlap with each other: maxActive is 2 only if they run concurrently.
        overlap_a: async () => {
          window.maxActive = Math.max(window.maxActive, ++window.active);
          await sleep(300);
          window.active--;
          return { from: "a" };
        },
        overlap_b: async () => {
          window.maxActive = Math.max(window.maxActive, ++window.active);
          await sleep(300);
          window.active--;
          return { from: "b" };
        },
        cyclic: () => {
          const loop = { name: "loop" };
          loop.self = loop;
          return loop;
        },
        switched_off: () => "it ran",
        // 300,000 characters: over what coderd takes in one tool-results body (256 KiB).
        huge: () => "x".repeat(300_000),
        // Waits for the test's `window.release()`.
        hold: async () => {
          await window.held;
          return { held: true };
        },
        // Slower than the mock's deadline (tests set 100 ms).
        late: async () => {
          await sleep(500);
          return { late: true };
        },
        // Runs until Stop.
        stoppable: (args, ctx) =>
          new Promise((resolve, reject) => {
            window.stoppable = { threadId: ctx.threadId, aborted: false };
            ctx.signal.addEventListener("abort", () => {
              window.stoppable.aborted = true;
              reject(ctx.signal.reason);
            });
          }),
        // Never answers in the first page; answers in the page after the reload.
        reloaded: () => (window.reloadedAnswers ? { resumed: true } : new Promise(() => {})),
      };
      // The app's fetch: passes everything through, except that a test may make the next
      // `window.failResults` tool-results POSTs fail 500 before they reach the mock.
      window.failResults = 0;
      window.resultsAttempts = 0;
      const appFetch = (url, init) => {
        if (/\/tool-results$/.test(String(url))) {
          window.resultsAttempts++;
          if (window.failResults > 0) {
            window.failResults--;
            return Promise.resolve(new Response('{"message":"Internal error."}', { status: 500, headers: { "Content-Type": "application/json" } }));
          }
        }
        return fetch(url, init);
      };
      const rt = (window.rt = new ChatRuntime({
        backend: { type: "coder", baseUrl: "/api/v2", organizationId: spec.org },
        fetch: appFetch,
        toolsUrl: "/tools/tools.json",
        storage: localStorage,
      }));
      rt.subscribe((event) => window.events.push(event.type === "run_finished" && event.error ? { ...event, error: plainError(event.error) } : event));
      await rt.loadTools();
      for (const name of spec.register) {
        rt.registerTool({
          name,
          description: `The test tool ${name}.`,
          parameters: { type: "object", properties: {} },
          defaultEnabled: true,
          handler: (args, ctx) => {
            window.ran.push(`${name}:${ctx.toolCallId}`);
            return handlers[name](args, ctx);
          },
        });
      }
      for (const name of spec.enable) rt.setToolEnabled(null, name, true);
      for (const name of spec.disable) rt.setToolEnabled(null, name, false);
    },
    { org: ORG, enable, register, disable },
  );
}

/** `rt.run(request)` in the page, awaited (the result with a plain error, `window.plainResult`). */
const run = (request) => inPage(async (request) => window.plainResult(await window.rt.run(request)), request);
/** Starts `rt.run(request)` in the page; `finish()` awaits it. */
const start = (request) =>
  inPage((request) => {
    window.running = window.rt.run(request);
  }, request);
const finish = () => inPage(async () => window.plainResult(await window.running));

const user = (content, id = `u-${Math.random().toString(36).slice(2)}`) => ({ id, role: "user", content });
const pageMessages = (threadId) => inPage((id) => window.rt.messages(id), threadId);
const ran = () => inPage(() => window.ran);
const events = (type) => inPage((type) => window.events.filter((e) => e.type === type), type);
/** The tool log of tests/e2e/tools (the tools.json handlers log `tool:<name>:...` there). */
const toolLog = () => inPage(() => (globalThis.__log ?? []).filter((entry) => entry.startsWith("tool:")));

/** No message id twice, and no assistant text twice (a duplicated commit or stale partial). */
function assertNoDuplicates(messages) {
  const ids = messages.map((m) => m.id);
  assert.equal(new Set(ids).size, ids.length, `duplicate message ids: ${ids}`);
}

// ---- one call ---------------------------------------------------------------------------------

test("one call: create, requires_action, the tool runs in the page, one POST, the final text quotes it", async () => {
  await setup({ match: "what time", turns: [{ text: "Let me check.", calls: [{ id: "toolu_1", name: "get_browser_time", args: { format: "iso" } }] }, { quote: true }] });
  await coderRuntime({ enable: ["get_browser_time"] });
  assert.equal(await inPage(() => window.rt.backend), "coder", "the runtime says which backend it was made for");

  const result = await run({ messages: [user("what time is it?", "u1")] });
  assert.equal(result.status, "completed", JSON.stringify(result.error));
  const chatId = await onlyChat();
  assert.match(chatId, CHAT_ID);
  assert.equal(result.threadId, chatId, "the thread id is the chat id");
  assert.deepEqual(await toolLog(), ["tool:get_browser_time:iso"], "the tool ran once, in the page");

  const r = await record(chatId);
  assert.equal(r.chat.status, "waiting");
  assert.equal(r.chat.organization_id, ORG);
  assert.equal(r.toolResultPostCount, 1);
  assert.equal(r.toolResultPosts[0].status, 204);
  assert.deepEqual(r.toolResultPosts[0].body, { results: [{ tool_call_id: "toolu_1", output: "2026-01-01T12:00:00Z", is_error: false }] });
  assert.equal(r.messagePosts.length, 0, "the first message went with the create");
  assert.deepEqual(r.pendingCalls, []);

  // The messages as AG-UI 1.0 messages, ids the Coder message ids.
  const ids = r.messages.map((m) => String(m.id));
  const quote = 'I got: get_browser_time(toolu_1) = "2026-01-01T12:00:00Z".';
  assert.deepEqual(result.messages, [
    { id: ids[0], role: "user", content: "what time is it?" },
    { id: ids[1], role: "assistant", content: "Let me check.", toolCalls: [{ id: "toolu_1", type: "function", function: { name: "get_browser_time", arguments: '{"format":"iso"}' } }] },
    { id: ids[2], role: "tool", toolCallId: "toolu_1", content: "2026-01-01T12:00:00Z" },
    { id: ids[3], role: "assistant", content: quote },
  ]);
  assert.deepEqual(norm(await pageMessages(chatId)), committed(r.messages));
  const started = await events("tool_started");
  assert.deepEqual(started.map((e) => [e.threadId, e.toolCallId, e.toolName]), [[chatId, "toolu_1", "get_browser_time"]]);
  const finished = await events("run_finished");
  assert.deepEqual(finished.map((e) => [e.threadId, e.status]), [[chatId, "completed"]]);

  // A second turn posts to the same chat.
  const second = await run({ threadId: chatId, messages: [user("and again", "u2")] });
  assert.equal(second.status, "completed", JSON.stringify(second.error));
  assert.equal(second.threadId, chatId);
  assert.equal((await chats()).length, 1, "no second chat");
  const r2 = await record(chatId);
  assert.equal(r2.messagePosts.length, 1);
  assert.equal(r2.messagePosts[0].status, 200);
  assert.deepEqual(r2.messagePosts[0].body.content, [{ type: "text", text: "and again" }]);
  assert.equal(second.messages.at(-1).content, "Done.");
  assert.deepEqual(norm(second.messages), committed(r2.messages));
  assert.equal(r2.toolResultPostCount, 1, "nothing answered again");
});

// ---- parallel calls ---------------------------------------------------------------------------

test("parallel calls: both handlers run at once and are answered in ONE POST", async () => {
  await setup({ match: "both", turns: [{ calls: [{ id: "p1", name: "overlap_a" }, { id: "p2", name: "overlap_b" }] }, { quote: true }] });
  await coderRuntime({ register: ["overlap_a", "overlap_b"] });
  const result = await run({ messages: [user("both at once")] });
  assert.equal(result.status, "completed", JSON.stringify(result.error));
  assert.deepEqual((await ran()).sort(), ["overlap_a:p1", "overlap_b:p2"]);
  assert.equal(await inPage(() => window.maxActive), 2, "the handlers overlapped");

  const r = await record(result.threadId);
  assert.equal(r.toolResultPostCount, 1, "one POST for the batch");
  const results = r.toolResultPosts[0].body.results;
  assert.deepEqual(results.map((x) => x.tool_call_id).sort(), ["p1", "p2"]);
  assert.deepEqual(Object.fromEntries(results.map((x) => [x.tool_call_id, x.output])), { p1: { from: "a" }, p2: { from: "b" } });
  assert.match(result.messages.at(-1).content, /^I got: overlap_a\(p1\) = \{"from":"a"\}; overlap_b\(p2\) = \{"from":"b"\}\.$|^I got: overlap_b\(p2\) = \{"from":"b"\}; overlap_a\(p1\) = \{"from":"a"\}\.$/);
});

// ---- a disabled tool --------------------------------------------------------------------------

test("a tool switched off: declared at creation, never runs, answered is_error 'disabled in this chat'", async () => {
  await setup({ match: "toggles", turns: [{ calls: [{ id: "on1", name: "get_browser_time", args: { format: "iso" } }, { id: "off1", name: "switched_off" }] }, { quote: true }] });
  await coderRuntime({ enable: ["get_browser_time"], register: ["switched_off"], disable: ["switched_off"] });
  const listed = await inPage(() => window.rt.listTools(null).filter((t) => t.name === "switched_off").map((t) => t.enabled));
  assert.deepEqual(listed, [false]);

  const result = await run({ messages: [user("toggles test")] });
  assert.equal(result.status, "completed", JSON.stringify(result.error));
  assert.deepEqual(await ran(), [], "the switched-off handler never ran");
  assert.deepEqual(await toolLog(), ["tool:get_browser_time:iso"]);
  const r = await record(result.threadId);
  assert.equal(r.toolResultPostCount, 1);
  const byId = Object.fromEntries(r.toolResultPosts[0].body.results.map((x) => [x.tool_call_id, x]));
  assert.deepEqual(byId.on1, { tool_call_id: "on1", output: "2026-01-01T12:00:00Z", is_error: false });
  assert.equal(byId.off1.is_error, true);
  assert.match(byId.off1.output, /the tool switched_off is disabled in this chat/);
  const tool = result.messages.find((m) => m.role === "tool" && m.toolCallId === "off1");
  assert.match(tool.error, /disabled in this chat/);

  // Switched off for the thread after creation: the next call is answered the same way.
  await setup({ chatId: result.threadId, turns: [{ calls: [{ id: "on2", name: "get_browser_time", args: { format: "iso" } }] }, { quote: true }] });
  await inPage((id) => window.rt.setToolEnabled(id, "get_browser_time", false), result.threadId);
  const second = await run({ threadId: result.threadId, messages: [user("again")] });
  assert.equal(second.status, "completed", JSON.stringify(second.error));
  assert.deepEqual(await toolLog(), ["tool:get_browser_time:iso"], "not run the second time");
  const r2 = await record(result.threadId);
  assert.equal(r2.toolResultPostCount, 2);
  const [answer] = r2.toolResultPosts[1].body.results;
  assert.equal(answer.tool_call_id, "on2");
  assert.equal(answer.is_error, true);
  assert.match(answer.output, /the tool get_browser_time is disabled in this chat/);
});

// ---- built-in and dynamic ---------------------------------------------------------------------

test("a built-in call and a dynamic call in one step: only the dynamic one runs in the page", async () => {
  await setup({
    match: "mixed",
    turns: [
      {
        text: "Looking.",
        calls: [
          { id: "b1", name: "search_docs", builtin: true, args: { query: "toggles" }, result: { hits: 0 } },
          { id: "d1", name: "get_browser_time", args: { format: "iso" } },
        ],
      },
      { quote: true },
    ],
  });
  await coderRuntime({ enable: ["get_browser_time"] });
  const result = await run({ messages: [user("mixed step")] });
  assert.equal(result.status, "completed", JSON.stringify(result.error));
  assert.deepEqual(await toolLog(), ["tool:get_browser_time:iso"]);
  assert.deepEqual((await events("tool_started")).map((e) => e.toolCallId), ["d1"]);
  const r = await record(result.threadId);
  assert.equal(r.toolResultPostCount, 1);
  assert.deepEqual(r.toolResultPosts[0].body.results.map((x) => x.tool_call_id), ["d1"]);
  assert.equal(result.messages.at(-1).content, 'I got: search_docs(b1) = {"hits":0}; get_browser_time(d1) = "2026-01-01T12:00:00Z".');
  assert.deepEqual(norm(result.messages), committed(r.messages));
  const builtin = result.messages.find((m) => m.role === "tool" && m.toolCallId === "b1");
  assert.equal(builtin.content, '{"hits":0}');
});

// ---- failing handlers -------------------------------------------------------------------------

test("a throwing handler, a BigInt and a cyclic result: is_error in the one POST, the turn completes", async () => {
  await setup({ match: "fail", turns: [{ calls: [{ id: "e1", name: "throws" }, { id: "e2", name: "bigint" }, { id: "e3", name: "cyclic" }] }, { quote: true }] });
  await coderRuntime({ enable: ["throws", "bigint"], register: ["cyclic"] });
  const result = await run({ messages: [user("fail in every way")] });
  assert.equal(result.status, "completed", JSON.stringify(result.error));
  assert.deepEqual((await toolLog()).sort(), ["tool:bigint", "tool:throws"]);
  assert.deepEqual(await ran(), ["cyclic:e3"]);
  const r = await record(result.threadId);
  assert.equal(r.toolResultPostCount, 1);
  assert.equal(r.toolResultPosts[0].status, 204);
  const byId = Object.fromEntries(r.toolResultPosts[0].body.results.map((x) => [x.tool_call_id, x]));
  assert.deepEqual(Object.keys(byId).sort(), ["e1", "e2", "e3"]);
  for (const id of ["e1", "e2", "e3"]) {
    assert.equal(byId[id].is_error, true, id);
    assert.match(byId[id].output, /^TOOL ERROR: [A-Z_]+\n/, id);
  }
  assert.match(byId.e1.output, /the handler threw on purpose/);
  assert.match(result.messages.at(-1).content, /^I got: .*throws\(e1\) failed: .*bigint\(e2\) failed: .*cyclic\(e3\) failed: /);
});

// ---- dropped streams --------------------------------------------------------------------------

for (const [when, dropAfter] of [
  ["before the POST", "action_required"],
  ["after the POST", "tool_result"],
]) {
  test(`the stream dropped ${when} (dropAfter ${dropAfter}): one run, one POST, no duplicate`, async () => {
    await setup({ match: "drop", dropAfter: [dropAfter], turns: [{ text: "Let me check.", calls: [{ id: "k1", name: "get_browser_time", args: { format: "iso" } }] }, { quote: true }] });
    await coderRuntime({ enable: ["get_browser_time"] });
    const result = await run({ messages: [user("drop the stream")] });
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.deepEqual(await toolLog(), ["tool:get_browser_time:iso"], "the tool ran once");
    const r = await record(result.threadId);
    assert.equal(r.toolResultPostCount, 1);
    assert.equal(r.toolResultsAccepted, 1);
    assert.ok(r.streams.dropped >= 1, `dropped: ${JSON.stringify(r.streams)}`);
    assert.ok(r.streams.opened >= 2, `reconnected: ${JSON.stringify(r.streams)}`);
    const messages = await pageMessages(result.threadId);
    assertNoDuplicates(messages);
    assert.deepEqual(norm(messages), committed(r.messages));
    assert.equal(messages.at(-1).content, 'I got: get_browser_time(k1) = "2026-01-01T12:00:00Z".');
  });
}

// ---- the deadline -----------------------------------------------------------------------------

test("the server's deadline answers first while the tool is slow: nothing accepted, the run completes", async () => {
  await setup({ match: "deadline", deadlineMs: 100, turns: [{ calls: [{ id: "late1", name: "late" }] }, { quote: true }] });
  await coderRuntime({ register: ["late"] });
  const result = await run({ messages: [user("deadline test")] });
  assert.equal(result.status, "completed", JSON.stringify(result.error));
  assert.deepEqual(await ran(), ["late:late1"]);
  const r = await record(result.threadId);
  // The stream shows the server's answer before the handler is done: a POST is useless then,
  // and if one goes out it is refused 409 and not sent again.
  assert.ok(r.toolResultPostCount <= 1, `POSTs: ${JSON.stringify(r.toolResultPosts)}`);
  assert.ok(r.toolResultPosts.every((p) => p.status === 409));
  assert.equal(r.toolResultsAccepted, 0);
  assert.equal(result.messages.at(-1).content, 'I got: late(late1) failed: "Tool execution timed out".');
  const tool = result.messages.find((m) => m.role === "tool");
  assert.equal(tool.content, "Tool execution timed out");
  assert.equal(tool.error, "Tool execution timed out");
  assert.deepEqual(norm(result.messages), committed(r.messages));
});

test("409: the deadline passes while the stream is down; the late POST is refused once; the run completes", async () => {
  // The stream drops right after action_required, so the page cannot see the deadline's answer
  // before its handler is done (500 ms; the first reconnect waits longer): it POSTs, gets 409.
  await setup({ match: "deadline", deadlineMs: 100, dropAfter: ["action_required"], turns: [{ calls: [{ id: "late2", name: "late" }] }, { quote: true }] });
  await coderRuntime({ register: ["late"] });
  const result = await run({ messages: [user("deadline while down")] });
  assert.equal(result.status, "completed", JSON.stringify(result.error));
  assert.deepEqual(await ran(), ["late:late2"]);
  const r = await record(result.threadId);
  assert.equal(r.toolResultPostCount, 1, "the late POST is not sent again");
  assert.equal(r.toolResultPosts[0].status, 409);
  assert.deepEqual(r.toolResultPosts[0].body, { results: [{ tool_call_id: "late2", output: { late: true }, is_error: false }] });
  assert.equal(r.toolResultsAccepted, 0);
  assert.ok(r.streams.opened >= 2, `reconnected: ${JSON.stringify(r.streams)}`);
  assert.equal(result.messages.at(-1).content, 'I got: late(late2) failed: "Tool execution timed out".');
  assertNoDuplicates(result.messages);
  assert.deepEqual(norm(result.messages), committed(r.messages));
});

// ---- Stop -------------------------------------------------------------------------------------

test("Stop during a slow tool: aborted, the signal fires, no POST, two interrupts, the chat waits", async () => {
  // After the first interrupt the server's turn goes on (a slow step), so the second one hits
  // `running`.
  await setup({ match: "stop", turns: [{ calls: [{ id: "s1", name: "stoppable" }] }, { delayMs: 1500, text: "Too late." }] });
  await coderRuntime({ register: ["stoppable"] });
  await start({ messages: [user("stop me")] });
  const chatId = await onlyChat();
  await until("the handler", () => inPage(() => window.stoppable));
  assert.equal(await inPage(() => window.stoppable.threadId), chatId, "ctx.threadId is the chat id");
  await inPage((id) => window.rt.abort(id), chatId);
  const result = await finish();
  assert.equal(result.status, "aborted");
  assert.equal(result.threadId, chatId);
  assert.equal(await inPage(() => window.stoppable.aborted), true, "ctx.signal fired");
  const r = await waitStatus(chatId, "waiting");
  await settle(300);
  const after = await record(chatId);
  assert.equal(after.toolResultPostCount, 0, "no tool-results POST");
  assert.deepEqual(after.interrupts.map((i) => [i.status, i.from]), [
    [200, "requires_action"],
    [200, "running"],
  ]);
  assert.equal(after.chat.status, "waiting");
  assert.ok(!r.messages.some((m) => m.content.some((p) => p.text === "Too late.")), "the slow step was stopped");
  assert.equal(await inPage((id) => window.rt.isRunning(id), chatId), false);
  assertNoDuplicates(await pageMessages(chatId));
});

// ---- legacy framings --------------------------------------------------------------------------

for (const framing of ["envelope", "envelope-single"]) {
  test(`the ${framing} framing: the same outcome as the array framing`, async () => {
    await setup({ match: "framing", framing, turns: [{ text: "Let me check.", calls: [{ id: "f1", name: "get_browser_time", args: { format: "iso" } }] }, { quote: true }] });
    await coderRuntime({ enable: ["get_browser_time"] });
    const result = await run({ messages: [user("framing test")] });
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.deepEqual(await toolLog(), ["tool:get_browser_time:iso"]);
    const r = await record(result.threadId);
    assert.equal(r.toolResultPostCount, 1);
    assert.equal(r.toolResultPosts[0].status, 204);
    assert.deepEqual(r.toolResultPosts[0].body, { results: [{ tool_call_id: "f1", output: "2026-01-01T12:00:00Z", is_error: false }] });
    assert.deepEqual(
      result.messages.map((m) => m.role),
      ["user", "assistant", "tool", "assistant"],
    );
    assert.equal(result.messages.at(-1).content, 'I got: get_browser_time(f1) = "2026-01-01T12:00:00Z".');
    assert.deepEqual(norm(result.messages), committed(r.messages));
  });
}

// ---- resets -----------------------------------------------------------------------------------

test("preview_reset and history_reset: the messages end equal to the committed history, no stale text", async () => {
  await setup({ match: "resets", turns: [{ text: "Holding.", calls: [{ id: "h1", name: "hold" }] }, { quote: true }] });
  await coderRuntime({ register: ["hold"] });
  await start({ messages: [user("resets test")] });
  const chatId = await onlyChat();
  await until("the held call", async () => (await ran()).length === 1);
  const stale = "stale partial text";
  const hasStale = (messages) => messages.some((m) => typeof m.content === "string" && m.content.includes(stale));

  // A part of a generation the server then drops: shown while it streams, gone after the reset.
  await inject(chatId, [
    { type: "message_part", message_part: { role: "assistant", part: { type: "text", text: stale }, history_version: 99, generation_attempt: 1, seq: 0 } },
  ]);
  await until("the stale part shown", async () => hasStale(await pageMessages(chatId)));
  await inject(chatId, [{ type: "preview_reset" }]);
  await until("the stale part gone", async () => !hasStale(await pageMessages(chatId)));
  let r = await record(chatId);
  assert.deepEqual(norm(await pageMessages(chatId)), committed(r.messages));

  // The history sent again whole: nothing doubled.
  await inject(chatId, [{ type: "history_reset" }]);
  await settle(300);
  r = await record(chatId);
  const messages = await pageMessages(chatId);
  assertNoDuplicates(messages);
  assert.deepEqual(norm(messages), committed(r.messages));

  await inPage(() => window.release());
  const result = await finish();
  assert.equal(result.status, "completed", JSON.stringify(result.error));
  r = await record(chatId);
  assert.equal(r.toolResultPostCount, 1);
  assert.equal(hasStale(result.messages), false);
  assert.deepEqual(norm(result.messages), committed(r.messages));
  assert.equal(result.messages.at(-1).content, 'I got: hold(h1) = {"held":true}.');
});

// ---- errors and retries -----------------------------------------------------------------------

test("a chat error event ends the run error with code coder/error and its details", async () => {
  await setup({
    match: "error",
    turns: [{ text: "Thinking", error: { message: "The model provider is overloaded.", kind: "overloaded", retryable: true, provider: "anthropic", statusCode: 529 } }],
  });
  await coderRuntime();
  const result = await run({ messages: [user("error please")] });
  assert.equal(result.status, "error");
  assert.equal(result.error.code, "coder/error");
  assert.equal(result.error.message, "The model provider is overloaded.");
  assert.deepEqual(result.error.details, { kind: "overloaded", retryable: true, provider: "anthropic", statusCode: 529 });
  const finished = await events("run_finished");
  assert.deepEqual(finished.map((e) => [e.status, e.error?.code]), [["error", "coder/error"]]);
  assert.equal((await record(result.threadId)).chat.status, "error");

  // An injected error while the model works ends the next turn the same way; detail kept.
  await setup({ chatId: result.threadId, turns: [{ delayMs: 3000, text: "Never said." }] });
  await start({ threadId: result.threadId, messages: [user("again")] });
  await until("the turn running", async () => (await record(result.threadId)).chat.status === "running");
  await inject(result.threadId, [{ type: "error", error: { message: "Injected failure.", kind: "generic", detail: "upstream said no" } }]);
  const second = await finish();
  assert.equal(second.status, "error");
  assert.equal(second.error.code, "coder/error");
  assert.equal(second.error.message, "Injected failure.");
  assert.deepEqual(second.error.details, { kind: "generic", retryable: false, detail: "upstream said no" });
});

test("a retry event reaches a listener as a runtime `retry` event; the turn goes on", async () => {
  await setup({ match: "retry", turns: [{ delayMs: 1500, text: "Recovered." }] });
  await coderRuntime();
  await start({ messages: [user("retry please")] });
  const chatId = await onlyChat();
  await until("the stream open", async () => (await record(chatId)).streams.open >= 1);
  const retryingAt = "2026-01-01T12:00:01.000000Z";
  await inject(chatId, [
    { type: "retry", retry: { attempt: 1, delay_ms: 250, error: "overloaded_error: try again", kind: "overloaded", provider: "anthropic", status_code: 529, retrying_at: retryingAt } },
  ]);
  const result = await finish();
  assert.equal(result.status, "completed", JSON.stringify(result.error));
  assert.equal(result.messages.at(-1).content, "Recovered.");
  assert.deepEqual(await events("retry"), [
    { type: "retry", threadId: chatId, attempt: 1, delayMs: 250, error: "overloaded_error: try again", kind: "overloaded", provider: "anthropic", statusCode: 529, retryingAt },
  ]);
});

test("a refused REST call ends the run coder/http with the status and Coder's body", async () => {
  await api("/test/coder/auth", { token: "secret" });
  try {
    await coderRuntime();
    const result = await run({ messages: [user("no token")] });
    assert.equal(result.status, "error");
    assert.equal(result.error.code, "coder/http");
    assert.equal(result.error.status, 401);
    assert.equal(result.error.details.message, "You are signed out or your session has expired. Please sign in again to continue.");
    assert.equal(result.error.details.detail, 'Cookie "coder_session_token" or query parameter must be provided.');
    assert.deepEqual(await chats(), [], "no chat was created");
  } finally {
    await api("/test/coder/auth", { token: null });
  }
});

test("a member only AG-UI sends (state, context, ...) is refused run/bad-request, not dropped", async () => {
  await coderRuntime();
  const refused = await inPage(async (request) => {
    try {
      await window.rt.run(request);
      return null;
    } catch (error) {
      return { code: error.code, field: error.field };
    }
  }, { messages: [user("with state")], state: { a: 1 } });
  assert.deepEqual(refused, { code: "run/bad-request", field: "state" });
  assert.deepEqual(await chats(), [], "nothing was created");
});

// ---- reload in requires_action ----------------------------------------------------------------

/** A chat left in requires_action by a page that was reloaded before it answered. */
async function abandonedChat(match) {
  await setup({ match, turns: [{ text: "Let me check.", calls: [{ id: "r1", name: "reloaded" }] }, { quote: true }, { text: "Next answered." }] });
  await coderRuntime({ register: ["reloaded"] });
  await start({ messages: [user(`${match}: first`)] });
  const chatId = await onlyChat();
  await until("the call running in the first page", async () => (await ran()).length === 1);
  await suite.page.reload();
  await suite.page.waitForSelector("body[data-ready=true]", { state: "attached", timeout: 60_000 });
  await settle(300);
  const r = await record(chatId);
  assert.equal(r.chat.status, "requires_action", "the reload left the chat waiting for results");
  assert.equal(r.toolResultPostCount, 0);
  assert.deepEqual(r.interrupts, []);
  assert.deepEqual(r.pendingCalls.map((c) => c.tool_call_id), ["r1"]);
  return chatId;
}

test('reload in requires_action, pending: "run": the call runs once and is submitted before the new message', async () => {
  const chatId = await abandonedChat("reload-run");
  await coderRuntime({ register: ["reloaded"] });
  await inPage(() => (window.reloadedAnswers = true));
  const result = await run({ threadId: chatId, messages: [user("next")], pending: "run" });
  assert.equal(result.status, "completed", JSON.stringify(result.error));
  assert.deepEqual(await ran(), ["reloaded:r1"], "run once, in the new page");
  const r = await record(chatId);
  assert.equal(r.toolResultPostCount, 1);
  assert.deepEqual(r.toolResultPosts[0].body, { results: [{ tool_call_id: "r1", output: { resumed: true }, is_error: false }] });
  assert.equal(r.messagePosts.length, 1);
  assert.ok(r.toolResultPosts[0].atMs <= r.messagePosts[0].atMs, "the results went before the message");
  assert.deepEqual(r.pendingCalls, [], "no call left dangling");
  assert.equal(r.chat.status, "waiting");
  assert.equal(result.messages.at(-1).content, "Next answered.");
  assert.ok(result.messages.some((m) => m.role === "assistant" && m.content === "I got: reloaded(r1) = {\"resumed\":true}."));
  assertNoDuplicates(result.messages);
  assert.deepEqual(norm(result.messages), committed(r.messages));
});

test('reload in requires_action, pending: "settle": submitted is_error INTERRUPTED without running', async () => {
  const chatId = await abandonedChat("reload-settle");
  await coderRuntime({ register: ["reloaded"] });
  await inPage(() => (window.reloadedAnswers = true));
  const result = await run({ threadId: chatId, messages: [user("next")], pending: "settle" });
  assert.equal(result.status, "completed", JSON.stringify(result.error));
  assert.deepEqual(await ran(), [], "not run");
  const r = await record(chatId);
  assert.equal(r.toolResultPostCount, 1);
  const [answer] = r.toolResultPosts[0].body.results;
  assert.equal(answer.tool_call_id, "r1");
  assert.equal(answer.is_error, true);
  assert.match(answer.output, INTERRUPTED);
  assert.ok(r.toolResultPosts[0].atMs <= r.messagePosts[0].atMs, "the results went before the message");
  assert.deepEqual(r.pendingCalls, [], "no call left dangling");
  assert.equal(r.chat.status, "waiting");
  assert.equal(result.messages.at(-1).content, "Next answered.");
  assertNoDuplicates(result.messages);
  assert.deepEqual(norm(result.messages), committed(r.messages));
});

// ---- auth as a real coderd checks it (issue 36, point 1) ----------------------------------------

/** Signs the test's page in to the mock (the HttpOnly session cookie) and reloads it there. */
async function signIn(token) {
  await api("/test/coder/auth", { token });
  await suite.page.goto(`${suite.base}/test/coder/login?token=${token}&to=${encodeURIComponent("/runtime.html?build=coder")}`);
  await suite.page.waitForSelector("body[data-ready=true]", { state: "attached", timeout: 60_000 });
}

test("cookie mode: create, tool results, message and interrupt carry the page's CSRF token", async () => {
  try {
    await signIn("cookie-t");
    assert.ok(await inPage(() => document.querySelector('meta[property="csrf-token"]')?.content), "the signed-in page carries the token");
    await setup({
      match: "csrf:",
      turns: [{ text: "Let me check.", calls: [{ id: "c1", name: "get_browser_time", args: { format: "iso" } }] }, { quote: true }, { text: "Slow.", delayMs: 3000 }],
    });
    await coderRuntime({ enable: ["get_browser_time"] });
    const result = await run({ messages: [user("csrf: what time is it?")] });
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    const chatId = result.threadId;
    assert.deepEqual((await record(chatId)).toolResultPosts.map((p) => p.status), [204]);
    // A second turn, stopped while the model runs: the message POST and the interrupt.
    await start({ threadId: chatId, messages: [user("csrf: again")] });
    await until("the message posted", async () => (await record(chatId)).messagePosts.length === 1);
    await inPage((id) => window.rt.abort(id), chatId);
    assert.equal((await finish()).status, "aborted");
    const r = await until("the interrupt", async () => {
      const r = await record(chatId);
      return r.interrupts.length > 0 && r;
    });
    assert.deepEqual(r.messagePosts.map((p) => p.status), [200]);
    assert.deepEqual(r.interrupts.map((i) => i.status), [200]);
  } finally {
    await api("/test/coder/auth", { token: null });
  }
});

test("csrfToken: a function is called for every POST, a string is sent as it is", async () => {
  try {
    await signIn("cookie-t");
    await setup({ match: "fn:", turns: [{ text: "One.", calls: [{ id: "f1", name: "get_browser_time", args: { format: "iso" } }] }, { quote: true }] });
    const out = await inPage(async (org) => {
      const meta = document.querySelector('meta[property="csrf-token"]');
      const token = meta.content;
      meta.remove(); // only the option can give it now
      let calls = 0;
      const backend = { type: "coder", baseUrl: "/api/v2", organizationId: org };
      const rt = new ChatRuntime({ backend: { ...backend, csrfToken: () => (calls++, token) }, storage: null });
      await rt.loadTools();
      rt.setToolEnabled(null, "get_browser_time", true);
      const first = await rt.run({ messages: [{ id: "f-1", role: "user", content: "fn: what time is it?" }] });
      const wrong = new ChatRuntime({ backend: { ...backend, csrfToken: "bm90IHRoZSB0b2tlbg==" }, toolsUrl: null, storage: null });
      const refused = await wrong.run({ messages: [{ id: "w-1", role: "user", content: "a wrong token" }] });
      const throwing = new ChatRuntime({ backend: { ...backend, csrfToken: () => { throw new Error("no token here"); } }, toolsUrl: null, storage: null });
      const thrown = await throwing.run({ messages: [{ id: "t-1", role: "user", content: "a throwing token" }] });
      const right = new ChatRuntime({ backend: { ...backend, csrfToken: token }, toolsUrl: null, storage: null });
      const again = await right.run({ threadId: first.threadId, messages: [{ id: "r-1", role: "user", content: "fn: a string token" }] });
      return {
        calls,
        first: first.status,
        refused: { status: refused.status, code: refused.error?.code, httpStatus: refused.error?.status },
        thrown: { status: thrown.status, code: thrown.error?.code, cause: thrown.error?.cause?.message },
        again: again.status,
        chatId: first.threadId,
      };
    }, ORG);
    const r = await record(out.chatId);
    assert.deepEqual(
      { ...out, chatId: undefined },
      {
        calls: 2,
        first: "completed",
        refused: { status: "error", code: "coder/http", httpStatus: 400 },
        thrown: { status: "error", code: "run/network", cause: "no token here" },
        again: "completed",
        chatId: undefined,
      },
    );
    assert.equal(r.toolResultPosts.length + r.messagePosts.length, 2, "the create, one tool-results POST (the function's 2 calls) and the string's message");
    assert.equal((await chats()).length, 1, "the wrong token and the throwing function created nothing");
  } finally {
    await api("/test/coder/auth", { token: null });
  }
});

test("token mode: REST through the app's fetch without cookies, the header the only credential", async () => {
  try {
    await api("/test/coder/auth", { token: "tok-1" });
    // The page also holds an older Coder session cookie, which differs from the token.
    await inPage(() => {
      document.cookie = "coder_session_token=stale; path=/";
    });
    await setup({ match: "token mode", turns: [{ text: "Slow.", delayMs: 3000 }] });
    await inPage((org) => {
      window.seen = [];
      window.rt = new ChatRuntime({
        backend: { type: "coder", baseUrl: "/api/v2", organizationId: org, sessionToken: "tok-1" },
        toolsUrl: null,
        storage: null,
        // An auth proxy's wrapper: adds a header of its own, keeps ours.
        fetch: (url, init) => {
          window.seen.push({ url: String(url), method: init.method, credentials: init.credentials, token: init.headers?.["Coder-Session-Token"] });
          // The stream was refused (the stale cookie, below) and the runtime asks why: Stop
          // now, while the chat is busy, so the interrupt goes through here too.
          if (init.method === "GET" && /\/stream$/.test(String(url))) window.rt.abort(String(url).split("/").at(-2));
          return fetch(url, { ...init, headers: { ...init.headers, "X-Tenant": "7" } });
        },
      });
      window.running = window.rt.run({ messages: [{ id: "t-1", role: "user", content: "token mode" }] });
    }, ORG);
    const chatId = await onlyChat(); // the create passed coderd's CSRF check
    await inPage((id) => window.rt.abort(id), chatId);
    assert.equal(await inPage(async () => (await window.running).status), "aborted");
    const r = await until("the interrupt", async () => {
      const r = await record(chatId);
      return r.interrupts.length > 0 && r;
    });
    assert.equal(r.interrupts[0].status, 200);
    const seen = await inPage(() => window.seen);
    assert.ok(seen.length >= 2, JSON.stringify(seen));
    assert.match(seen[0].url, /\/api\/v2\/chats$/);
    assert.ok(seen.some((s) => /\/interrupt$/.test(s.url)), "the interrupt went through the app's fetch");
    for (const s of seen) assert.deepEqual([s.method, s.credentials, s.token], [/\/stream$/.test(s.url) ? "GET" : "POST", "omit", "tok-1"], s.url);
    // The stream cannot leave the cookie out: coderd takes the cookie before the query's token,
    // so a page holding another Coder session streams as that session (here: refused). docs/coder.md.
    assert.equal(r.streams.opened, 0, "the stale cookie refused the stream");
  } finally {
    await api("/test/coder/auth", { token: null });
  }
});

test("empty or whitespace-only text is refused run/bad-request, nothing is sent", async () => {
  await coderRuntime();
  const refused = (request) =>
    inPage(async (request) => {
      try {
        const result = await window.rt.run(request);
        return { status: result.status, code: result.error?.code };
      } catch (error) {
        return { code: error.code, field: error.field };
      }
    }, request);
  assert.deepEqual(await refused({ messages: [user("   \n\t")] }), { code: "run/bad-request", field: "messages[0].content" });
  assert.deepEqual(await refused({ messages: [user("")] }), { code: "run/bad-request", field: "messages[0].content" });
  assert.deepEqual(await refused({ messages: [user([{ type: "text", text: " " }])] }), { code: "run/bad-request", field: "messages[0].content" });
  assert.deepEqual(await chats(), [], "nothing was created");
  await setup({ match: "real text", turns: [{ text: "Hi." }, { text: "Next." }] });
  const first = await run({ messages: [user("real text")] });
  assert.equal(first.status, "completed", JSON.stringify(first.error));
  const chatId = first.threadId;
  assert.deepEqual(await refused({ threadId: chatId, messages: [user(" ")] }), { code: "run/bad-request", field: "messages[0].content" });
  assert.equal((await record(chatId)).messagePosts.length, 0, "nothing was posted");
  const next = await run({ threadId: chatId, messages: [user("next")] });
  assert.equal(next.status, "completed", JSON.stringify(next.error));
  assert.deepEqual((await record(chatId)).messagePosts.map((p) => p.status), [200]);
});

test("a non-UUID organizationId, and a token bound for another origin, are refused at construction", async () => {
  const made = await inPage((org) => {
    const make = (backend) => {
      try {
        new ChatRuntime({ backend: { type: "coder", baseUrl: "/api/v2", organizationId: org, ...backend }, toolsUrl: null, storage: null });
        return "ok";
      } catch (error) {
        return `${error.code} ${error.field}`;
      }
    };
    const other = "https://coder.example/api/v2";
    return {
      notUuid: make({ organizationId: "my-org" }),
      crossWithToken: make({ baseUrl: other, sessionToken: "t" }),
      crossAllowed: make({ baseUrl: other, sessionToken: "t", allowCrossOriginToken: true }),
      crossCookieMode: make({ baseUrl: other }),
      sameOriginAbsolute: make({ baseUrl: `${location.origin}/api/v2`, sessionToken: "t" }),
    };
  }, ORG);
  assert.deepEqual(made, {
    notUuid: "options/invalid backend.organizationId",
    crossWithToken: "options/invalid backend.baseUrl",
    crossAllowed: "ok",
    crossCookieMode: "ok",
    sameOriginAbsolute: "ok",
  });
});

// ---- turns end exactly once (issue 36, point 7, and the misbehaving coderd) --------------------

/** `rt.run(request)`, or `null` when it has not settled within `ms` (a hang, not a timeout error). */
const runWithin = (request, ms = 15_000) =>
  inPage(
    async ({ request, ms }) => {
      const late = new Promise((done) => setTimeout(() => done(null), ms));
      const result = await Promise.race([window.rt.run(request), late]);
      return result && window.plainResult(result);
    },
    { request, ms },
  );
/** The run `start` began, or `null` when it has not settled within `ms`. */
const finishWithin = (ms = 15_000) =>
  inPage(async (ms) => {
    const late = new Promise((done) => setTimeout(() => done(null), ms));
    const result = await Promise.race([window.running, late]);
    return result && window.plainResult(result);
  }, ms);

test("after Stop, the next turn on the chat waits for its answer: not ended by the first snapshot", async () => {
  await setup({ match: "stop then", turns: [{ calls: [{ id: "sn1", name: "stoppable" }] }, { delayMs: 1000, text: "Stopped anyway." }] });
  await coderRuntime({ register: ["stoppable"] });
  await start({ messages: [user("stop then ask again")] });
  const chatId = await onlyChat();
  await until("the handler", () => inPage(() => window.stoppable));
  await inPage((id) => window.rt.abort(id), chatId);
  assert.equal((await finish()).status, "aborted");
  // Stop owes two interrupts (the first finds `requires_action` and the chat goes on `running`):
  // the next message goes once both reached the chat and it waits. The stopped turn took its
  // scripted step when it started, so no step of it is left to answer the next turn.
  const stopped = await until("both interrupts in and the chat waiting", async () => {
    const r = await record(chatId);
    return r.interrupts.length === 2 && r.chat.status === "waiting" && r;
  });
  assert.equal(stopped.turnsLeft, 0, "the stopped turn's step is not left for the next turn");
  // The next answer is slow: a turn ended by the chat's first snapshot (`waiting`, the state
  // Stop left) would resolve before it.
  await setup({ chatId, turns: [{ delayMs: 500, text: "The real answer." }] });
  const next = await runWithin({ threadId: chatId, messages: [user("and now?")] });
  assert.ok(next, "the run settled");
  assert.equal(next.status, "completed", JSON.stringify(next.error));
  assert.equal(next.messages.at(-1).content, "The real answer.");
  const r = await record(chatId);
  assert.deepEqual(norm(next.messages), committed(r.messages));
});

test("an interrupt that never answers holds the next message 10 s at most: aborted, no second interrupt", async () => {
  await setup({ match: "held interrupt", holdInterrupts: 1, turns: [{ delayMs: 1500, text: "Slow anyway." }] });
  await coderRuntime();
  await start({ messages: [user("a held interrupt")] });
  const chatId = await onlyChat();
  await until("the chat's stream open", async () => (await record(chatId)).streams.opened >= 1);
  await inPage((id) => window.rt.abort(id), chatId);
  assert.equal((await finish()).status, "aborted");
  // The interrupt never reached the chat: the stopped turn ends on its own.
  await waitStatus(chatId, "waiting");
  await setup({ chatId, turns: [{ text: "The next answer." }] });
  const next = await runWithin({ threadId: chatId, messages: [user("and now?")] }, 25_000);
  assert.ok(next, "the run settled");
  assert.equal(next.status, "completed", JSON.stringify(next.error));
  assert.equal(next.messages.at(-1).content, "The next answer.");
  let held;
  await until("the held interrupt's connection closed", async () => {
    [held] = (await record(chatId)).interrupts;
    return held.closedAtMs !== undefined;
  }, 5_000);
  const r = await record(chatId);
  assert.deepEqual(r.interrupts.map((i) => [i.status, i.held === true]), [[null, true]], "one interrupt, held; no second");
  const post = r.messagePosts.at(-1);
  assert.ok(post.atMs - held.atMs >= 9_000, `the message ${post.atMs - held.atMs} ms after the interrupt: held until its deadline`);
  assert.ok(held.closedAtMs - held.atMs >= 9_000, `closed ${held.closedAtMs - held.atMs} ms after it was sent: at its deadline`);
  assert.ok(held.closedAtMs <= post.atMs + 1_000, `closed when the message went (${held.closedAtMs} vs ${post.atMs})`);
});

test("a turn whose status event never comes (quietStatus) ends from its answer and the chat's status", async () => {
  await setup({ match: "quiet", quietStatus: true, turns: [{ text: "Let me check.", calls: [{ id: "q1", name: "get_browser_time", args: { format: "iso" } }] }, { quote: true }] });
  await coderRuntime({ enable: ["get_browser_time"] });
  const first = await runWithin({ messages: [user("quiet: what time is it?")] });
  assert.ok(first, "the first turn settled (no `waiting` was published)");
  assert.equal(first.status, "completed", JSON.stringify(first.error));
  assert.equal(first.messages.at(-1).content, 'I got: get_browser_time(q1) = "2026-01-01T12:00:00Z".');
  const chatId = first.threadId;
  const second = await runWithin({ threadId: chatId, messages: [user("quiet: again")] });
  assert.ok(second, "the second turn settled");
  assert.equal(second.status, "completed", JSON.stringify(second.error));
  assert.equal(second.messages.at(-1).content, "Done.");
  const r = await record(chatId);
  assert.deepEqual(norm(second.messages), committed(r.messages));
  assert.equal(r.toolResultPostCount, 1);
});

test("a refused batch refreshed to calls already answered: their kept answers go at once", async () => {
  await setup({ match: "refresh", turns: [{ calls: [{ id: "h1", name: "hold" }] }, { quote: true }] });
  await coderRuntime({ register: ["hold", "overlap_a"] });
  await start({ messages: [user("refresh the batch")] });
  const chatId = await onlyChat();
  await until("the held call runs", async () => (await ran()).includes(`hold:h1`));
  // The batch grows by a call the chat does not owe: its POST is refused "Unexpected tool
  // result.", and the chat's batch, sent again, holds only h1, answered already.
  await inject(chatId, [{ type: "action_required", action_required: { tool_calls: [
    { tool_call_id: "h1", tool_name: "hold", args: "{}" },
    { tool_call_id: "z1", tool_name: "overlap_a", args: "{}" },
  ] } }]);
  await until("the extra call runs", async () => (await ran()).includes("overlap_a:z1"));
  await inPage(() => window.release());
  const result = await finishWithin();
  assert.ok(result, "the run settled");
  assert.equal(result.status, "completed", JSON.stringify(result.error));
  const r = await record(chatId);
  assert.deepEqual(r.toolResultPosts.map((p) => p.status), [400, 204]);
  assert.deepEqual(r.toolResultPosts[1].body, { results: [{ tool_call_id: "h1", output: { held: true }, is_error: false }] });
  assert.deepEqual((await ran()).sort(), ["hold:h1", "overlap_a:z1"], "nothing ran twice");
  assert.equal(result.messages.at(-1).content, 'I got: hold(h1) = {"held":true}.');
});

test("a batch that lists one call id twice: the call runs once, its answer goes, the run settles", async () => {
  // The model's step names the call twice: the chat's batch lists it twice.
  await setup({ match: "twice", turns: [{ calls: [{ id: "dup1", name: "overlap_a" }, { id: "dup1", name: "overlap_a" }] }, { quote: true }] });
  await coderRuntime({ register: ["overlap_a"] });
  await start({ messages: [user("the same id twice")] });
  const chatId = await onlyChat();
  const result = await finishWithin();
  assert.ok(result, "the run settled");
  assert.equal(result.status, "completed", JSON.stringify(result.error));
  assert.deepEqual(await ran(), ["overlap_a:dup1"], "the handler ran once");
  const r = await record(chatId);
  assert.equal(r.toolResultsAccepted, 1);
  assert.deepEqual(r.toolResultPosts.map((p) => p.body), [{ results: [{ tool_call_id: "dup1", output: { from: "a" }, is_error: false }] }]);
  assert.match(result.messages.at(-1).content, /^I got: overlap_a\(dup1\) = \{"from":"a"\}/);
});

test("a tool-results POST that fails twice: the chat's state is read again, the kept answer goes, run() settles", async () => {
  await setup({ match: "fails twice", turns: [{ calls: [{ id: "ft1", name: "overlap_a" }] }, { quote: true }] });
  await coderRuntime({ register: ["overlap_a"] });
  await inPage(() => (window.failResults = 2));
  const result = await runWithin({ messages: [user("the POST fails twice")] });
  assert.ok(result, "the run settled");
  assert.equal(result.status, "completed", JSON.stringify(result.error));
  assert.equal(await inPage(() => window.resultsAttempts), 3, "sent, sent again, then again after the re-read");
  assert.deepEqual(await ran(), ["overlap_a:ft1"], "the handler ran once");
  const r = await record(result.threadId);
  assert.deepEqual(r.toolResultPosts.map((p) => p.status), [204]);
  assert.equal(result.messages.at(-1).content, 'I got: overlap_a(ft1) = {"from":"a"}.');
});

// ---- reconnect like Coder's site (issue 36, point 4) -------------------------------------------

test("a 30 s coderd restart mid-generation, then mid-tool: the run goes on, the result is delivered once", async () => {
  await setup({ match: "restart", turns: [{ delayMs: 2000, text: "Let me check.", calls: [{ id: "r1", name: "hold" }] }, { quote: true }] });
  await coderRuntime({ register: ["hold"] });
  await start({ messages: [user("restart the server")] });
  const chatId = await onlyChat();
  await until("the stream is open", async () => (await record(chatId)).streams.open > 0);
  // Mid-generation: the model's step is still running.
  await api("/test/coder/restart", { ms: 30_000 });
  await until("the held call runs, after the restart", async () => (await ran()).includes("hold:r1"), 60_000);
  // Mid-tool: down again while the tool runs; its answer is ready while coderd is down.
  await api("/test/coder/restart", { ms: 30_000 });
  await settle(500);
  await inPage(() => window.release());
  const result = await finishWithin(90_000);
  assert.ok(result, "the run settled");
  assert.equal(result.status, "completed", JSON.stringify(result.error));
  assert.deepEqual(await ran(), ["hold:r1"], "the call ran once");
  const r = await record(chatId);
  assert.equal(r.toolResultsAccepted, 1, "the result delivered once");
  assert.equal(result.messages.at(-1).content, 'I got: hold(r1) = {"held":true}.');
  assertNoDuplicates(result.messages);
  assert.deepEqual(norm(result.messages), committed(r.messages));
});

// ---- why the stream failed (issue 36, point 5) -------------------------------------------------

test("a stream coderd refuses (404, 503, 401): the run ends coder/http with coderd's status and message, at once", async () => {
  await coderRuntime();
  /** A run in the page on `backend` (the test runtime's when omitted), timed; null after 15 s. */
  const timed = (request, backend = null) =>
    inPage(
      async ({ request, backend, org }) => {
        const rt = backend ? new ChatRuntime({ backend: { type: "coder", baseUrl: "/api/v2", organizationId: org, ...backend }, toolsUrl: null, storage: null }) : window.rt;
        const t0 = performance.now();
        const late = new Promise((done) => setTimeout(() => done(null), 15_000));
        const r = await Promise.race([rt.run(request), late]);
        return r && { status: r.status, code: r.error?.code, httpStatus: r.error?.status, message: r.error?.message, ms: performance.now() - t0 };
      },
      { request, backend, org: ORG },
    );
  const check = (out, status, message) => {
    assert.ok(out, "the run settled");
    assert.deepEqual([out.status, out.code, out.httpStatus], ["error", "coder/http", status], JSON.stringify(out));
    assert.match(out.message, message);
    assert.ok(out.ms < 3_000, `ended in ${Math.round(out.ms)} ms`);
  };

  check(await timed({ threadId: "c0de0000-0000-4000-8000-999999999999", messages: [user("anyone there?")] }), 404, /Resource not found/);

  await setup({ match: "gateway", turns: [{ text: "Hi." }] });
  const first = await run({ messages: [user("gateway test")] });
  assert.equal(first.status, "completed", JSON.stringify(first.error));
  await api("/test/coder/gateway", { enabled: false });
  try {
    check(await timed({ threadId: first.threadId, messages: [user("gateway off?")] }), 503, /AI Gateway must be enabled/);
  } finally {
    await api("/test/coder/gateway", { enabled: true });
  }

  await api("/test/coder/auth", { token: "right" });
  try {
    check(await timed({ threadId: first.threadId, messages: [user("who am I?")] }, { sessionToken: "wrong" }), 401, /signed out/);
  } finally {
    await api("/test/coder/auth", { token: null });
  }
  assert.equal((await record(first.threadId)).messagePosts.length, 0, "nothing was posted to a stream refused");
});

// ---- what Stop owes outlives the thread and the runtime (issue 36, "misbehaves") ---------------

test("what Stop owes is sent when the thread or the runtime goes: forgetThread, free() at requires_action, free() during the create", async () => {
  const chatTitled = (prefix) =>
    until(`the chat "${prefix}"`, async () => (await chats()).find((c) => c.title.startsWith(prefix))?.id);
  /** After the chat settles: its interrupts' `from`s, and whether the slow step's text got in. */
  const after = async (chatId, text) => {
    await waitStatus(chatId, "waiting");
    await settle(2_000);
    const r = await record(chatId);
    return { from: r.interrupts.map((i) => [i.status, i.from]), said: r.messages.some((m) => m.content.some((p) => p.text === text)) };
  };

  // Stop, then forgetThread before the first interrupt is answered.
  await setup({ match: "forget me", turns: [{ calls: [{ id: "fg1", name: "stoppable" }] }, { delayMs: 1000, text: "Too late." }] });
  await coderRuntime({ register: ["stoppable"] });
  await start({ messages: [user("forget me")] });
  const forgotten = await chatTitled("forget me");
  await until("the handler", () => inPage(() => window.stoppable));
  assert.equal(await inPage((id) => (window.rt.abort(id), window.rt.forgetThread(id)), forgotten), true);
  assert.equal((await finish()).status, "aborted");
  assert.deepEqual(await after(forgotten, "Too late."), { from: [[200, "requires_action"], [200, "running"]], said: false });

  // free() while the chat waits on the page's call.
  await setup({ match: "free at requires", turns: [{ calls: [{ id: "fr1", name: "stoppable" }] }, { delayMs: 1000, text: "Too late." }] });
  await coderRuntime({ register: ["stoppable"] });
  await inPage(() => (window.stoppable = undefined));
  await start({ messages: [user("free at requires_action")] });
  const freedAt = await chatTitled("free at requires");
  await until("the handler", () => inPage(() => window.stoppable));
  await inPage(() => window.rt.free());
  assert.equal((await finish()).status, "aborted");
  assert.deepEqual(await after(freedAt, "Too late."), { from: [[200, "requires_action"], [200, "running"]], said: false });

  // free() while the create is out: the chat it made is interrupted once it exists.
  await setup({ match: "free during", turns: [{ delayMs: 1000, text: "Never said." }] });
  await coderRuntime();
  await inPage((message) => {
    window.running = window.rt.run({ messages: [message] });
    window.rt.free();
  }, user("free during the create"));
  assert.equal((await finish()).status, "aborted");
  const freedCreate = await chatTitled("free during");
  assert.deepEqual(await after(freedCreate, "Never said."), { from: [[200, "running"]], said: false });
});

// ---- body caps (issue 36, point 2) -------------------------------------------------------------

test("a batch over 256 KiB: the result that does not fit is answered as an error naming the limit, the other goes", async () => {
  await setup({ match: "big batch", turns: [{ calls: [{ id: "big1", name: "huge" }, { id: "sm1", name: "overlap_a" }] }, { quote: true }] });
  await coderRuntime({ register: ["huge", "overlap_a"] });
  const result = await runWithin({ messages: [user("big batch please")] });
  assert.ok(result, "the run settled");
  assert.equal(result.status, "completed", JSON.stringify(result.error));
  const r = await record(result.threadId);
  assert.deepEqual(r.toolResultPosts.map((p) => p.status), [204], "no 413");
  const byId = Object.fromEntries(r.toolResultPosts[0].body.results.map((x) => [x.tool_call_id, x]));
  assert.equal(byId.big1.is_error, true);
  assert.match(byId.big1.output, /^TOOL ERROR: TOOL_RESULT_TOO_LARGE\n.*262144 bytes \(256 KiB\)/);
  assert.deepEqual(byId.sm1, { tool_call_id: "sm1", output: { from: "a" }, is_error: false });
});

test("a create body over 256 KiB is refused before anything is sent, naming the tools' total and the biggest", async () => {
  await coderRuntime();
  const out = await inPage(async () => {
    window.rt.registerTool({ name: "atlas", description: "d".repeat(300_000), parameters: { type: "object", properties: {} }, handler: () => 1 });
    try {
      const result = await window.rt.run({ messages: [{ id: "big-1", role: "user", content: "hello" }] });
      return { status: result.status, code: result.error?.code };
    } catch (error) {
      return { code: error.code, field: error.field, message: error.message };
    }
  });
  assert.equal(out.code, "run/bad-request", JSON.stringify(out));
  assert.equal(out.field, "tools");
  assert.match(out.message, /over Coder's 262144 \(256 KiB\): its \d+ tools take \d+ bytes; the biggest: atlas \(3000\d\d bytes\)/);
  assert.deepEqual(await chats(), [], "nothing was created");
});

// ---- schemas and names as coderd reads them (issue 36, point 3) --------------------------------

test("a browser tool named like a chatd built-in is not declared (tool/shadows-builtin) unless toolNamePrefix renames it; $refs resolved", async () => {
  await setup({ match: "builtin plain", turns: [{ text: "Hi." }] });
  await setup({ match: "builtin prefixed", turns: [{ calls: [{ id: "rf1", name: "ui_read_file" }] }, { quote: true }] });
  const out = await inPage(async (org) => {
    const make = (prefix) => {
      const diags = [];
      const rt = new ChatRuntime({ backend: { type: "coder", baseUrl: "/api/v2", organizationId: org }, toolsUrl: null, storage: null, ...(prefix ? { toolNamePrefix: prefix } : {}) });
      rt.subscribe((e) => e.type === "diagnostic" && diags.push({ code: e.diagnostic.code, name: e.diagnostic.name }));
      rt.registerTool({ name: "read_file", description: "The page's reader.", parameters: { type: "object", properties: {} }, defaultEnabled: true, handler: () => "page" });
      const place = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
      rt.registerTool({ name: "place", description: "Takes a place.", parameters: { type: "object", properties: { where: { $ref: "#/$defs/Place" } }, required: ["where"], $defs: { Place: place } }, defaultEnabled: true, handler: () => "ok" });
      return { rt, diags };
    };
    const plain = make(null);
    const r1 = await plain.rt.run({ messages: [{ id: "b-1", role: "user", content: "builtin plain" }] });
    const prefixed = make("ui_");
    const r2 = await prefixed.rt.run({ messages: [{ id: "b-2", role: "user", content: "builtin prefixed" }] });
    const brief = (r, diags) => ({ threadId: r.threadId, status: r.status, last: r.messages.at(-1)?.content, diags: diags.filter((d) => d.code === "tool/shadows-builtin") });
    return { plain: brief(r1, plain.diags), prefixed: brief(r2, prefixed.diags) };
  }, ORG);
  assert.equal(out.plain.status, "completed");
  assert.deepEqual(out.plain.diags, [{ code: "tool/shadows-builtin", name: "read_file" }]);
  const plain = await record(out.plain.threadId);
  assert.deepEqual(plain.createRequest.unsafe_dynamic_tools.map((t) => t.name), ["place"], "read_file not declared");
  // What the model sees (coderd keeps only the top-level properties): the $ref resolved.
  assert.deepEqual(plain.modelTools.find((t) => t.name === "place").input_schema.properties.where, { type: "object", properties: { city: { type: "string" } }, required: ["city"] });

  assert.equal(out.prefixed.status, "completed");
  assert.deepEqual(out.prefixed.diags, [], "renamed by the prefix: no conflict");
  const prefixed = await record(out.prefixed.threadId);
  assert.deepEqual(prefixed.createRequest.unsafe_dynamic_tools.map((t) => t.name).sort(), ["ui_place", "ui_read_file"]);
  assert.equal(out.prefixed.last, 'I got: ui_read_file(rf1) = "page".', "the page's read_file ran");
});

// ---- the SDK's surface (issue 36, point 8) -----------------------------------------------------

test("409 invalid state: recovered through reconcile-invalid, the message posted again, the turn answered", async () => {
  await setup({ match: "invalid state", turns: [{ text: "Hi." }, { text: "Recovered." }] });
  await coderRuntime();
  const first = await run({ messages: [user("invalid state test")] });
  assert.equal(first.status, "completed", JSON.stringify(first.error));
  await setup({ chatId: first.threadId, invalidState: true });
  const next = await runWithin({ threadId: first.threadId, messages: [user("after the invalid state")] });
  assert.ok(next, "the run settled");
  assert.equal(next.status, "completed", JSON.stringify(next.error));
  assert.equal(next.messages.at(-1).content, "Recovered.");
  const r = await record(first.threadId);
  assert.deepEqual(r.messagePosts.map((p) => p.status), [409, 200]);
});

test("creation options reach the create body; a message's busyBehavior interrupts a busy chat", async () => {
  const uuid = "1a2b3c4d-5e6f-4a1b-8c2d-3e4f5a6b7c8d";
  await setup({ match: "options test", turns: [{ text: "Hi." }, { delayMs: 4000, text: "Slow answer." }, { text: "Interrupted for you." }] });
  const out = await inPage(
    async ({ org, uuid }) => {
      const backend = { type: "coder", baseUrl: "/api/v2", organizationId: org };
      const rt = new ChatRuntime({
        backend: { ...backend, modelConfigId: uuid, systemPrompt: "Be brief.", workspaceId: uuid, labels: { team: "a" }, mcpServerIds: [uuid], reasoningEffort: "high", planMode: "plan" },
        toolsUrl: null,
        storage: null,
      });
      const first = await rt.run({ messages: [{ id: "o-1", role: "user", content: "options test" }] });
      // The chat is busy with a slow answer; another page's message interrupts it.
      const slow = rt.run({ threadId: first.threadId, messages: [{ id: "o-2", role: "user", content: "take your time" }] });
      await new Promise((done) => setTimeout(done, 800));
      const other = new ChatRuntime({ backend, toolsUrl: null, storage: null });
      const now = await other.run({ threadId: first.threadId, busyBehavior: "interrupt", messages: [{ id: "o-3", role: "user", content: "now, please" }] });
      await slow;
      let refused;
      try {
        await other.run({ threadId: first.threadId, busyBehavior: "later", messages: [{ id: "o-4", role: "user", content: "x" }] });
      } catch (error) {
        refused = `${error.code} ${error.field}`;
      }
      return { chatId: first.threadId, status: now.status, last: now.messages.at(-1)?.content, refused };
    },
    { org: ORG, uuid },
  );
  const r = await record(out.chatId);
  const { organization_id, content, ...options } = r.createRequest;
  assert.deepEqual(options, { model_config_id: uuid, system_prompt: "Be brief.", workspace_id: uuid, labels: { team: "a" }, mcp_server_ids: [uuid], reasoning_effort: "high", plan_mode: "plan" });
  assert.equal(out.status, "completed");
  assert.equal(out.last, "Interrupted for you.");
  assert.equal(r.messagePosts.at(-1).body.busy_behavior, "interrupt");
  assert.ok(!r.messages.some((m) => m.content.some((p) => p.text === "Slow answer.")), "the slow answer was interrupted");
  assert.equal(out.refused, "run/bad-request busyBehavior");
});

// ---- the last four points (issue 36, points 4 and 8, and the misbehaving coderd) ---------------

test("while the stream reconnects, the run's activity says so (attempt, wait); the stream back ends it", async () => {
  await setup({ match: "reconnecting", turns: [{ text: "Let me check.", calls: [{ id: "rc1", name: "hold" }] }, { quote: true }] });
  await coderRuntime({ register: ["hold"] });
  await start({ messages: [user("show reconnecting")] });
  const chatId = await onlyChat();
  await until("the held call runs", async () => (await ran()).includes("hold:rc1"));
  const before = (await events("activity")).length;
  await api("/test/coder/drop", { chatId });
  const marked = await until("an activity that says reconnecting", async () => {
    const all = (await events("activity")).slice(before);
    return all.find((e) => e.reconnecting !== undefined);
  });
  assert.equal(marked.threadId, chatId);
  assert.equal(marked.reconnecting, 1, "the first attempt in a row");
  assert.ok(marked.delayMs >= 700 && marked.delayMs <= 1300, `1 s ±30 %: ${marked.delayMs}`);
  await until("the stream is back", async () => (await record(chatId)).streams.open > 0);
  const back = await until("an activity after it without reconnecting", async () => {
    const all = (await events("activity")).slice(before);
    const at = all.indexOf(all.find((e) => e.reconnecting !== undefined));
    return all.slice(at + 1).find((e) => e.reconnecting === undefined && e.delayMs === undefined);
  });
  assert.equal(back.threadId, chatId);
  await inPage(() => window.release());
  const result = await finishWithin();
  assert.equal(result?.status, "completed", JSON.stringify(result?.error));
  assert.deepEqual(await ran(), ["hold:rc1"], "the call ran once");
});

test("the chat's title, queue_update and last_error reach a listener as events", async () => {
  await setup({ match: "surface", turns: [{ text: "Hi." }, { delayMs: 2500, text: "Slow answer." }, { text: "Queued answer." }] });
  await coderRuntime();
  const first = await run({ messages: [user("surface events please")] });
  assert.equal(first.status, "completed", JSON.stringify(first.error));
  const chatId = first.threadId;
  const title = (await chats())[0].title;
  // The create's answer names it (a status read, if the turn needed one, names it again).
  const titles = await events("title");
  assert.ok(titles.length >= 1, "a title event");
  for (const e of titles) assert.deepEqual(e, { type: "title", threadId: chatId, title });
  assert.equal(title, "surface events please");

  // A second page queues a message while the chat is busy: the first page's stream shows it.
  await start({ threadId: chatId, messages: [user("take your time")] });
  await until("the turn running", async () => (await record(chatId)).chat.status === "running");
  const queued = await inPage(async ({ org, chatId }) => {
    const other = new ChatRuntime({ backend: { type: "coder", baseUrl: "/api/v2", organizationId: org }, toolsUrl: null, storage: null });
    const r = await other.run({ threadId: chatId, busyBehavior: "queue", messages: [{ id: "q-1", role: "user", content: "queued please" }] });
    return r.status;
  }, { org: ORG, chatId });
  assert.equal(queued, "completed");
  await finishWithin();
  const updates = await events("queue_update");
  const withOne = updates.find((e) => e.queuedMessages.length === 1);
  assert.ok(withOne, `a queue_update with the queued message: ${JSON.stringify(updates)}`);
  assert.equal(withOne.threadId, chatId);
  assert.deepEqual(withOne.queuedMessages[0].content, [{ type: "text", text: "queued please" }]);

  // The chat's error, as a listener sees it beside the run's end.
  await setup({ chatId, turns: [{ delayMs: 3000, text: "Never said." }] });
  await start({ threadId: chatId, messages: [user("again")] });
  await until("the turn running", async () => (await record(chatId)).chat.status === "running");
  await inject(chatId, [{ type: "error", error: { message: "Injected failure.", kind: "generic", detail: "upstream said no" } }]);
  const failed = await finishWithin();
  assert.equal(failed?.error?.code, "coder/error");
  const errors = await events("last_error");
  assert.deepEqual(errors.at(-1), { type: "last_error", threadId: chatId, message: "Injected failure.", details: { kind: "generic", retryable: false, detail: "upstream said no" } });
});

test("a tool-results POST that never answers: counted failed after 10 s, sent again, run() settles", async () => {
  await setup({ match: "never answers", holdResults: 1, turns: [{ calls: [{ id: "na1", name: "overlap_a" }] }, { quote: true }] });
  await coderRuntime({ register: ["overlap_a"] });
  const result = await runWithin({ messages: [user("the POST never answers")] }, 25_000);
  assert.ok(result, "the run settled");
  assert.equal(result.status, "completed", JSON.stringify(result.error));
  assert.deepEqual(await ran(), ["overlap_a:na1"], "the handler ran once");
  const r = await record(result.threadId);
  assert.deepEqual(r.toolResultPosts.map((p) => [p.status, p.held === true]), [[null, true], [204, false]], "held, then sent again");
  const [held, again] = r.toolResultPosts;
  assert.deepEqual(again.body, held.body, "the same answer");
  assert.ok(again.atMs - held.atMs >= 9_000, `the second POST ${again.atMs - held.atMs} ms after the first`);
  assert.equal(r.toolResultsAccepted, 1);
  assert.equal(result.messages.at(-1).content, 'I got: overlap_a(na1) = {"from":"a"}.');
});

test("a tool-results POST that never answers is aborted at its deadline: its connection is closed, not kept", async () => {
  await setup({ match: "aborted at its deadline", holdResults: 1, turns: [{ calls: [{ id: "ab1", name: "overlap_a" }] }, { quote: true }] });
  await coderRuntime({ register: ["overlap_a"] });
  const result = await runWithin({ messages: [user("the POST is aborted at its deadline")] }, 25_000);
  assert.ok(result, "the run settled");
  assert.equal(result.status, "completed", JSON.stringify(result.error));
  // The mock drops its handler of the held POST when the client closes the request.
  let held;
  await until("the held POST's connection closed", async () => {
    [held] = (await record(result.threadId)).toolResultPosts;
    return held.closedAtMs !== undefined;
  }, 5_000);
  const [, again] = (await record(result.threadId)).toolResultPosts;
  const closedAfter = held.closedAtMs - held.atMs;
  assert.ok(closedAfter >= 9_000, `closed ${closedAfter} ms after it was sent: at its deadline, not before`);
  assert.ok(held.closedAtMs <= again.atMs + 1_000, `closed when it was sent again (${held.closedAtMs} vs ${again.atMs})`);
  assert.deepEqual(await ran(), ["overlap_a:ab1"], "the handler ran once");
});
