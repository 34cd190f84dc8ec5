// The React app (demo/react: Vite + React 19, <StrictMode>, chat-runtime/react) on the packed
// tarball, in headless Chromium against the REAL demo agent (demo mode; a test that needs AG-UI
// state queues a scripted answer for its thread). The Vite dev server runs it (development React:
// StrictMode double-renders and double-mounts) and proxies /api, /tools and /test to the agent.
// One more test serves the production build through the agent itself. The page's modes: a thread
// (?thread=), a new chat (no thread), a chat behind a button (?home: lazy start), the app's own
// runtime handed to the provider (?runtime), and the Coder backend (?backend=coder, against the
// agent's Coder mock, /api/v2/chats; ?keepNull: the app keeps calling useThread(null)).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";

import { startAgent, stopAgent } from "../e2e/agent.mjs";
import { launch } from "../e2e/browser.mjs";
import { ROOT, WAIT, installFixture, run, startViteDev } from "./helpers.mjs";

let fixture, browser, agent, agentUrl, stopDev, devUrl;

before(async () => {
  [fixture, browser, { child: agent, url: agentUrl }] = await Promise.all([
    installFixture(join(ROOT, "demo/react")),
    launch(),
    startAgent({ paceMs: 15, statics: ["/tools=demo/tools"], timeoutMs: WAIT }),
  ]);
  ({ url: devUrl, stop: stopDev } = await startViteDev(fixture.dir, agentUrl));
});

after(async () => {
  await browser?.close();
  await stopDev?.();
  await stopAgent(agent);
  fixture?.cleanup();
});

// ---- helpers ------------------------------------------------------------------------------------

let threads = 0;
const freshThread = () => `react-${process.pid}-${Date.now()}-${++threads}`;

/** A fresh context (its own localStorage) with the app on a thread of its own. */
async function openApp(base = devUrl, { query = "" } = {}) {
  const context = await browser.newContext();
  const thread = freshThread();
  const page = await openThread(context, base, thread, query);
  return { context, page, thread };
}

async function openThread(context, base, thread, query = "") {
  const page = await newPage(context);
  await page.goto(`${base}/?thread=${thread}${query}`);
  await page.waitForSelector(".app[data-ready=true] input[data-tool=get_weather]", { timeout: WAIT });
  return page;
}

async function newPage(context) {
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(String(e)));
  // Console errors (a failed request is reported by the browser itself, and some tests fail runs).
  page.on("console", (m) => m.type() === "error" && !/^Failed to load resource/.test(m.text()) && page.errors.push(`console: ${m.text()}`));
  return page;
}

async function done({ context, page }) {
  assert.deepEqual(page.errors, [], "no uncaught errors in the page");
  await context.close();
}

/** Sends a message and waits for the run to end; returns the status line's data-status. */
async function say(page, text) {
  const before = await page.$$eval("#messages > li", (l) => l.length);
  await page.fill("#input", text);
  await page.click("#send");
  await page.waitForFunction((n) => document.querySelectorAll("#messages > li").length > n, before, { timeout: WAIT });
  await page.waitForSelector("#status[data-running=false]", { timeout: WAIT });
  return page.getAttribute("#status", "data-status");
}

const lastAssistantText = (page) =>
  page.$$eval("#messages > li[data-role=assistant] .text", (els) => els.at(-1)?.textContent ?? "");

const toolTexts = (page) => page.$$eval("#messages > li[data-role=tool]", (els) => els.map((el) => el.textContent));

async function requests(thread, base = agentUrl) {
  const res = await fetch(`${base}/test/requests?threadId=${encodeURIComponent(thread)}`);
  return res.json();
}

async function script(thread, responses, base = agentUrl) {
  const res = await fetch(`${base}/test/script`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ threadId: thread, responses }),
  });
  assert.equal(res.status, 200, await res.text());
}

const toolNames = (request) => (request.body.tools ?? []).map((t) => t.name).sort();

const activeCount = (page, n) =>
  page.waitForFunction((n) => document.querySelector("#active-count").textContent === String(n), n, { timeout: WAIT });

// ---- tests ----------------------------------------------------------------------------------------

