// End-to-end: the demo page (demo/index.html) in headless Chromium against the REAL demo agent
// (chat-runtime-agent --mode demo --pace-ms 0), which also serves the page, pkg/ and the tools.
// Needs `make build` (pkg/ and demo/tools/*.js) and `cargo build -p chat-runtime-agent`
// (`make test-e2e` does both). Every test gets a fresh browser context (its own localStorage).
import { before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";

import { demoSuite } from "./agent.mjs";

const shots = new URL("../../target/screenshots/", import.meta.url);
const shot = (name) => new URL(name, shots).pathname;
// Generous: the machine is shared with other builds.
const WAIT = 30_000;

const suite = demoSuite();
before(() => mkdirSync(shots, { recursive: true }));

// ---- helpers ------------------------------------------------------------------------------------

/** A fresh context (empty localStorage) and the page loaded in it. */
async function freshPage(viewport = { width: 1100, height: 800 }, path = "/") {
  // Reduced motion: the page drops its transitions, so screenshots never catch one half-way.
  const context = await suite.browser.newContext({ viewport, reducedMotion: "reduce" });
  const page = await open(context, path);
  return { context, page };
}

/** Opens the demo in a context and waits until it is ready; fails on any page error. */
async function open(context, path = "/") {
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (error) => page.errors.push(error));
  await page.goto(`${suite.base}${path}`);
  await page.waitForSelector("body[data-ready=true]", { timeout: WAIT });
  return page;
}

async function close({ context, page }) {
  assert.deepEqual(page.errors.map(String), [], "no uncaught errors in the page");
  await context.close();
}

/** Types a message and sends it (Enter). */
async function say(page, text) {
  await page.fill("#input", text);
  await page.click("#send");
}

/** Waits until the open thread is not running (Send is back). */
async function idle(page) {
  await page.waitForFunction(
    () => !document.getElementById("send").hidden && document.getElementById("run-status").dataset.status !== "running",
    null,
    { timeout: WAIT },
  );
}

/** Sends a message, waits for the turn to end, returns the last assistant text. */
async function ask(page, text) {
  const before = await page.$$eval(".msg.user", (n) => n.length);
  await say(page, text);
  await page.waitForFunction((n) => document.querySelectorAll(".msg.user").length > n, before, { timeout: WAIT });
  await idle(page);
  return lastAnswer(page);
}

async function lastAnswer(page) {
  return page.$$eval(".msg.assistant .bubble", (nodes) => nodes.map((n) => n.textContent).filter(Boolean).at(-1) ?? "");
}

async function openPanel(page) {
  if ((await page.getAttribute("#tools-button", "aria-expanded")) !== "true") await page.click("#tools-button");
  await page.waitForSelector("#tools-panel:not([hidden])", { timeout: WAIT });
}

/** Turns a frontend tool on or off with the mouse, through the Tools panel. */
async function setTool(page, name, on) {
  await openPanel(page);
  const toggle = page.locator(`#tools-panel input[role=switch][data-tool="${name}"]`);
  if ((await toggle.isChecked()) !== on) await toggle.click();
  assert.equal(await toggle.isChecked(), on);
  await page.keyboard.press("Escape");
  await page.waitForSelector("#tools-panel", { state: "hidden", timeout: WAIT });
}

async function enabledTools(page) {
  await openPanel(page);
  const names = await page.$$eval("#tools-panel input[role=switch]:checked", (n) => n.map((i) => i.dataset.tool));
  await page.keyboard.press("Escape");
  return names.sort();
}

async function badge(page) {
  return page.$eval("#tools-badge", (b) => (b.hidden ? null : b.textContent));
}

async function currentThread(page) {
  return page.$eval("#threads button[aria-current=true]", (b) => b.dataset.threadId);
}

/** The cards of the open thread: [{ name, status, args, result }]. */
async function cards(page) {
  return page.$$eval(".tool-card", (nodes) =>
    nodes.map((n) => ({
      name: n.querySelector(".name").textContent,
      status: n.dataset.status,
      args: n.querySelector(".tool-section pre").textContent,
      result: n.querySelector(".tool-section.result pre").textContent,
    })),
  );
}

async function runRequests(threadId) {
  const response = await fetch(`${suite.base}/test/requests?threadId=${encodeURIComponent(threadId)}`);
  return response.json();
}

// ---- tests ------------------------------------------------------------------------------------

