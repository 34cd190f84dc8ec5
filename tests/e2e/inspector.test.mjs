// End-to-end: the workshop inspector of the demo page (demo/inspector.js) in headless Chromium
// against the real demo agent (chat-runtime-agent --mode demo --pace-ms 0). The inspector is built
// on the runtime's public API only (subscribe + prepareRequest); these tests read what it shows.
// Needs `make build` (pkg/, demo/tools/*.js) and `cargo build -p chat-runtime-agent`.
import { before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";

import { demoSuite } from "./agent.mjs";

const shots = new URL("../../target/screenshots/", import.meta.url);
const shot = (name) => new URL(name, shots).pathname;
// Generous: the machine is shared with other builds.
const WAIT = 30_000;
const WIDE = { width: 1280, height: 900 };
const PHONE = { width: 375, height: 740 };

const suite = demoSuite();
before(() => mkdirSync(shots, { recursive: true }));

// ---- helpers ------------------------------------------------------------------------------------

async function freshPage(viewport) {
  const context = await suite.browser.newContext({ viewport, reducedMotion: "reduce" });
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (error) => page.errors.push(error));
  await page.goto(`${suite.base}/`);
  await page.waitForSelector("body[data-ready=true]", { timeout: WAIT });
  return { context, page };
}

async function close({ context, page }) {
  assert.deepEqual(page.errors.map(String), [], "no uncaught errors in the page");
  await context.close();
}

async function say(page, text) {
  await page.fill("#input", text);
  await page.click("#send");
}

/** Waits until turn `n` of the inspector has ended with `status`. */
async function turnEnded(page, n, status = "completed") {
  await page.waitForSelector(`#inspector .insp-turn[data-turn="${n}"][data-status="${status}"]`, { timeout: WAIT });
  await page.waitForFunction(() => !document.getElementById("send").hidden, null, { timeout: WAIT });
}

/** Switches a frontend tool through the Tools panel (the page's own UI). */
async function setTool(page, name, on) {
  if ((await page.getAttribute("#tools-button", "aria-expanded")) !== "true") await page.click("#tools-button");
  const toggle = page.locator(`#tools-panel input[role=switch][data-tool="${name}"]`);
  if ((await toggle.isChecked()) !== on) await toggle.click();
  await page.keyboard.press("Escape");
  await page.waitForSelector("#tools-panel", { state: "hidden", timeout: WAIT });
}

/** What the inspector shows for turn `n`: the summary, each round's fields, each call's fields. */
function readTurn(page, n) {
  return page.$eval(`#inspector .insp-turn[data-turn="${n}"]`, (turn) => {
    const fields = (box) =>
      Object.fromEntries(
        [...box.querySelectorAll(":scope > .insp-fields > .insp-field")]
          .filter((f) => !f.hidden)
          .map((f) => [f.dataset.field, f.querySelector("dd").textContent]),
      );
    return {
      summary: turn.querySelector(":scope > details > summary").textContent,
      steps: [...turn.querySelectorAll(":scope > details > .insp-steps > li")].map((li) => li.className),
      rounds: [...turn.querySelectorAll(".insp-round")].map((round) => {
        const box = round.querySelector(":scope > details");
        return {
          n: Number(round.dataset.round),
          summary: box.querySelector(":scope > summary").textContent,
          fields: fields(box),
          sent: [...box.querySelectorAll(".insp-messages > li")].map((li) => ({
            role: li.dataset.role,
            isNew: li.dataset.new === "true",
            text: li.querySelector(".insp-text").textContent,
          })),
          events: [...box.querySelectorAll(".insp-events > li")].map((li) => li.textContent),
          calls: [...box.querySelectorAll(".insp-call")].map((call) => {
            const callBox = call.querySelector(":scope > details");
            return {
              id: call.dataset.toolCallId,
              status: call.dataset.status,
              summary: callBox.querySelector(":scope > summary").textContent,
              pieces: [...call.querySelectorAll(".insp-pieces > code")].map((c) => c.textContent),
              fields: fields(callBox),
              resultLabel: call.querySelector('[data-field="result"] dt')?.textContent,
            };
          }),
        };
      }),
    };
  });
}