test("toggles: a tool that is off makes the agent say so; switched on, it runs and the answer uses it", async () => {
  const app = await openApp();
  const { page, thread } = app;
  assert.equal(await page.isChecked("input[data-tool=get_weather]"), false, "frontend tools start off");
  assert.equal(await page.textContent("#active-count"), "0");

  assert.equal(await say(page, "What's the weather in Paris?"), "completed");
  assert.match(await lastAssistantText(page), /^I can't check the weather: the get_weather tool is turned off/);
  let sent = await requests(thread);
  assert.equal(sent.length, 1, "one run request for the send");
  assert.deepEqual(toolNames(sent[0]), []);

  await page.check("input[data-tool=get_weather]");
  await activeCount(page, 1);
  assert.equal(await say(page, "What's the weather in Paris?"), "completed");
  assert.equal(await lastAssistantText(page), "In Paris it is 18°C and partly cloudy.");
  sent = await requests(thread);
  assert.equal(sent.length, 3, "the second send: one run plus one restart with the tool result");
  assert.deepEqual(toolNames(sent[1]), ["get_weather"]);
  await done(app);
});

test("new chat (useThread(null)): toggle stores made after the catalog loaded work; the first run starts a thread the handle then shows", async () => {
  // The catalog is loaded for the first thread; the user opens a new chat, as in any chat app. The
  // toggle store of the new chat (null: chat:tools:default) and later the one of the thread its run
  // starts are both created after loadTools settled (issue 18, point 1: setEnabled was undefined).
  const app = await openApp();
  const { page } = app;
  await page.click("#new-chat");
  await page.waitForSelector('.app[data-thread=""][data-ready=true] input[data-tool=get_weather]:not(:checked)', { timeout: WAIT });
  assert.equal(new URL(page.url()).searchParams.get("thread"), null);
  assert.equal(await page.$$eval("#messages > li", (l) => l.length), 0, "a new chat has no messages");

  await page.check("input[data-tool=get_weather]");
  await activeCount(page, 1);
  const defaults = await page.evaluate(() => localStorage.getItem("chat:tools:default"));
  assert.deepEqual(JSON.parse(defaults), { get_weather: true }, "the new chat's toggle is saved as the default");

  assert.equal(await say(page, "What's the weather in Paris?"), "completed");
  const thread = await page.getAttribute(".app", "data-thread");
  assert.match(thread, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, "a random UUID");
  assert.equal(new URL(page.url()).searchParams.get("thread"), thread, "the app took the id");
  assert.equal(await lastAssistantText(page), "In Paris it is 18°C and partly cloudy.", "the thread started from the default toggles");
  const sent = await requests(thread);
  assert.equal(sent.length, 2);
  assert.deepEqual(toolNames(sent[0]), ["get_weather"]);
  assert.deepEqual(
    await page.$$eval("#messages > li", (els) => els.map((el) => el.dataset.role)),
    ["user", "assistant", "tool", "assistant"],
    "the handle shows the new thread",
  );

  // The thread's own toggle store (created after the catalog loaded, too).
  await page.waitForSelector("input[data-tool=get_weather]:checked", { timeout: WAIT });
  await page.check("input[data-tool=calculate]");
  await activeCount(page, 2);
  const saved = await page.evaluate((t) => localStorage.getItem(`chat:tools:${t}`), thread);
  assert.deepEqual(JSON.parse(saved), { get_weather: true, calculate: true });
  assert.equal(await say(page, "Calculate 2+3*4"), "completed");
  assert.equal(await lastAssistantText(page), "2+3*4 = 14.");
  assert.equal((await requests(thread)).length, 4, "the second send went to the same thread");

  // Another new chat: empty again, the defaults untouched by the thread's toggles.
  await page.click("#new-chat");
  await page.waitForSelector('.app[data-thread=""]', { timeout: WAIT });
  assert.equal(await page.$$eval("#messages > li", (l) => l.length), 0);
  assert.equal(await page.isChecked("input[data-tool=calculate]"), false);
  await done(app);
});

// ---- the Coder backend: useThread(null) creates a chat ---------------------------------------------

const CHAT_ID = /^c0de0000-0000-4000-8000-\d+$/;

/** What the agent's Coder mock holds and received for a chat (`/test/coder/chats/{id}`). */
async function coderChat(chatId, base = agentUrl) {
  const res = await fetch(`${base}/test/coder/chats/${chatId}`);
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text);
}

/** The texts of a Coder message's text parts, joined. */
const coderText = (message) => message.content.filter((p) => p.type === "text").map((p) => p.text).join("");

/**
 * A new chat on a Coder runtime (`?backend=coder`), as a user goes: switch a page tool on before the
 * first message (the defaults, `useToolToggles(null)`), ask, see the answer; then ask again.
 */
async function coderNewChat(query) {
  const context = await browser.newContext();
  const page = await newPage(context);
  await page.goto(`${devUrl}/?backend=coder${query}`);
  await page.waitForSelector('.app[data-thread=""][data-ready=true] input[data-tool=get_weather]:not(:checked)', { timeout: WAIT });
  await page.check("input[data-tool=get_weather]");
  await activeCount(page, 1);
  assert.deepEqual(JSON.parse(await page.evaluate(() => localStorage.getItem("chat:tools:default"))), { get_weather: true });

  // The thread the handle shows, each time it changes (a MutationObserver: the provisional id
  // shows for the length of the create request only).
  await page.evaluate(() => {
    const app = document.querySelector(".app");
    window.__shownThreads = [app.dataset.thread];
    new MutationObserver(() => {
      if (window.__shownThreads.at(-1) !== app.dataset.thread) window.__shownThreads.push(app.dataset.thread);
    }).observe(app, { attributes: true, attributeFilter: ["data-thread"] });
  });
  assert.equal(await say(page, "What's the weather in Paris?"), "completed");
  const chatId = await page.getAttribute(".app", "data-thread");
  assert.match(chatId, CHAT_ID, "the handle's threadId is the chat's id");
  const shownThreads = await page.evaluate(() => window.__shownThreads);
  assert.equal(shownThreads[0], "", "a new chat");
  assert.equal(shownThreads.at(-1), chatId);
  assert.ok(shownThreads.length <= 3, `"" -> the provisional id -> the chat's: ${shownThreads}`);
  assert.equal(await lastAssistantText(page), "In Paris it is 18°C and partly cloudy.", "the page tool ran and the chat's answer shows");
  assert.deepEqual(
    await page.$$eval("#messages > li", (els) => els.map((el) => el.dataset.role)),
    ["user", "assistant", "tool", "assistant"],
    "the first message's run, all of it, in the handle (the store moved to the chat's id with its messages)",
  );
  assert.deepEqual(await page.evaluate(() => window.__chatTrace.runs), ["completed"]);
  assert.equal((await page.evaluate(() => window.__chatTrace.toolRuns)).length, 1, "the tool ran once (StrictMode)");

  let record = await coderChat(chatId);
  assert.equal(record.chat.organization_id, "0de00000-0000-4000-8000-000000000001");
  assert.equal(coderText(record.messages[0]), "What's the weather in Paris?", "the first message went with the create");
  assert.equal(record.messagePosts.length, 0);
  assert.equal(record.toolResultPostCount, 1);
  assert.equal(record.toolResultPosts[0].body.results[0].is_error ?? false, false, "the chat adopted the defaults: get_weather is on in it");
  // The page's message ids are the chat's.
  const ids = await page.$$eval("#messages > li", (els) => els.map((el) => el.dataset.id));
  assert.deepEqual(ids, record.messages.map((m) => String(m.id)));
  // The chat's toggles are its own from now on (adopted from the defaults).
  await page.waitForSelector("input[data-tool=get_weather]:checked", { timeout: WAIT });
  assert.deepEqual(JSON.parse(await page.evaluate((t) => localStorage.getItem(`chat:tools:${t}`), chatId)), { get_weather: true });

  // The second message from the same hook posts to the same chat.
  assert.equal(await say(page, "What's the weather in Tokyo?"), "completed");
  assert.equal(await page.getAttribute(".app", "data-thread"), chatId);
  record = await coderChat(chatId);
  assert.equal(record.messagePosts.length, 1, "one message POST to the chat");
  assert.equal(record.messagePosts[0].status, 200);
  assert.deepEqual(record.messagePosts[0].body.content, [{ type: "text", text: "What's the weather in Tokyo?" }]);
  assert.equal(record.toolResultPostCount, 2);
  const shown = await page.$$eval("#messages > li", (els) => els.map((el) => el.dataset.id));
  assert.deepEqual(shown, record.messages.map((m) => String(m.id)), "the handle shows the chat's whole history");
  assert.deepEqual(await page.evaluate(() => window.__chatTrace.runs), ["completed", "completed"]);
  return { context, page, chatId };
}