test("a tool that is off: the agent says it cannot; switched on in the UI, it runs in the page and the answer uses its result", async () => {
  const session = await freshPage();
  const { page } = session;
  assert.match(await ask(page, "What's the weather in Paris?"), /I can't check the weather: the get_weather tool is turned off/);
  assert.equal((await cards(page)).length, 0, "no tool call while the tool is off");

  await setTool(page, "get_weather", true);
  const answer = await ask(page, "What's the weather in Paris?");
  assert.match(answer, /In Paris it is 18°C and partly cloudy/);
  const [card] = await cards(page);
  assert.equal(card.name, "get_weather");
  assert.equal(card.status, "done");
  assert.deepEqual(JSON.parse(card.args), { city: "Paris" });
  assert.equal(JSON.parse(card.result).temperatureC, 18);
  assert.equal(await page.textContent(".tool-card .tool-where"), "in your browser");
  await page.screenshot({ path: shot("demo-tool-card-done.png") });
  await close(session);
});

test("a frontend tool's error shows on its card and the agent reports it", async () => {
  const session = await freshPage();
  const { page } = session;
  await setTool(page, "calculate", true);
  assert.match(await ask(page, "calculate 2+3*4"), /2\+3\*4 = 14\./);
  const answer = await ask(page, "calculate 7/0");
  assert.match(answer, /calculate tool failed/);
  const last = (await cards(page)).at(-1);
  assert.equal(last.status, "error");
  assert.match(last.result, /division by zero/);
  await close(session);
});

test("a backend tool is answered by the agent and shown locked in the panel", async () => {
  const session = await freshPage();
  const { page } = session;
  await openPanel(page);
  const backend = await page.$$eval("#backend-tools .tool-row", (rows) =>
    rows.map((r) => ({ name: r.querySelector(".tool-name").textContent, lock: Boolean(r.querySelector("svg.lock")), toggle: Boolean(r.querySelector("input")) })),
  );
  assert.deepEqual(backend, [{ name: "search_docs", lock: true, toggle: false }]);
  await page.keyboard.press("Escape");
  await ask(page, "How do I search the docs for frontend tools?");
  const [card] = await cards(page);
  assert.equal(card.name, "search_docs");
  assert.equal(card.status, "done");
  assert.equal(await page.textContent(".tool-card .tool-where"), "on the agent");
  await close(session);
});

test("toggles are saved per thread and survive a reload, with the threads and their messages", async () => {
  const session = await freshPage();
  const { context, page } = session;
  // New chat: the toggle goes to the default state; the first message creates thread A with it.
  await setTool(page, "calculate", true);
  assert.match(await ask(page, "what is 12*7"), /12\*7 = 84\./);
  const threadA = await currentThread(page);
  assert.match(threadA, /^thread-\d+/);
  await setTool(page, "get_weather", true); // thread A only

  await page.click("#new-chat");
  assert.deepEqual(await enabledTools(page), ["calculate"], "a new chat shows the default state");
  await ask(page, "hello");
  const threadB = await currentThread(page);
  assert.notEqual(threadB, threadA);
  await setTool(page, "get_browser_time", true); // thread B only
  assert.deepEqual(await enabledTools(page), ["calculate", "get_browser_time"]);

  await page.click(`#threads button[data-thread-id="${threadA}"]`);
  assert.deepEqual(await enabledTools(page), ["calculate", "get_weather"]);
  assert.equal(await badge(page), "2");

  await page.reload();
  await page.waitForSelector("body[data-ready=true]", { timeout: WAIT });
  assert.equal(await currentThread(page), threadA, "the open thread is restored");
  assert.deepEqual(await enabledTools(page), ["calculate", "get_weather"]);
  assert.match(await lastAnswer(page), /12\*7 = 84\./, "the messages are restored");
  assert.equal((await cards(page))[0].status, "done");
  await page.click(`#threads button[data-thread-id="${threadB}"]`);
  assert.deepEqual(await enabledTools(page), ["calculate", "get_browser_time"]);
  assert.equal(await page.$$eval("#threads li", (n) => n.length), 2);

  // The restored history goes to the agent: a follow-up in thread A still works.
  await page.click(`#threads button[data-thread-id="${threadA}"]`);
  assert.match(await ask(page, "weather in Berlin?"), /In Berlin it is 16°C/);
  await close(session);
  void context;
});

test("a toggle changed in another tab shows up in this one", async () => {
  const session = await freshPage();
  const other = await open(session.context);
  await setTool(other, "get_weather", true);
  await session.page.waitForFunction(() => document.getElementById("tools-badge").textContent === "1" && !document.getElementById("tools-badge").hidden, null, { timeout: WAIT });
  assert.deepEqual(await enabledTools(session.page), ["get_weather"]);
  await close(session);
});

test("parallel tools: time and weather in one message run as two cards and get one answer", async () => {
  const session = await freshPage();
  const { page } = session;
  await setTool(page, "get_browser_time", true);
  await setTool(page, "get_weather", true);
  const answer = await ask(page, "What time is it, and what's the weather in Tokyo?");
  const all = await cards(page);
  assert.deepEqual(all.map((c) => [c.name, c.status]).sort(), [["get_browser_time", "done"], ["get_weather", "done"]]);
  assert.match(answer, /Your browser says it is/);
  assert.match(answer, /In Tokyo it is 25°C/);
  const timeZone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  assert.equal(JSON.parse(all.find((c) => c.name === "get_browser_time").result).timeZone, timeZone);
  // One run with the two calls, one restart with both results.
  const requests = await runRequests(await currentThread(page));
  assert.equal(requests.length, 2);
  assert.deepEqual(requests[1].body.messages.filter((m) => m.role === "tool").length, 2);
  await close(session);
});

test("?backend=coder: the same page on the Coder mock answers a tool question end to end", async () => {
  const session = await freshPage(undefined, "/?backend=coder");
  const { page } = session;
  // The page is signed in by cookie, with Coder's CSRF token in its meta tag (as `make demo`).
  assert.ok(await page.evaluate(() => document.querySelector('meta[property="csrf-token"]')?.content), "the page carries the CSRF token");
  const before = new Set((await (await fetch(`${suite.base}/test/coder/chats`)).json()).map((c) => c.id));
  await setTool(page, "get_weather", true);
  const answer = await ask(page, "What's the weather in Paris?");
  assert.match(answer, /In Paris it is 18°C and partly cloudy/);
  const [card] = await cards(page);
  assert.equal(card.name, "get_weather");
  assert.equal(card.status, "done");
  assert.deepEqual(JSON.parse(card.args), { city: "Paris" });
  // The thread is the chat: its id in the thread list is the chat's id, and the chat got the
  // result in one POST.
  const created = (await (await fetch(`${suite.base}/test/coder/chats`)).json()).filter((c) => !before.has(c.id));
  assert.equal(created.length, 1, "one chat created");
  assert.equal(await currentThread(page), created[0].id);
  const chat = await (await fetch(`${suite.base}/test/coder/chats/${created[0].id}`)).json();
  assert.equal(chat.chat.status, "waiting");
  assert.equal(chat.toolResultPostCount, 1);
  const [posted] = chat.toolResultPosts[0].body.results;
  assert.equal(posted.is_error, false);
  assert.equal(posted.output.temperatureC, 18, "the handler's value, as JSON");
  assert.equal(await runRequests(created[0].id).then((r) => r.length), 0, "no AG-UI run");
  // A second question in the same chat posts to it. The chat declared every tool at creation, so
  // the model calls get_browser_time, which is off here: answered as an error, never run.
  assert.match(await ask(page, "What time is it?"), /The get_browser_time tool failed: the tool get_browser_time is disabled in this chat/);
  const again = await (await fetch(`${suite.base}/test/coder/chats/${created[0].id}`)).json();
  assert.equal(again.messagePosts.length, 1);
  assert.equal(await currentThread(page), created[0].id);
  await page.screenshot({ path: shot("demo-coder.png") });
  await close(session);
});

/** The open thread's rendered messages in order ([role, text]) and the runtime's list of it. */
async function shownAndThread(page) {
  return page.evaluate(() => {
    const shown = [...document.querySelectorAll("#messages > .msg")].map((n) => [
      n.classList.contains("user") ? "user" : "assistant",
      n.dataset.messageId,
      n.querySelector(".bubble").textContent,
    ]);
    const id = document.querySelector("#threads button[aria-current=true]").dataset.threadId;
    const thread = window.chatRuntimeDemo.runtime
      .messages(id)
      .filter((m) => m.role === "user" || m.role === "assistant")
      .map((m) => [m.role, m.id, typeof m.content === "string" ? m.content : ""]);
    return { shown, thread };
  });
}

test("?backend=coder: each message shows once, as the committed copies replace the streamed ones", async () => {
  // issue 36: the committed copies replaced the previews and the page's own user message in the
  // thread, but the `messages` event carried only the new ones: the question, "Let me check."
  // and the answer each showed twice until a reload.
  const session = await freshPage(undefined, "/?backend=coder");
  const { page } = session;
  await setTool(page, "get_weather", true);
  assert.match(await ask(page, "What's the weather in Paris?"), /In Paris it is 18°C and partly cloudy/);
  const { shown, thread } = await shownAndThread(page);
  const texts = shown.map(([role, , text]) => `${role}: ${text}`);
  assert.equal(texts.filter((t) => t === "user: What's the weather in Paris?").length, 1, texts.join("\n"));
  assert.equal(texts.filter((t) => /In Paris it is 18°C/.test(t)).length, 1, texts.join("\n"));
  assert.equal(new Set(shown.map(([, id]) => id)).size, shown.length, "no message id shown twice");
  // The page shows exactly the runtime's thread, in its order.
  assert.deepEqual(shown, thread);
  assert.equal(thread.filter(([role]) => role === "user").length, 1);
  // Its tool card is still there, once, done, inside the committed message.
  const [card, ...more] = await cards(page);
  assert.equal(more.length, 0, "one card");
  assert.equal(card.status, "done");
  await close(session);
});

test("fire-and-forget: set_theme switches the page to dark without a restart", async () => {
  const session = await freshPage();
  const { page } = session;
  assert.equal(await page.getAttribute("html", "data-theme"), "light");
  await setTool(page, "set_theme", true);
  const answer = await ask(page, "Switch to dark mode please");
  assert.equal(await page.getAttribute("html", "data-theme"), "dark");
  assert.ok(answer.length > 0, "the agent confirms in the same run");
  const [card] = await cards(page);
  assert.equal(card.name, "set_theme");
  assert.equal(card.status, "done");
  assert.equal((await runRequests(await currentThread(page))).length, 1, "no restart");
  await page.screenshot({ path: shot("demo-dark-theme.png") });
  // A reload keeps the theme.
  await page.reload();
  await page.waitForSelector("body[data-ready=true]", { timeout: WAIT });
  assert.equal(await page.getAttribute("html", "data-theme"), "dark");
  await ask(page, "light mode now");
  assert.equal(await page.getAttribute("html", "data-theme"), "light");
  await close(session);
});

test("human in the loop: the confirmation card, accepted and declined", async () => {
  const session = await freshPage();
  const { page } = session;
  await setTool(page, "confirm_action", true);
  await say(page, "Delete my notes");
  await page.waitForSelector(".tool-card .confirm", { timeout: WAIT });
  assert.match(await page.textContent(".confirm .confirm-action"), /Delete my notes/);
  assert.equal(await page.textContent(".tool-card .status-pill"), "waiting for you");
  await page.screenshot({ path: shot("demo-confirmation.png") });
  await page.click(".confirm .confirm-yes");
  await idle(page);
  assert.match(await lastAnswer(page), /^Done: /);
  assert.equal(await page.$$eval(".confirm", (n) => n.length), 0);
  assert.deepEqual(JSON.parse((await cards(page))[0].result), { confirmed: true });

  await say(page, "Reset the counter");
  await page.waitForSelector(".tool-card .confirm", { timeout: WAIT });
  await page.click(".confirm .confirm-no");
  await idle(page);
  assert.match(await lastAnswer(page), /^OK, I did not /);
  assert.deepEqual(JSON.parse((await cards(page)).at(-1).result), { confirmed: false });
  await close(session);
});

test("Stop during the confirmation removes the card, ends the run aborted, and the input works again", async () => {
  const session = await freshPage();
  const { page } = session;
  await setTool(page, "confirm_action", true);
  await say(page, "Delete everything");
  await page.waitForSelector(".tool-card .confirm", { timeout: WAIT });
  assert.equal(await page.isVisible("#stop"), true);
  assert.equal(await page.isVisible("#send"), false);
  await page.click("#stop");
  await page.waitForSelector("#run-status[data-status=aborted]", { timeout: WAIT });
  assert.equal(await page.$$eval(".confirm", (n) => n.length), 0, "the confirmation card is gone");
  const [card] = await cards(page);
  assert.equal(card.status, "error");
  assert.match(card.result, /INTERRUPTED/);
  assert.equal(await page.isVisible("#send"), true);
  assert.equal(await page.isEditable("#input"), true);
  assert.match(await ask(page, "what is 12*7"), /turned off/);
  assert.equal(await page.textContent("#run-status"), "");
  await close(session);
});

test("the badge counts the active frontend tools and hides at 0", async () => {
  const session = await freshPage();
  const { page } = session;
  assert.equal(await badge(page), null);
  await setTool(page, "get_weather", true);
  assert.equal(await badge(page), "1");
  await setTool(page, "calculate", true);
  await setTool(page, "get_browser_time", true);
  assert.equal(await badge(page), "3");
  await setTool(page, "calculate", false);
  assert.equal(await badge(page), "2");
  await setTool(page, "get_weather", false);
  await setTool(page, "get_browser_time", false);
  assert.equal(await badge(page), null);
  await close(session);
});

test("the Tools panel by keyboard: Tab to Tools, Enter opens, Space toggles, Escape closes and returns focus", async () => {
  const session = await freshPage();
  const { page } = session;
  const active = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.dataset?.tool || document.activeElement?.tagName);
  assert.equal(await page.getAttribute("#tools-button", "aria-controls"), "tools-panel");
  await page.focus("#input");
  await page.keyboard.press("Tab");
  assert.equal(await active(), "tools-button");
  assert.equal(await page.getAttribute("#tools-button", "aria-expanded"), "false");
  await page.keyboard.press("Enter");
  assert.equal(await page.getAttribute("#tools-button", "aria-expanded"), "true");
  assert.equal(await active(), "get_browser_time", "the first toggle has the focus");
  await page.keyboard.press("Space");
  assert.equal(await page.isChecked('input[data-tool="get_browser_time"]'), true);
  assert.equal(await badge(page), "1");
  await page.keyboard.press("Tab");
  assert.equal(await active(), "get_weather");
  await page.keyboard.press("Space");
  assert.equal(await badge(page), "2");
  await page.keyboard.press("Shift+Tab");
  assert.equal(await active(), "get_browser_time");
  await page.screenshot({ path: shot("demo-tools-panel.png") });
  await page.keyboard.press("Escape");
  assert.equal(await page.isHidden("#tools-panel"), true);
  assert.equal(await page.getAttribute("#tools-button", "aria-expanded"), "false");
  assert.equal(await active(), "tools-button");
  // Space on the button opens it too.
  await page.keyboard.press("Space");
  assert.equal(await page.getAttribute("#tools-button", "aria-expanded"), "true");
  await page.keyboard.press("Escape");
  assert.equal(await active(), "tools-button");
  // The switches are real switches with names.
  const names = await page.$$eval("#tools-panel input[role=switch]", (inputs) =>
    inputs.map((i) => document.getElementById(i.getAttribute("aria-labelledby")).textContent),
  );
  assert.deepEqual(names, ["get_browser_time", "get_weather", "calculate", "set_theme", "confirm_action"]);
  await close(session);
});

