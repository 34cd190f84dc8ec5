// End-to-end: the demo page with `?approvals=interrupt` in headless Chromium against the REAL demo
// agent in its interrupt mode (forwardedProps.approvals = "interrupt"): "Delete my notes" ends the
// run with the AG-UI 1.0 interrupt outcome, the page shows the approval card, and Approve / Reject
// resume the run with `resume`. Needs `make build` and `cargo build -p chat-runtime-agent`.
import { before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";

import { demoSuite } from "./agent.mjs";

const shots = new URL("../../target/screenshots/", import.meta.url);
const WAIT = 30_000;

const suite = demoSuite();
before(() => mkdirSync(shots, { recursive: true }));

async function freshPage() {
  const context = await suite.browser.newContext({ viewport: { width: 1100, height: 800 }, reducedMotion: "reduce" });
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (error) => page.errors.push(error));
  await page.goto(`${suite.base}/?approvals=interrupt`);
  await page.waitForSelector("body[data-ready=true]", { timeout: WAIT });
  return { context, page };
}

async function idle(page) {
  await page.waitForFunction(
    () => !document.getElementById("send").hidden && document.getElementById("run-status").dataset.status !== "running",
    null,
    { timeout: WAIT },
  );
}

const lastAnswer = (page) => page.$$eval(".msg.assistant .bubble", (nodes) => nodes.map((n) => n.textContent).filter(Boolean).at(-1) ?? "");
const threadOf = (page) => page.$eval("#threads button[aria-current=true]", (b) => b.dataset.threadId);

async function requests(threadId) {
  const response = await fetch(`${suite.base}/test/requests?threadId=${encodeURIComponent(threadId)}`);
  return response.json();
}

/** Says `text` and waits for the approval card. */
async function asks(page, text) {
  await page.fill("#input", text);
  await page.click("#send");
  await page.waitForSelector(".interrupt-card", { timeout: WAIT });
  await idle(page);
  assert.match(await page.textContent(".interrupt-card .confirm-action"), new RegExp(`^Approve: ${text}\\?$`));
  assert.equal(await page.getAttribute("#run-status", "data-status"), "interrupted");
  assert.equal(await page.textContent(".tool-card .status-pill"), "waiting for you");
  // The browser ran nothing and answered nothing for the call: the agent owns it.
  assert.equal(await page.$$eval(".msg.tool, .tool-section.result:not([hidden])", (n) => n.length), 0);
}

test("approval through an interrupt: Approve resumes the run; the agent does it", async () => {
  const { context, page } = await freshPage();
  // The agent asks even though confirm_action (the browser tool) is off: the approval is its own.
  await asks(page, "Delete my notes");
  const threadId = await threadOf(page);
  const open = await page.evaluate((threadId) => window.chatRuntimeDemo.runtime.interrupts(threadId), threadId);
  assert.equal(open.length, 1);
  assert.deepEqual(open[0].responseSchema, { type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"] });
  await page.screenshot({ path: new URL("demo-interrupt-card.png", shots).pathname });
  assert.equal(await page.evaluate(() => document.activeElement?.className), "primary interrupt-approve");

  // A new message while the card is open is not sent (and not lost): the card takes the focus.
  await page.fill("#input", "hello?");
  await page.click("#send");
  assert.equal(await page.inputValue("#input"), "hello?");
  assert.equal((await requests(threadId)).length, 1);
  await page.fill("#input", "");

  await page.click(".interrupt-card .interrupt-approve");
  await idle(page);
  assert.equal(await lastAnswer(page), "Done: Delete my notes.");
  assert.equal(await page.$$eval(".interrupt-card", (n) => n.length), 0);
  assert.equal(await page.getAttribute("#run-status", "data-status"), "completed");
  assert.equal(await page.textContent(".tool-card .status-pill"), "done");
  const sent = await requests(threadId);
  assert.equal(sent.length, 2);
  assert.deepEqual(sent[0].body.forwardedProps, { approvals: "interrupt" });
  assert.deepEqual(sent[1].body.resume, [{ interruptId: open[0].id, status: "resolved", payload: { approved: true } }]);
  assert.deepEqual(sent[1].body.messages.filter((m) => m.role === "tool"), [], "the browser answered nothing for the call");
  assert.deepEqual(page.errors.map(String), []);
  await context.close();
});

test("approval through an interrupt: Reject resumes the run; the agent does not; a reload keeps the thread", async () => {
  const { context, page } = await freshPage();
  await asks(page, "Reset the counter");
  await page.keyboard.press("Tab"); // Approve has the focus; Reject is next
  await page.keyboard.press("Enter");
  await idle(page);
  assert.equal(await lastAnswer(page), "OK, I did not Reset the counter.");
  const threadId = await threadOf(page);
  const sent = await requests(threadId);
  assert.equal(sent[1].body.resume[0].payload.approved, false);
  await page.reload();
  await page.waitForSelector("body[data-ready=true]", { timeout: WAIT });
  assert.equal(await lastAnswer(page), "OK, I did not Reset the counter.");
  assert.equal(await page.$$eval(".interrupt-card", (n) => n.length), 0);
  assert.deepEqual(page.errors.map(String), []);
  await context.close();
});