test("coder: useThread(null)'s first message creates a chat, the page tool runs, the handle's threadId becomes the chat's, the next message posts to it", async () => {
  // The app keeps calling useThread(null) (?keepNull): the hook itself follows the chat.
  const app = await coderNewChat("&keepNull");
  assert.equal(new URL(app.page.url()).searchParams.get("thread"), null, "the app never passed an id");
  await done(app);
});

test("coder: an app that passes the handle's threadId back (router) follows the provisional id to the chat's", async () => {
  // The demo app puts the handle's threadId in its URL and passes it to useThread: first the id the
  // run goes by, then the chat's. Both reach the same store.
  const app = await coderNewChat("");
  assert.equal(new URL(app.page.url()).searchParams.get("thread"), app.chatId, "the app took the chat's id");
  // A hook given the chat's id works as on AG-UI: a page opened on it posts to the chat.
  const other = await newPage(app.context);
  await other.goto(`${devUrl}/?backend=coder&thread=${app.chatId}`);
  await other.waitForSelector(`.app[data-thread="${app.chatId}"][data-ready=true] input[data-tool=get_weather]:checked`, { timeout: WAIT });
  assert.equal(await say(other, "What's the weather in Paris?"), "completed");
  assert.equal(await other.getAttribute(".app", "data-thread"), app.chatId);
  assert.equal((await coderChat(app.chatId)).messagePosts.length, 2, "the other page's message went to the same chat");
  assert.deepEqual(other.errors, []);
  await done(app);
});

test("toggles made in another tab show up without a reload", async () => {
  const app = await openApp();
  const other = await openThread(app.context, devUrl, app.thread);
  await other.check("input[data-tool=calculate]");
  await app.page.waitForSelector("input[data-tool=calculate]:checked", { timeout: WAIT });
  assert.equal(await app.page.textContent("#active-count"), "1");
  assert.deepEqual(other.errors, []);
  await done(app);
});

test("StrictMode: one run request per send and per round, each tool executed once, multi-round answer", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await page.check("input[data-tool=get_weather]");
  await page.check("input[data-tool=get_browser_time]"); // the provider's `tools` (code)
  await activeCount(page, 2);

  assert.equal(await say(page, "What time is it and what's the weather in Paris?"), "completed");
  const answer = await lastAssistantText(page);
  assert.match(answer, /^Your browser says it is .+\. In Paris it is 18°C and partly cloudy\.$/);
  assert.match(await page.textContent("#status"), /completed \(2 rounds\)/);

  const sent = await requests(thread);
  assert.equal(sent.length, 2, "exactly one request for the send and one for the restart");
  const toolMessages = sent[1].body.messages.filter((m) => m.role === "tool");
  assert.equal(toolMessages.length, 2, "the restart carries the two results, once each");
  const runs = await page.evaluate(() => window.__chatTrace.toolRuns);
  assert.equal(runs.length, 2, `each tool executed once: ${runs}`);
  assert.deepEqual([...new Set(runs)].sort(), toolMessages.map((m) => m.toolCallId).sort());

  // A second turn on the same thread: the history goes on, still one request per round.
  await page.check("input[data-tool=calculate]");
  assert.equal(await say(page, "Calculate 2+3*4"), "completed");
  assert.equal(await lastAssistantText(page), "2+3*4 = 14.");
  assert.equal((await requests(thread)).length, 4);
  assert.equal((await page.evaluate(() => window.__chatTrace.toolRuns)).length, 3);
  await done(app);
});