// ---- tests ------------------------------------------------------------------------------------

test("a tool call as a timeline: round 1 offers the tool and sends the question, the call's streamed arguments, result and duration, round 2 restarted by it; then a toggle and its effect", async () => {
  const session = await freshPage(WIDE);
  const { page } = session;
  await setTool(page, "get_weather", true);
  await say(page, "What's the weather in Paris?");
  await turnEnded(page, 1);

  const turn = await readTurn(page, 1);
  assert.match(turn.summary, /^Turn 1 · “What's the weather in Paris\?” · completed · 2 rounds · \d+ ms$/);
  const [one, two] = turn.rounds;
  assert.equal(turn.rounds.length, 2);

  // Round 1: the toggles then, the tool offered, the user's message sent, the events received.
  assert.equal(one.n, 1);
  assert.match(one.summary, /^Round 1 · \d+ events · \d+ ms$/);
  assert.equal(one.fields.toggles, "get_browser_time off, get_weather on, calculate off, set_theme off, confirm_action off");
  assert.equal(one.fields.offered, "get_weather");
  assert.deepEqual(one.sent, [{ role: "user", isNew: true, text: "What's the weather in Paris?" }]);
  assert.equal(one.events[0], "RUN_STARTED");
  assert.equal(one.events.at(-1), "RUN_FINISHED");
  assert.ok(one.events.includes("TOOL_CALL_START") && one.events.includes("TOOL_CALL_END"), one.events.join(", "));
  assert.equal(one.fields.outcome, "success");
  assert.equal(one.fields.because, undefined, "round 1 restarted for nothing");

  // The call: its arguments piece by piece as they streamed, parsed, the result, the durations.
  assert.equal(one.calls.length, 1);
  const [call] = one.calls;
  assert.equal(call.status, "done");
  assert.match(call.summary, /^get_weather · done · \d+ ms$/);
  assert.ok(call.pieces.length > 1, `the arguments came in pieces: ${JSON.stringify(call.pieces)}`);
  assert.equal(call.pieces.join(""), '{"city":"Paris"}');
  assert.deepEqual(JSON.parse(call.fields.args), { city: "Paris" });
  assert.match(call.fields.ran, /^streamed in \d+ ms; in the browser, \d+ ms$/);
  assert.equal(call.resultLabel, "Result");
  assert.equal(JSON.parse(call.fields.result).temperatureC, 18);
  assert.equal(call.fields.restarted, "round 2");

  // Round 2: restarted because of that call; it sends the call and its result.
  assert.match(two.summary, /^Round 2 · \d+ events · \d+ ms · restarted for get_weather$/);
  assert.equal(two.fields.because, `get_weather (${call.id})`);
  assert.equal(two.fields.offered, "get_weather");
  assert.deepEqual(
    two.sent.map((m) => [m.role, m.isNew]),
    [["user", false], ["assistant", true], ["tool", true]],
  );
  assert.match(two.sent[2].text, new RegExp(`^result for ${call.id}: .*"temperatureC":18`));
  assert.deepEqual(two.calls, []);
  await page.screenshot({ path: shot("inspector-wide.png") });

  // A toggle between turns is on the timeline; the next turn has it at the time and offers nothing.
  await setTool(page, "get_weather", false);
  await page.waitForSelector("#inspector .insp-timeline > li.insp-toggles", { timeout: WAIT });
  assert.equal(await page.textContent("#inspector .insp-timeline > li.insp-toggles"), "toggles changed get_weather off");
  await say(page, "What's the weather in Paris?");
  await turnEnded(page, 2);
  const second = await readTurn(page, 2);
  assert.match(second.summary, /· completed · 1 round · \d+ ms$/);
  assert.equal(second.rounds[0].fields.toggles, "get_browser_time off, get_weather off, calculate off, set_theme off, confirm_action off");
  assert.equal(second.rounds[0].fields.offered, "none");
  assert.deepEqual(second.rounds[0].calls, []);
  assert.deepEqual(
    await page.$$eval("#inspector .insp-timeline > li", (items) => items.map((li) => li.className)),
    ["insp-turn", "insp-toggles", "insp-turn"],
  );
  assert.equal(await page.$eval('#inspector .insp-turn[data-turn="1"] > details', (d) => d.open), false, "the earlier turn folds");
  await close(session);
});

test("live: while a tool waits for the user the panel already shows the running turn and the call; the answer adds round 2", async () => {
  const session = await freshPage(WIDE);
  const { page } = session;
  await setTool(page, "confirm_action", true);
  await say(page, "Delete my notes");
  await page.waitForSelector(".tool-card .confirm", { timeout: WAIT });
  // The run is waiting on the confirmation: nothing ends until the click below.
  await page.waitForSelector('#inspector .insp-call[data-status="running"]', { timeout: WAIT });
  const waiting = await readTurn(page, 1);
  assert.match(waiting.summary, /^Turn 1 · “Delete my notes” · running · 1 round$/);
  assert.equal(waiting.rounds.length, 1);
  const [call] = waiting.rounds[0].calls;
  assert.match(call.summary, /^confirm_action · running$/);
  assert.deepEqual(JSON.parse(call.fields.args), { action: "Delete my notes" });
  assert.equal(call.fields.ran.endsWith("in the browser, running"), true, call.fields.ran);

  await page.click(".confirm .confirm-yes");
  await turnEnded(page, 1);
  const done = await readTurn(page, 1);
  assert.equal(done.rounds.length, 2);
  assert.equal(done.rounds[0].calls[0].fields.restarted, "round 2");
  assert.deepEqual(JSON.parse(done.rounds[0].calls[0].fields.result), { confirmed: true });
  await close(session);
});

test("model and user text with HTML is shown as text: no element is created from it", async () => {
  const session = await freshPage(WIDE);
  const { page } = session;
  const html = `<img src=x onerror="window.__pwned=1"><b>bold</b>`;
  // The demo agent echoes the question into its backend search_docs call (streamed arguments).
  await say(page, `How do I search the docs for ${html}?`);
  await turnEnded(page, 1);
  const turn = await readTurn(page, 1);
  const [call] = turn.rounds[0].calls;
  assert.match(call.summary, /^search_docs · done · \d+ ms$/);
  assert.equal(JSON.parse(call.fields.args).query, `How do I search the docs for ${html}`);
  assert.match(call.fields.ran, /on the agent/);
  assert.equal(turn.rounds[0].sent[0].text, `How do I search the docs for ${html}?`);
  assert.ok(turn.summary.includes("<img src=x"), turn.summary);
  assert.equal(await page.$$eval("#inspector img, #inspector b", (n) => n.length), 0, "no element from the text");
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  await close(session);
});

test("an interrupt the server sends shows in the round's outcome, as text", async () => {
  const session = await freshPage(WIDE);
  const { page } = session;
  await say(page, "hello");
  await turnEnded(page, 1);
  const threadId = await page.$eval("#threads button[aria-current=true]", (b) => b.dataset.threadId);
  // The next run of this thread is a scripted stream (the demo agent answers queued responses first).
  const interrupt = { id: "int-<i>1</i>", reason: "tool_approval", message: "<b>Delete</b> all notes?" };
  const queued = await fetch(`${suite.base}/test/script`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      threadId,
      responses: [{
        events: [
          { type: "RUN_STARTED", threadId, runId: "srv-1" },
          { type: "TEXT_MESSAGE_START", messageId: "a-int", role: "assistant" },
          { type: "TEXT_MESSAGE_CONTENT", messageId: "a-int", delta: "I need your approval." },
          { type: "TEXT_MESSAGE_END", messageId: "a-int" },
          { type: "RUN_FINISHED", threadId, runId: "srv-1", outcome: { type: "interrupt", interrupts: [interrupt] } },
        ],
      }],
    }),
  });
  assert.equal(queued.status, 200);
  await say(page, "Delete all my notes");
  await page.waitForSelector('#inspector .insp-turn[data-turn="2"]:not([data-status="running"])', { timeout: WAIT });
  const turn = await readTurn(page, 2);
  assert.deepEqual(turn.rounds[0].events, ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"]);
  assert.equal(turn.rounds[0].fields.outcome, "interrupt: int-<i>1</i> (tool_approval)");
  assert.equal(await page.$$eval("#inspector i, #inspector b", (n) => n.length), 0, "no element from the text");
  await close(session);
});

