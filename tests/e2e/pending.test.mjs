// End-to-end: a browser call left without a result by a reload (docs/api.md, "Pending calls after a
// reload"), in the demo page (demo/, which keeps each thread's messages in localStorage and seeds
// them back with setMessages) against the REAL demo agent. The call's tool module is held back so
// the call is still pending when the page reloads; after the reload the app continues the turn
// through the public API with `pending: "run"`, or sends a new message (the default: "settle").
import { test } from "node:test";
import assert from "node:assert/strict";

import { demoSuite } from "./agent.mjs";

const TIMEOUT = 90_000;
const WAIT = 30_000;
const suite = demoSuite();

/**
 * Opens the demo, turns get_weather on for new chats, asks for the weather in Paris with the
 * tool's module held back, and reloads once the page saved the call. Returns the page, reloaded,
 * and the thread's id.
 */
async function reloadMidCall(context) {
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (error) => page.errors.push(error));
  await page.goto(`${suite.base}/`);
  await page.waitForSelector("body[data-ready=true]", { timeout: WAIT });
  await page.evaluate(() => window.chatRuntimeDemo.runtime.setToolEnabled(null, "get_weather", true));
  // The module never loads: the call stays pending.
  await page.route("**/tools/weather.js", () => {});
  await page.fill("#input", "What's the weather in Paris?");
  await page.click("#send");
  const threadId = await page.waitForFunction(() => {
    const id = JSON.parse(localStorage.getItem("chat-runtime-demo:current") ?? "null");
    const saved = JSON.parse(localStorage.getItem(`chat-runtime-demo:messages:${id}`) ?? "[]");
    return saved.some((m) => m.toolCalls?.some((c) => c.function.name === "get_weather")) && id;
  }, null, { timeout: WAIT }).then((handle) => handle.jsonValue());
  // Reload first, then let the module through: unrouted before the reload, the held import could
  // still finish on the old page and save a result, and the call would no longer be pending.
  await page.reload();
  await page.waitForSelector("body[data-ready=true]", { timeout: WAIT });
  await page.unroute("**/tools/weather.js");
  return { page, threadId };
}

const toolMessages = (messages) => messages.filter((m) => m.role === "tool");

test("after a reload mid-call, run({ pending: \"run\" }) runs the saved call once and the turn goes on", { timeout: TIMEOUT }, async () => {
  const context = await suite.browser.newContext();
  const { page, threadId } = await reloadMidCall(context);
  const restored = await page.evaluate((id) => window.chatRuntimeDemo.runtime.messages(id), threadId);
  assert.deepEqual(restored.map((m) => m.role), ["user", "assistant"], "the history came back without a result");

  const result = await page.evaluate(async (threadId) => {
    const rt = window.chatRuntimeDemo.runtime;
    const started = [];
    const off = rt.subscribe((e) => started.push(e.toolName), { events: ["tool_started"] });
    const result = await rt.run({ threadId, messages: [], pending: "run" });
    off();
    return { status: result.status, rounds: result.rounds, messages: result.messages, started };
  }, threadId);
  assert.equal(result.status, "completed");
  assert.equal(result.rounds, 1, "one request: the result, then the agent's answer");
  assert.deepEqual(result.started, ["get_weather"], "the saved call ran once");
  const [tool] = toolMessages(result.messages);
  assert.equal(JSON.parse(tool.content).temperatureC, 18);
  assert.equal(tool.toolCallId, restored[1].toolCalls[0].id);
  assert.match(result.messages.at(-1).content, /In Paris it is 18°C/);
  // The page shows it (it renders the open thread's `messages` events).
  await page.waitForFunction(() => [...document.querySelectorAll(".msg.assistant .bubble")].some((n) => /In Paris it is 18°C/.test(n.textContent)), null, { timeout: WAIT });

  // Run once: another run has nothing pending.
  const again = await page.evaluate(async (threadId) => {
    const rt = window.chatRuntimeDemo.runtime;
    const started = [];
    const off = rt.subscribe((e) => started.push(e.toolName), { events: ["tool_started"] });
    await rt.run({ threadId, messages: [{ id: "u2", role: "user", content: "hello" }], pending: "run" });
    off();
    return started;
  }, threadId);
  assert.deepEqual(again, []);
  const bad = await page.evaluate((threadId) => window.chatRuntimeDemo.runtime.run({ threadId, messages: [], pending: "later" }).then(
    () => null, (e) => ({ code: e.code, field: e.field })), threadId);
  assert.deepEqual(bad, { code: "run/bad-request", field: "pending" });
  assert.deepEqual(page.errors.map(String), []);
  await context.close();
});

test("after a reload mid-call, the next message settles the saved call INTERRUPTED by default", { timeout: TIMEOUT }, async () => {
  const context = await suite.browser.newContext();
  const { page, threadId } = await reloadMidCall(context);
  await page.click(`#threads button[data-thread-id="${threadId}"]`);
  await page.fill("#input", "hello");
  await page.click("#send");
  await page.waitForFunction((id) => {
    const saved = JSON.parse(localStorage.getItem(`chat-runtime-demo:messages:${id}`) ?? "[]");
    return saved.filter((m) => m.role === "user").length === 2 && saved.at(-1).role === "assistant";
  }, threadId, { timeout: WAIT });
  const messages = await page.evaluate((id) => window.chatRuntimeDemo.runtime.messages(id), threadId);
  const [tool] = toolMessages(messages);
  assert.match(tool.content, /INTERRUPTED/);
  assert.deepEqual(page.errors.map(String), []);
  await context.close();
});