test("memo: earlier messages keep their identity and do not re-render while a later one streams", async () => {
  const app = await openApp();
  const { page } = app;
  await page.check("input[data-tool=get_weather]");
  await page.evaluate(() => (window.__chatTrace.renders.length = 0));
  assert.equal(await say(page, "What's the weather in Paris?"), "completed");

  const ids = await page.$$eval("#messages > li", (els) => els.map((el) => [el.dataset.role, el.dataset.id]));
  assert.deepEqual(ids.map(([role]) => role), ["user", "assistant", "tool", "assistant"]);
  const renders = await page.evaluate(() => window.__chatTrace.renders);
  const last = ids.at(-1)[1];
  const firstOfLast = renders.indexOf(last);
  assert.ok(firstOfLast >= 0);
  const lastRenders = renders.filter((id) => id === last).length;
  // StrictMode renders twice per update in development: more than 2 renders = several updates.
  assert.ok(lastRenders > 2, `the final answer streamed over several renders (${lastRenders})`);
  const earlier = new Set(ids.slice(0, -1).map(([, id]) => id));
  const rerendered = renders.slice(firstOfLast).filter((id) => earlier.has(id));
  assert.deepEqual(rerendered, [], "no earlier message rendered again while the answer streamed");
  await done(app);
});

test("applyMessages (from chat-runtime and chat-runtime/react): merge by id, unchanged objects and the list itself kept", async () => {
  const app = await openApp();
  const { page } = app;
  const checks = await page.evaluate(() => {
    const { main, react } = window.__chatTrace.applyMessages;
    const a = { id: "a", role: "user", content: "hi" };
    const b = { id: "b", role: "assistant", content: "Hel" };
    const prev = [a, b];
    const b2 = { id: "b", role: "assistant", content: "Hello" };
    const grown = main(prev, [b2]);
    const c = { id: "c", role: "assistant", content: "more", toolCalls: [] };
    const appended = main(grown, [c, { ...b2 }]);
    return {
      sameFunction: main === react,
      nothing: main(prev, []) === prev,
      equalContent: main(prev, [{ ...a }, { id: "b", role: "assistant", content: "Hel" }]) === prev,
      grownIsNew: grown !== prev && prev[1] === b,
      grownKeeps: grown[0] === a && grown[1] === b2 && grown.length === 2,
      appended: appended.length === 3 && appended[0] === a && appended[1] === b2 && appended[2] === c,
      nested: main([c], [{ id: "c", role: "assistant", content: "more", toolCalls: [] }])[0] === c,
    };
  });
  assert.deepEqual(checks, {
    sameFunction: true,
    nothing: true,
    equalContent: true,
    grownIsNew: true,
    grownKeeps: true,
    appended: true,
    nested: true,
  });

  // The app's own store, fed from a real stream's `messages` events: the user's message keeps its
  // object through every update while the answer streams; it ends equal to the hook's messages.
  await page.check("input[data-tool=get_weather]");
  await page.evaluate(() => (window.__chatTrace.mirrors.length = 0));
  assert.equal(await say(page, "What's the weather in Paris?"), "completed");
  await page.waitForFunction(() => document.querySelector("#mirror-count").textContent === "4", null, { timeout: WAIT });
  const mirror = await page.evaluate(() => {
    const all = window.__chatTrace.mirrors;
    const user = all[0][0];
    return {
      updates: all.length,
      userKept: all.every((list) => list[0] === user),
      ids: all.at(-1).map((m) => m.id),
      shown: [...document.querySelectorAll("#messages > li")].map((el) => el.dataset.id),
    };
  });
  assert.ok(mirror.updates > 3, `several updates while the answer streamed (${mirror.updates})`);
  assert.equal(mirror.userKept, true, "the unchanged user message kept its object");
  assert.deepEqual(mirror.ids, mirror.shown);
  await done(app);
});

test("abort: Stop during a tool that waits for the user (useFrontendTool, timeoutMs: null) ends the run aborted, the card goes away", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await page.check("input[data-tool=confirm_action]");
  await page.fill("#input", "Please delete all my notes.");
  await page.click("#send");
  await page.waitForSelector(".confirm", { timeout: WAIT });
  assert.match(await page.textContent(".confirm"), /delete all my notes/);
  await page.click("#stop");
  await page.waitForSelector("#status[data-running=false][data-status=aborted]", { timeout: WAIT });
  await page.waitForSelector(".confirm", { state: "detached", timeout: WAIT });
  const tool = await page.$$eval("#messages > li[data-role=tool]", (els) => els.map((el) => [el.dataset.error, el.textContent]));
  assert.equal(tool.length, 1);
  assert.equal(tool[0][0], "true");
  assert.match(tool[0][1], /^TOOL ERROR: INTERRUPTED/);
  assert.equal((await requests(thread)).length, 1, "nothing restarted after Stop");
  assert.equal((await page.evaluate(() => window.__chatTrace.toolRuns)).length, 1);
  await done(app);
});

test("unmount: a provider that made its runtime from options frees it; a run waiting for the user settles aborted and nothing more is sent", async () => {
  const app = await openApp(devUrl, { query: "&unmountable" });
  const { page, thread } = app;
  await page.check("input[data-tool=confirm_action]");
  await page.fill("#input", "Please delete all my notes.");
  await page.click("#send");
  await page.waitForSelector(".confirm", { timeout: WAIT });
  await page.click("#unmount");
  await page.waitForSelector(".app", { state: "detached", timeout: WAIT });
  await page.waitForFunction(() => window.__chatTrace.runs.length === 1, null, { timeout: WAIT });
  assert.deepEqual(await page.evaluate(() => window.__chatTrace.runs), ["aborted"]);
  assert.equal((await requests(thread)).length, 1, "nothing restarted after the unmount");
  await done(app);
});

