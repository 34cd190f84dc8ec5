// End-to-end: the `activity` event in headless Chromium. A stream whose events change no message
// (only STATE_DELTA and STEP_* events, or keep-alive comments) still tells the app it is live: one
// `activity` event per frame in which bytes of the thread's stream arrived, at most one per thread
// and frame, none once the run is over.
import { test } from "node:test";
import assert from "node:assert/strict";

import { api as harnessApi, browserSuite } from "./harness.mjs";

const TIMEOUT = 90_000;
const suite = browserSuite();
const script = (threadId, responses) => harnessApi(suite.base, "/test/script", { threadId, responses });

/** A run of only state and step events: no message changes from its first event to its last. */
function silentRun(threadId, steps) {
  const events = [{ type: "RUN_STARTED", threadId, runId: "s1" }, { type: "STATE_SNAPSHOT", snapshot: { step: 0 } }];
  for (let n = 1; n <= steps; n++) {
    events.push({ type: "STEP_STARTED", stepName: `step-${n}` });
    events.push({ type: "STATE_DELTA", delta: [{ op: "replace", path: "/step", value: n }] });
    events.push({ type: "STEP_FINISHED", stepName: `step-${n}` });
  }
  events.push({ type: "RUN_FINISHED", threadId, runId: "s1" });
  return events;
}

/**
 * Runs `threadId` in the page with listeners for `activity`, `state`, `messages` and `agui` (to
 * know when each event arrived), and a frame counter: each event is logged with the frame it
 * came in (the counter's callback runs first in every frame: it was asked for in the frame before,
 * before any chunk of the stream arrived).
 */
async function runLogged(threadId) {
  return suite.page.evaluate(async (threadId) => {
    const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs" });
    let frame = 0;
    let counting = true;
    const tick = () => {
      frame++;
      if (counting) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    const log = [];
    rt.subscribe(
      (event) => log.push({ type: event.type === "agui" ? `agui:${event.event.type}` : event.type, frame, at: event.at, threadId: event.threadId }),
      { events: ["activity", "state", "messages", "agui", "run_finished"] },
    );
    const before = Date.now();
    const result = await rt.run({ threadId, messages: [{ id: "u1", role: "user", content: "work" }] });
    // Frames after the end: no activity event of this run may come in them.
    await new Promise((done) => setTimeout(done, 200));
    counting = false;
    return { status: result.status, log, before, after: Date.now(), state: rt.state(threadId) };
  }, threadId);
}

test("a stream of only STATE_DELTA and STEP events keeps the activity signal going, one per frame at most", { timeout: TIMEOUT }, async () => {
  const threadId = "t-silent";
  const steps = 12;
  // A pause before each event: they arrive in many frames, not in one chunk.
  await script(threadId, [{ events: silentRun(threadId, steps), delayMs: 30 }]);
  const { status, log, before, after, state } = await runLogged(threadId);
  assert.equal(status, "completed");
  assert.deepEqual(state, { step: steps });
  const activity = log.filter((e) => e.type === "activity");
  const end = log.findIndex((e) => e.type === "run_finished");
  // Nothing for the messages list but the user's message: the stream is silent to a UI.
  assert.equal(log.filter((e) => e.type === "messages").length, 1, JSON.stringify(log.map((e) => e.type)));
  // Every frame in which events arrived has its activity event (in that frame or the next one),
  // the STEP_* events between state changes included.
  for (const [at, event] of log.entries()) {
    if (!event.type.startsWith("agui:") || event.type === "agui:RUN_FINISHED" || at > end) continue;
    assert.ok(
      activity.some((a) => a.frame >= event.frame && a.frame <= event.frame + 1),
      `${event.type} in frame ${event.frame} without an activity event: ${JSON.stringify(log)}`,
    );
  }
  assert.ok(activity.length >= 2, `the signal keeps going: ${activity.length} activity events`);
  // At most one per thread and frame; each says which thread and when (Date.now()).
  const frames = activity.map((a) => a.frame);
  assert.equal(new Set(frames).size, frames.length, `two activity events in one frame: ${frames}`);
  for (const a of activity) {
    assert.equal(a.threadId, threadId);
    assert.ok(a.at >= before && a.at <= after, `at ${a.at} is Date.now() during the run`);
  }
  // None once the run is over.
  assert.ok(log.slice(end).every((e) => e.type !== "activity"), JSON.stringify(log.slice(end)));
});

test("keep-alive comments are activity; a stream of many events in one frame is one activity event", { timeout: TIMEOUT }, async () => {
  const threadId = "t-comments";
  const body =
    `data: ${JSON.stringify({ type: "RUN_STARTED", threadId, runId: "s1" })}\n\n` +
    ": keep-alive\n\n".repeat(6) +
    `data: ${JSON.stringify({ type: "RUN_FINISHED", threadId, runId: "s1" })}\n\n`;
  // The comments alone, each in its own write after a pause: no AG-UI event between them.
  await script(threadId, [{ body, chunkBytes: ": keep-alive\n\n".length, delayMs: 40 }]);
  const comments = await runLogged(threadId);
  assert.equal(comments.status, "completed");
  const activity = comments.log.filter((e) => e.type === "activity");
  assert.ok(activity.length >= 2, `comments keep the signal going: ${JSON.stringify(comments.log)}`);
  assert.equal(comments.log.filter((e) => e.type.startsWith("agui:")).length, 2);

  // 200 events in one write, read in one chunk: at most one activity event per frame.
  const burst = "t-burst";
  await script(burst, [{ events: silentRun(burst, 66) }]);
  const many = await runLogged(burst);
  assert.equal(many.status, "completed");
  const frames = many.log.filter((e) => e.type === "activity").map((a) => a.frame);
  assert.equal(new Set(frames).size, frames.length, `two activity events in one frame: ${frames}`);
  assert.ok(frames.length < many.log.filter((e) => e.type.startsWith("agui:")).length / 10, `${frames.length} activity events for 200 AG-UI events`);
});