test("the toggle: open by default at 1280 px beside the chat, a real button that works from the keyboard", async () => {
  const session = await freshPage(WIDE);
  const { page } = session;
  assert.equal(await page.getAttribute("#inspector-toggle", "aria-expanded"), "true");
  assert.equal(await page.getAttribute("#inspector-toggle", "aria-controls"), "inspector");
  assert.equal(await page.isVisible("#inspector"), true);
  const [chat, panel] = await Promise.all([page.$eval(".chat", (n) => n.getBoundingClientRect().toJSON()), page.$eval("#inspector", (n) => n.getBoundingClientRect().toJSON())]);
  assert.ok(panel.left >= chat.right - 1, `beside the chat: chat ends at ${chat.right}, the panel starts at ${panel.left}`);

  await page.focus("#inspector-toggle");
  await page.keyboard.press("Enter");
  assert.equal(await page.getAttribute("#inspector-toggle", "aria-expanded"), "false");
  assert.equal(await page.isHidden("#inspector"), true);
  assert.equal(await page.evaluate(() => document.activeElement.id), "inspector-toggle");
  await page.keyboard.press("Space");
  assert.equal(await page.getAttribute("#inspector-toggle", "aria-expanded"), "true");
  assert.equal(await page.isVisible("#inspector"), true);
  await close(session);
});