test("confirm: the approval card answers the agent (Yes)", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await page.check("input[data-tool=confirm_action]");
  await page.fill("#input", "Please delete all my notes.");
  await page.click("#send");
  await page.click(".confirm .confirm-yes", { timeout: WAIT });
  await page.waitForSelector("#status[data-running=false][data-status=completed]", { timeout: WAIT });
  assert.match(await lastAssistantText(page), /^Done: /);
  assert.equal((await requests(thread)).length, 2);
  await done(app);
});

test("useFrontendTool: the handler sees the component's latest state; the tool is unregistered on unmount", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await page.check("input[data-tool=set_theme]");
  // The state changes after the tool was registered: the handler must see "dark", not the "light"
  // it was registered with.
  await page.click("#theme-toggle");
  await page.waitForSelector('.app[data-theme="dark"]');
  assert.equal(await say(page, "Switch to light mode please"), "completed");
  await page.waitForSelector('.app[data-theme="light"]', { timeout: WAIT });
  assert.deepEqual(await page.evaluate(() => window.__chatTrace.themeCalls), [{ previous: "dark", next: "light" }]);
  assert.deepEqual(toolNames((await requests(thread))[0]), ["set_theme"]);

  await page.click("#theme-toggle"); // dark again
  assert.equal(await say(page, "Now dark mode"), "completed");
  assert.equal(await say(page, "And light mode again"), "completed");
  assert.deepEqual(
    (await page.evaluate(() => window.__chatTrace.themeCalls)).slice(1),
    [
      { previous: "dark", next: "dark" },
      { previous: "dark", next: "light" },
    ],
  );

  // Unmounted: gone from the catalog (the tool menu) and from what a run offers.
  await page.uncheck("#theme-tool");
  await page.waitForSelector("input[data-tool=set_theme]", { state: "detached", timeout: WAIT });
  const before = (await requests(thread)).length;
  assert.equal(await say(page, "Switch to dark mode"), "completed");
  assert.match(await lastAssistantText(page), /^I can't switch the theme: the set_theme tool is turned off/);
  const sent = await requests(thread);
  assert.equal(sent.length, before + 1);
  assert.deepEqual(toolNames(sent.at(-1)), []);
  assert.equal((await page.evaluate(() => window.__chatTrace.themeCalls)).length, 3, "the handler did not run");

  // Mounted again: registered again, and its saved toggle still on.
  await page.check("#theme-tool");
  await page.waitForSelector("input[data-tool=set_theme]:checked", { timeout: WAIT });
  await done(app);
});

test("useAgentState: the thread's state re-renders on state events while the run streams", async () => {
  const app = await openApp();
  const { page, thread } = app;
  assert.equal(await page.textContent("#agent-state"), "");
  const ev = (type, fields) => ({ type, ...fields });
  await script(thread, [
    {
      delayMs: 400,
      events: [
        ev("RUN_STARTED", { threadId: thread, runId: "s1" }),
        ev("STATE_SNAPSHOT", { snapshot: { step: 1, items: ["a"] } }),
        ev("STATE_DELTA", { delta: [{ op: "replace", path: "/step", value: 2 }, { op: "add", path: "/items/-", value: "b" }] }),
        ev("TEXT_MESSAGE_START", { messageId: "m1", role: "assistant" }),
        ev("TEXT_MESSAGE_CONTENT", { messageId: "m1", delta: "State set." }),
        ev("TEXT_MESSAGE_END", { messageId: "m1" }),
        ev("RUN_FINISHED", { threadId: thread, runId: "s1" }),
      ],
    },
  ]);
  await page.fill("#input", "Set some state");
  await page.click("#send");
  // Before the run ends: the snapshot, then the delta applied (compared as JSON values: the
  // runtime's objects need not keep the keys in the server's order).
  const stateIs = (expected) =>
    page.waitForFunction(
      (expected) => {
        const text = document.querySelector("#agent-state").textContent;
        const canon = (v) => JSON.stringify(v, (_, x) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort()) : x));
        return text !== "" && canon(JSON.parse(text)) === canon(expected);
      },
      expected,
      { timeout: WAIT },
    );
  await stateIs({ step: 1, items: ["a"] });
  assert.equal(await page.getAttribute("#status", "data-running"), "true", "the snapshot showed while the run went on");
  await stateIs({ step: 2, items: ["a", "b"] });
  assert.equal(await page.getAttribute("#status", "data-running"), "true", "the delta showed while the run went on");
  await page.waitForSelector("#status[data-running=false][data-status=completed]", { timeout: WAIT });
  assert.deepEqual(JSON.parse(await page.textContent("#agent-state")), { step: 2, items: ["a", "b"] });
  assert.equal(await lastAssistantText(page), "State set.");
  await done(app);
});