test("HTML in a message is shown as text, never run", async () => {
  const session = await freshPage();
  const { page } = session;
  const evil = '<img src=x onerror="window.pwned=1">';
  await ask(page, evil);
  assert.equal(await page.textContent(".msg.user .bubble"), evil);
  await setTool(page, "get_weather", true);
  await ask(page, 'weather in Paris<img src=y onerror="window.pwned=2">');
  assert.match(await lastAnswer(page), /get_weather tool failed/);
  assert.equal(await page.$$eval("img", (n) => n.length), 0);
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  assert.equal(await page.$$eval("#threads .thread-title", (n) => n[0].textContent), evil);
  await close(session);
});

test("phone width (375 px): nothing overflows horizontally", async () => {
  const session = await freshPage({ width: 375, height: 740 });
  const { page } = session;
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.equal(await overflow(), 0);
  await setTool(page, "get_weather", true);
  await setTool(page, "calculate", true);
  await ask(page, "What's the weather in Paris? And calculate ((1+2)*3)^2-100000000000/7");
  assert.equal((await cards(page)).length, 2);
  assert.equal(await overflow(), 0);
  await ask(page, "x".repeat(300));
  assert.equal(await overflow(), 0);
  await openPanel(page);
  const box = await page.$eval("#tools-panel", (p) => p.getBoundingClientRect().toJSON());
  assert.ok(box.left >= 0 && box.right <= 375, `the panel fits: ${JSON.stringify(box)}`);
  assert.equal(await overflow(), 0);
  await page.screenshot({ path: shot("demo-phone-panel.png") });
  await page.keyboard.press("Escape");
  await page.screenshot({ path: shot("demo-phone.png") });
  await close(session);
});