test("at 375 px: closed by default, opens over the chat from the keyboard, entries reachable with Tab, Escape closes", async () => {
  const session = await freshPage(PHONE);
  const { page } = session;
  await say(page, "hello");
  await page.waitForFunction(() => !document.getElementById("send").hidden, null, { timeout: WAIT });
  assert.equal(await page.getAttribute("#inspector-toggle", "aria-expanded"), "false");
  assert.equal(await page.isHidden("#inspector"), true);
  assert.equal(await page.isVisible("#inspector-toggle"), true);

  await page.focus("#inspector-toggle");
  await page.keyboard.press("Enter");
  assert.equal(await page.getAttribute("#inspector-toggle", "aria-expanded"), "true");
  const box = await page.$eval("#inspector", (n) => n.getBoundingClientRect().toJSON());
  assert.deepEqual([box.left, box.top, box.width, box.height], [0, 0, PHONE.width, PHONE.height], "the whole screen");
  // Over the chat: what is at the composer's place is the panel.
  const covered = await page.evaluate(() => {
    const r = document.getElementById("input").getBoundingClientRect();
    return document.getElementById("inspector").contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));
  });
  assert.equal(covered, true);
  assert.equal(await page.$eval("#inspector .insp-body", (n) => n.scrollWidth <= n.clientWidth), true, "no sideways scrolling");
  assert.equal(await page.evaluate(() => document.activeElement.className), "insp-close icon-button", "the focus moves into the panel");

  // The timeline's entries are reached with Tab and folded with Enter.
  await page.waitForSelector('#inspector .insp-turn[data-turn="1"][data-status="completed"]', { timeout: WAIT });
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.textContent), await page.textContent('.insp-turn[data-turn="1"] > details > summary'));
  await page.keyboard.press("Enter");
  assert.equal(await page.$eval('.insp-turn[data-turn="1"] > details', (d) => d.open), false);
  await page.keyboard.press("Enter");
  assert.equal(await page.$eval('.insp-turn[data-turn="1"] > details', (d) => d.open), true);
  await page.screenshot({ path: shot("inspector-375.png") });

  await page.keyboard.press("Escape");
  assert.equal(await page.getAttribute("#inspector-toggle", "aria-expanded"), "false");
  assert.equal(await page.isHidden("#inspector"), true);
  assert.equal(await page.evaluate(() => document.activeElement.id), "inspector-toggle", "the focus goes back to the toggle");
  await close(session);
});