test("stalled: a stream of only STATE_DELTA / STEP events is live; silence past stalledAfter shows the notice until the next event", async () => {
  const context = await browser.newContext();
  const thread = freshThread();
  const page = await openThread(context, devUrl, thread, "&stalledAfter=1500");
  const app = { context, page };
  // Every change of the notice, as the page shows it.
  await page.evaluate(() => {
    window.stallLog = [];
    new MutationObserver(() => {
      const shown = document.getElementById("stalled") !== null;
      if (shown !== (window.stallLog.at(-1) ?? false)) window.stallLog.push(shown);
    }).observe(document.body, { childList: true, subtree: true });
  });
  const ev = (type, fields) => ({ type, ...fields });
  const busy = [ev("RUN_STARTED", { threadId: thread, runId: "s1" }), ev("STATE_SNAPSHOT", { snapshot: { step: 0 } })];
  for (let n = 1; n <= 20; n++) {
    busy.push(ev("STEP_STARTED", { stepName: `s${n}` }), ev("STATE_DELTA", { delta: [{ op: "replace", path: "/step", value: n }] }), ev("STEP_FINISHED", { stepName: `s${n}` }));
  }
  busy.push(ev("RUN_FINISHED", { threadId: thread, runId: "s1" }));
  // 62 events 80 ms apart (5 s, no message): live all along, never stalled.
  await script(thread, [{ delayMs: 80, events: busy }]);
  assert.equal(await say(page, "Work quietly."), "completed", await page.textContent("#status"));
  assert.deepEqual(await page.evaluate(() => window.stallLog), [], "no stall notice while state and step events stream");

  // 4 s of silence before each event: the notice shows, goes at the next event, shows again.
  await script(thread, [{ delayMs: 4000, events: [ev("RUN_STARTED", { threadId: thread, runId: "s2" }), ev("STATE_SNAPSHOT", { snapshot: { step: "slow" } }), ev("RUN_FINISHED", { threadId: thread, runId: "s2" })] }]);
  assert.equal(await say(page, "Work slowly."), "completed", await page.textContent("#status"));
  const log = await page.evaluate(() => window.stallLog);
  assert.deepEqual(log.slice(0, 4), [true, false, true, false], JSON.stringify(log));
  assert.equal(await page.$("#stalled"), null, "no notice once the run is over");
  await done(app);
});

test("a failed run: `error` is a ChatRuntimeError with the run's code and status", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await script(thread, [{ status: 503, contentType: "application/json", body: '{"error":"overloaded"}' }]);
  assert.equal(await say(page, "Hello"), "error");
  assert.equal(await page.getAttribute("#status .error", "data-code"), "run/http");
  assert.equal(await page.getAttribute("#status .error", "data-http-status"), "503");
  assert.match(await page.textContent("#status .error"), /run\/http: /);
  const shape = await page.evaluate(() => {
    const { lastError, ChatRuntimeError } = window.__chatTrace;
    return { instance: lastError instanceof ChatRuntimeError, name: lastError.name, code: lastError.code, status: lastError.status };
  });
  assert.deepEqual(shape, { instance: true, name: "ChatRuntimeError", code: "run/http", status: 503 });
  await done(app);
});

test("a fetch that throws (an auth wrapper's 401): `error` is run/http with that status and the thrown value as cause", async () => {
  const app = await openApp();
  const { page, thread } = app;
  await page.evaluate(() => {
    class FetchError extends Error {
      constructor(status) {
        super(`HTTP ${status}`);
        this.status = status;
      }
    }
    window.__chatTrace.thrown = window.__chatTrace.failFetch = new FetchError(401);
  });
  assert.equal(await say(page, "Hello"), "error");
  const shape = await page.evaluate(() => {
    const { lastError, ChatRuntimeError, thrown } = window.__chatTrace;
    return { instance: lastError instanceof ChatRuntimeError, code: lastError.code, status: lastError.status, cause: lastError.cause === thrown };
  });
  assert.deepEqual(shape, { instance: true, code: "run/http", status: 401, cause: true });
  assert.equal((await requests(thread)).length, 0, "nothing reached the server");
  // The next send goes through.
  assert.equal(await say(page, "Hello"), "completed");
  assert.equal(await page.$$eval("#status .error", (e) => e.length), 0, "the error is cleared");
  await done(app);
});

test("lazy start: no wasm request until a hook needs the runtime; a run sent while the wasm loads waits and succeeds", async () => {
  const context = await browser.newContext();
  const page = await newPage(context);
  const thread = freshThread();
  const wasm = [];
  let release;
  const held = new Promise((resolve) => (release = resolve));
  await page.route(
    (url) => url.pathname.endsWith(".wasm"),
    async (route) => {
      wasm.push(route.request().url());
      await held;
      await route.continue();
    },
  );
  await page.goto(`${devUrl}/?home&thread=${thread}`);
  await page.waitForSelector("#open-chat", { timeout: WAIT });
  await page.waitForLoadState("networkidle");
  await page.waitForTimeout(500);
  assert.deepEqual(wasm, [], "the provider alone fetched no wasm");

  await page.click("#open-chat");
  await page.waitForSelector(".app[data-ready=false]", { timeout: WAIT });
  const deadline = Date.now() + WAIT;
  while (wasm.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.equal(wasm.length, 1, "the chat's hooks started the runtime");
  assert.match(wasm[0], /chat_runtime_bg.*\.wasm/);

  // The wasm is still on its way: the user sends.
  await page.fill("#input", "What's the weather in Paris?");
  await page.click("#send");
  await page.waitForSelector("#status[data-running=true]", { timeout: WAIT });
  await page.waitForTimeout(300);
  assert.equal((await requests(thread)).length, 0, "nothing sent before the runtime exists");
  assert.equal(await page.getAttribute(".app", "data-ready"), "false");

  release();
  await page.waitForSelector("#status[data-running=false]", { timeout: WAIT });
  assert.equal(await page.getAttribute("#status", "data-status"), "completed");
  assert.equal(await page.$$eval("#status .error", (e) => e.length), 0, "no error");
  assert.match(await lastAssistantText(page), /^I can't check the weather: the get_weather tool is turned off/);
  const sent = await requests(thread);
  assert.equal(sent.length, 1, "one request, sent once the runtime (and tools.json) were ready");
  assert.ok(await page.isVisible(".app[data-ready=true] input[data-tool=get_weather]"));
  assert.equal(wasm.length, 1, "the wasm was fetched once");
  assert.deepEqual(page.errors, []);
  await context.close();
});

test("build and load=\"demand\": the app's build (the same AG-UI module) loads only at load(); the runtime works", async () => {
  const context = await browser.newContext();
  const page = await newPage(context);
  const thread = freshThread();
  const wasm = [];
  page.on("request", (r) => r.url().endsWith(".wasm") && wasm.push(r.url()));
  await page.goto(`${devUrl}/?thread=${thread}&build=same&load=demand`);
  await page.waitForSelector("#runtime[data-status=idle]", { timeout: WAIT });
  await page.waitForLoadState("networkidle");
  await page.waitForTimeout(500);
  assert.deepEqual(wasm, [], "the hooks mounted and nothing was fetched");
  assert.equal(await page.evaluate(() => window.__chatTrace.builds), 0, "the build was not asked for");
  assert.equal(await page.getAttribute(".app", "data-ready"), "false");

  await page.click("#load");
  await page.waitForSelector("#runtime[data-status=ready]", { timeout: WAIT });
  await page.waitForSelector(".app[data-ready=true] input[data-tool=get_weather]", { timeout: WAIT });
  assert.equal(await page.evaluate(() => window.__chatTrace.builds), 1, "the provider loaded the app's build once");
  assert.equal(wasm.length, 1, "its wasm, once");
  assert.equal(await say(page, "What time is it?"), "completed");
  assert.match(await lastAssistantText(page), /get_browser_time tool is turned off/, "the agent answered (the tool starts off)");
  assert.equal((await requests(thread)).length, 1);
  assert.deepEqual(await page.evaluate(() => window.__chatTrace.errors), []);
  await done({ context, page });
});

test("a build that fails to load: the provider renders its children, the hooks and onError report it, load() retries and recovers", async () => {
  const context = await browser.newContext();
  const page = await newPage(context);
  const thread = freshThread();
  await page.goto(`${devUrl}/?thread=${thread}&build=fail`);
  await page.waitForSelector("#runtime[data-status=failed]", { timeout: WAIT });
  assert.equal(await page.getAttribute("#runtime", "data-code"), "react/start-failed");
  // The app's tree is there (no error boundary took it), and the hooks say why the chat is not.
  assert.ok(await page.isVisible("#input"), "the chat's children render");
  assert.equal(await page.getAttribute(".app", "data-ready"), "false");
  await page.waitForSelector(".tools .error, .error", { timeout: WAIT });
  assert.deepEqual(await page.evaluate(() => window.__chatTrace.errors), ["react/start-failed"], "onError, once");

  await page.click("#load");
  await page.waitForSelector("#runtime[data-status=ready]", { timeout: WAIT });
  assert.equal(await page.getAttribute("#runtime", "data-code"), "", "the error went with the recovery");
  await page.waitForSelector(".app[data-ready=true] input[data-tool=get_weather]", { timeout: WAIT });
  assert.equal(await page.evaluate(() => window.__chatTrace.builds), 2, "one failed load, one retry");
  assert.equal(await say(page, "What time is it?"), "completed");
  await done({ context, page });
});

test("provider with the app's runtime: it is the one the hooks use, its tools are registered in it, a remount keeps the thread, an unmount neither frees it nor leaves tools behind", async () => {
  const app = await openApp(devUrl, { query: "&runtime" });
  const { page, thread } = app;
  const registered = () =>
    page.evaluate(() => window.__appRuntime.listTools(null).filter((t) => t.source === "frontend").map((t) => t.name).sort());
  assert.deepEqual(await registered(), ["calculate", "confirm_action", "get_browser_time", "get_weather", "set_theme"]);
  await page.check("input[data-tool=get_weather]");
  assert.equal(await say(page, "What's the weather in Paris?"), "completed");
  assert.equal(await lastAssistantText(page), "In Paris it is 18°C and partly cloudy.");
  assert.equal(await page.evaluate((t) => window.__appRuntime.messages(t).length, thread), 4, "the run went through the app's runtime");

  // A new provider on the same runtime: the thread is still there.
  await page.click("#remount");
  await page.waitForSelector(".app[data-ready=true] input[data-tool=get_weather]:checked", { timeout: WAIT });
  await page.waitForFunction(() => document.querySelectorAll("#messages > li").length === 4, null, { timeout: WAIT });
  assert.equal(await say(page, "Calculate 2+3*4"), "completed");
  assert.match(await lastAssistantText(page), /^I can't calculate that/);

  // Unmounted: the code tools are unregistered from the app's runtime, which still works.
  await page.click("#unmount");
  await page.waitForSelector(".app", { state: "detached", timeout: WAIT });
  await page.waitForFunction(
    () => window.__appRuntime.listTools(null).every((t) => !["set_theme", "confirm_action", "get_browser_time"].includes(t.name)),
    null,
    { timeout: WAIT },
  );
  assert.deepEqual(await registered(), ["calculate", "get_weather"]);
  assert.equal(await page.evaluate((t) => window.__appRuntime.messages(t).length, thread), 6, "not freed: the thread is there");
  await page.click("#unmount");
  await page.waitForFunction(() => document.querySelectorAll("#messages > li").length === 6, null, { timeout: WAIT });
  await done(app);
});

test("history: a thread whose last useThread (given a history) unmounts is forgotten, toggles kept, and seeded again on mount; one without history is kept", async () => {
  const context = await browser.newContext();
  const thread = freshThread();
  const owned = `${thread}-owned`;
  const kept = `${thread}-kept`;
  const page = await newPage(context);
  await page.goto(`${devUrl}/?thread=${thread}&history`);
  const shows = (id, ids) =>
    page.waitForFunction(
      ([id, ids]) => JSON.stringify([...document.querySelectorAll(`ul[data-thread="${id}"] li`)].map((li) => li.textContent)) === JSON.stringify(ids),
      [id, ids],
      { timeout: WAIT },
    );
  const inRuntime = (id) => page.evaluate((id) => window.__appRuntime.messages(id).map((m) => m.id), id);
  const toggles = (id) =>
    page.evaluate((id) => ({ tools: window.__appRuntime.listTools(id).map((t) => [t.name, t.enabled]), saved: localStorage.getItem(`chat:tools:${id}`) }), id);
  const forgotten = (id) => page.waitForFunction((id) => window.__appRuntime.messages(id).length === 0, id, { timeout: WAIT });

  await shows(owned, ["h1", "h2"]);
  await page.waitForSelector(`ul[data-thread="${kept}"][data-ready=true]`, { state: "attached", timeout: WAIT });
  // The kept thread's messages are the runtime's only copy (the app seeded them itself).
  await page.evaluate((id) => window.__appRuntime.setMessages(id, [{ id: "k1", role: "user", content: "Mine" }]), kept);
  await page.evaluate((id) => window.__appRuntime.setToolEnabled(id, "get_weather", true), owned);
  const before = await toggles(owned);
  assert.ok(before.saved?.includes('"get_weather":true'), before.saved);

  // Both panels unmount: the owned thread is forgotten, its toggles stay; the kept one stays.
  await page.click("#toggle-owned");
  await page.click("#toggle-kept");
  await forgotten(owned);
  assert.deepEqual(await page.evaluate((id) => [window.__appRuntime.state(id) === undefined, window.__appRuntime.interrupts(id)], owned), [true, []]);
  assert.deepEqual(await toggles(owned), before);
  assert.deepEqual(await inRuntime(kept), ["k1"], "a thread without history is kept");

  // Mounted again: the history is back (seeded again), and so is the kept thread.
  await page.click("#toggle-owned");
  await page.click("#toggle-kept");
  await shows(owned, ["h1", "h2"]);
  await shows(kept, ["k1"]);
  assert.deepEqual(await inRuntime(owned), ["h1", "h2"]);

  // Unmounted while a run of it goes on (its request held): forgotten at its run_finished only.
  await page.evaluate((id) => {
    window.__chatTrace.hold = new Promise((release) => (window.__release = release));
    window.__run = window.__appRuntime.run({ threadId: id, messages: [{ id: "u1", role: "user", content: "Hello" }] });
  }, owned);
  await page.click("#toggle-owned");
  await page.waitForSelector(`ul[data-thread="${owned}"]`, { state: "detached", timeout: WAIT });
  await new Promise((done) => setTimeout(done, 300));
  assert.deepEqual(await inRuntime(owned), ["h1", "h2", "u1"], "a running thread is not forgotten");
  const status = await page.evaluate(async () => {
    window.__release();
    return (await window.__run).status;
  });
  assert.equal(status, "completed");
  await forgotten(owned);
  assert.deepEqual(await toggles(owned), before);
  await page.click("#toggle-owned");
  await shows(owned, ["h1", "h2"]);
  await done({ context, page });
});

test("production build (vite build) served by the agent: a tool conversation works", async () => {
  await run(process.execPath, [join(fixture.dir, "node_modules/vite/bin/vite.js"), "build"], { cwd: fixture.dir });
  const { child, url } = await startAgent({ paceMs: 15, statics: [`/=${join(fixture.dir, "dist")}`, "/tools=demo/tools"], timeoutMs: WAIT });
  try {
    const app = await openApp(url);
    await app.page.check("input[data-tool=get_weather]");
    assert.equal(await say(app.page, "What's the weather in Paris?"), "completed");
    assert.equal(await lastAssistantText(app.page), "In Paris it is 18°C and partly cloudy.");
    assert.equal((await requests(app.thread, url)).length, 2);
    await done(app);
  } finally {
    await stopAgent(child);
  }
});

test("outside a provider, useThread().run rejects and useToolToggles().setEnabled throws a ChatRuntimeError (react/no-provider); applyMessages is one function", async () => {
  // In Node, on the installed package: rendered on the server, a provider-less component gets the
  // hooks' not-ready handles.
  const script = `
    import { createElement } from "react";
    import { renderToString } from "react-dom/server";
    import { ChatRuntimeError, applyMessages as fromMain } from "chat-runtime";
    import { useThread, useToolToggles, applyMessages as fromReact } from "chat-runtime/react";
    let thread, toggles;
    function Probe() {
      thread = useThread(null);
      toggles = useToolToggles(null);
      return null;
    }
    renderToString(createElement(Probe));
    const describe = (e) => ({ instance: e instanceof ChatRuntimeError, isError: e instanceof Error, name: e.name, code: e.code });
    let thrown = null;
    try { toggles.setEnabled("get_weather", true); } catch (e) { thrown = describe(e); }
    const rejected = await thread.run("hi").then(() => null, describe);
    const list = [{ id: "a", role: "user", content: "hi" }];
    console.log(JSON.stringify({ ready: thread.ready, threadId: thread.threadId, thrown, rejected, same: fromMain === fromReact, kept: fromMain(list, [{ id: "a", role: "user", content: "hi" }]) === list }));`;
  const out = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: fixture.dir });
  const noProvider = { instance: true, isError: true, name: "ChatRuntimeError", code: "react/no-provider" };
  assert.deepEqual(JSON.parse(out.trim().split("\n").at(-1)), {
    ready: false,
    threadId: null,
    thrown: noProvider,
    rejected: noProvider,
    same: true,
    kept: true,
  });
});
