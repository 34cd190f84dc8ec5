// End-to-end: stream resume with Last-Event-ID (docs/api.md, "Stream resume"), in headless Chromium
// against the REAL demo agent (demo mode, --pace-ms 0). The agent sends an SSE id with every event
// and answers a re-POST of the same run with `Last-Event-ID` from its log; `POST /test/cut` makes
// its next responses stop part-way (after some bytes of a chosen frame, by dropping the connection
// or by ending the body). The loop must reconnect and end with exactly the thread of an uncut run.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";

import { startAgent, stopAgent } from "./agent.mjs";
import { launch } from "./browser.mjs";

const TIMEOUT = 120_000;
let agent, browser, base, context, page;

before(async () => {
  ({ child: agent, url: base } = await startAgent({ statics: ["/=tests/e2e/pages", "/pkg=pkg", "/tools=demo/tools"] }));
  browser = await launch();
  context = await browser.newContext();
  page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (error) => page.errors.push(error));
  await page.goto(`${base}/runtime.html`);
  await page.waitForSelector("body[data-ready=true]", { state: "attached", timeout: 60_000 });
});

after(async () => {
  assert.deepEqual(page?.errors.map(String) ?? [], [], "no uncaught errors in the page");
  await context?.close();
  await browser?.close();
  await stopAgent(agent);
});

async function api(path, body) {
  const init = body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  const response = await fetch(base + path, init);
  assert.ok(response.ok, `${path}: HTTP ${response.status}`);
  return response.json();
}

/**
 * Asks for the weather in Paris with get_weather on (one call, one restart). Before the answer,
 * `breaks` (counts of AG-UI events) are waited for one by one, each followed by `POST /test/break`:
 * a breaking cut drops the connection once the page has read the events before it.
 */
async function askWeather(threadId, breaks = []) {
  await page.evaluate(async (threadId) => {
    const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs" });
    await rt.loadTools();
    rt.setToolEnabled(threadId, "get_weather", true);
    const events = [];
    rt.subscribe((e) => events.push({ runId: e.runId, event: e.event }), { events: ["agui"] });
    window.asked = { events, done: rt.run({ threadId, messages: [{ id: "u1", role: "user", content: "What's the weather in Paris?" }] })
      .then((result) => {
        rt.free();
        return { status: result.status, error: plainError(result.error), messages: result.messages, events };
      }) };
  }, threadId);
  for (const count of breaks) {
    await page.waitForFunction((count) => window.asked.events.length >= count, count, { timeout: 60_000 });
    await api("/test/break", {});
  }
  return page.evaluate(() => window.asked.done);
}

/**
 * The value with every id (messages, calls, runs) replaced by its order of first appearance: the
 * agent and the runtime mint new ids for every run, the shape and the text must not change.
 */
function canonical(value) {
  const names = new Map();
  const name = (id) => {
    if (!names.has(id)) names.set(id, `id${names.size}`);
    return names.get(id);
  };
  const walk = (v) => {
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") {
      return Object.fromEntries(Object.entries(v).map(([k, x]) =>
        [k, typeof x === "string" && /^(id|messageId|toolCallId|parentMessageId|runId|threadId)$/.test(k) ? name(x)
          : k === "pendingToolCallIds" ? x.map(name) : walk(x)]));
    }
    return v;
  };
  return walk(value);
}

/** Deterministic pseudo-random numbers (an LCG), so a failure names a reproducible offset. */
function numbers(seed) {
  let x = seed;
  return () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x >>> 8;
  };
}

test("a stream cut at pseudo-random offsets (between events and inside one) resumes with Last-Event-ID and ends as the uncut run", { timeout: TIMEOUT }, async () => {
  await api("/test/reset", {});
  const whole = await askWeather("uncut");
  assert.equal(whole.status, "completed", JSON.stringify(whole.error));
  assert.match(whole.messages.at(-1).content, /In Paris it is 18°C/);
  const firstRun = whole.events[0].runId;
  const frames = whole.events.filter((e) => e.runId === firstRun).length;
  assert.ok(frames > 6, `round 1 has ${frames} events`);
  assert.equal((await api("/test/requests?threadId=uncut")).length, 2, "no reconnect without a cut");

  const next = numbers(16);
  const cases = [];
  for (let i = 0; i < 6; i++) {
    const frame = 1 + (next() % (frames - 1));
    // Even cases cut right before the frame (between events), odd ones inside it.
    const byte = i % 2 === 0 ? 0 : 1 + (next() % 200);
    cases.push([{ frame, byte, clean: i % 3 === 0 }]);
  }
  // The resumed connection is cut again, later.
  cases.push([{ frame: 2, byte: 7 }, { frame: frames - 1, byte: 3 }]);

  for (const [n, cuts] of cases.entries()) {
    const threadId = `cut-${n}`;
    const what = JSON.stringify(cuts);
    await api("/test/cut", { threadId, cuts });
    // A breaking cut in frame k drops the connection once the page has events 0..k-1.
    const got = await askWeather(threadId, cuts.filter((c) => !c.clean).map((c) => c.frame));
    assert.equal(got.status, "completed", `${what}: ${JSON.stringify(got.error)}`);
    assert.deepEqual(canonical(got.messages), canonical(whole.messages), `${what}: the thread`);
    assert.deepEqual(canonical(got.events), canonical(whole.events), `${what}: every event once, in order`);

    const requests = await api(`/test/requests?threadId=${threadId}`);
    assert.equal(requests.length, 2 + cuts.length, `${what}: one re-POST per cut, then the restart`);
    for (const [k, cut] of cuts.entries()) {
      const resent = requests[k + 1];
      // The last complete event before the cut is the one before its frame.
      assert.equal(resent.headers["last-event-id"], String(cut.frame - 1), what);
      assert.deepEqual(resent.body, requests[0].body, `${what}: the same body`);
    }
    assert.equal(requests[0].headers["last-event-id"], undefined);
    assert.equal(requests.at(-1).headers["last-event-id"], undefined, "the restart is a new run");
  }
});

test("a stream without ids that ends early is run/truncated, with no reconnect", { timeout: TIMEOUT }, async () => {
  await api("/test/reset", {});
  const threadId = "no-ids";
  await api("/test/script", {
    threadId,
    responses: [{
      events: [
        { type: "RUN_STARTED", threadId, runId: "r1" },
        { type: "TEXT_MESSAGE_START", messageId: "a1", role: "assistant" },
        { type: "TEXT_MESSAGE_CONTENT", messageId: "a1", delta: "Hal" },
      ],
    }],
  });
  const got = await askWeather(threadId);
  assert.equal(got.status, "error");
  assert.equal(got.error.code, "run/truncated");
  assert.equal((await api(`/test/requests?threadId=${threadId}`)).length, 1);
});

test("a server that resumes at the Last-Event-ID or from the first event: every event once, the thread as uncut", { timeout: TIMEOUT }, async () => {
  await api("/test/reset", {});
  const whole = await askWeather("replay-uncut");
  assert.equal(whole.status, "completed", JSON.stringify(whole.error));
  const firstRun = whole.events[0].runId;
  const frames = whole.events.filter((e) => e.runId === firstRun).length;
  for (const resume of ["at", "start"]) {
    // Between events, inside one, with a clean end; and a resumed connection cut again.
    const cases = [[{ frame: 3, byte: 0 }], [{ frame: frames - 2, byte: 9, clean: true }], [{ frame: 2, byte: 5 }, { frame: frames - 1, byte: 0 }]];
    for (const [n, cuts] of cases.entries()) {
      const threadId = `replay-${resume}-${n}`;
      const what = `${resume} ${JSON.stringify(cuts)}`;
      await api("/test/cut", { threadId, cuts, resume });
      const got = await askWeather(threadId, cuts.filter((c) => !c.clean).map((c) => c.frame));
      assert.equal(got.status, "completed", `${what}: ${JSON.stringify(got.error)}`);
      assert.deepEqual(canonical(got.messages), canonical(whole.messages), `${what}: the thread`);
      assert.deepEqual(canonical(got.events), canonical(whole.events), `${what}: every event once, in order`);
      const requests = await api(`/test/requests?threadId=${threadId}`);
      assert.equal(requests.length, 2 + cuts.length, `${what}: one re-POST per cut, then the restart`);
      for (const [k, cut] of cuts.entries()) {
        assert.equal(requests[k + 1].headers["last-event-id"], String(cut.frame - 1), what);
        assert.deepEqual(requests[k + 1].body, requests[0].body, `${what}: the same body`);
      }
    }
  }
});

test("a prepareRequest that settles after Stop sends nothing, and the next run's reconnect re-sends its own body", { timeout: TIMEOUT }, async () => {
  await api("/test/reset", {});
  const threadId = "late-prepare";
  const stopped = await page.evaluate(async (threadId) => {
    const prepared = [];
    const called = [];
    let hold = true;
    const rt = new ChatRuntime({
      runUrl: "/api/threads/{threadId}/runs",
      // Drops the signal, as some wrappers do: whatever it is called with goes out.
      fetch: (url, { signal, ...init }) => {
        if (init.method === "POST") called.push({ runId: JSON.parse(init.body).runId, lastEventId: init.headers["Last-Event-ID"] ?? null });
        return fetch(url, init);
      },
      prepareRequest: (body, info) => {
        prepared.push({ runId: body.runId, round: info.round });
        if (!hold) return body;
        hold = false;
        return new Promise((resolve) => { window.releaseHeld = () => resolve(body); });
      },
    });
    await rt.loadTools();
    rt.setToolEnabled(threadId, "get_weather", true);
    const events = [];
    rt.subscribe((e) => events.push({ runId: e.runId, event: e.event }), { events: ["agui"] });
    window.late = { rt, prepared, called, events };
    const first = rt.run({ threadId, messages: [{ id: "u1", role: "user", content: "What time is it?" }] });
    while (prepared.length === 0) await new Promise((done) => setTimeout(done, 5));
    rt.abort(threadId);
    return (await first).status;
  }, threadId);
  assert.equal(stopped, "aborted");
  await api("/test/cut", { threadId, cuts: [{ frame: 3, byte: 0 }] });
  await page.evaluate((threadId) => {
    window.late.done = window.late.rt.run({ threadId, messages: [{ id: "u2", role: "user", content: "What's the weather in Paris?" }] });
  }, threadId);
  await page.waitForFunction(() => window.late.events.length >= 3, null, { timeout: 60_000 });
  // The stopped round's prepareRequest settles now, while the next run streams.
  await page.evaluate(async () => {
    window.releaseHeld();
    await new Promise((done) => setTimeout(done, 50));
  });
  await api("/test/break", {});
  const got = await page.evaluate(async () => {
    const result = await window.late.done;
    window.late.rt.free();
    return { status: result.status, error: result.error, answer: result.messages.at(-1).content, prepared: window.late.prepared, called: window.late.called };
  });
  assert.equal(got.status, "completed", JSON.stringify(got.error));
  assert.match(got.answer, /In Paris it is/);
  const stoppedRun = got.prepared[0].runId;
  const nextRun = got.prepared[1].runId;
  assert.deepEqual(got.called.filter((c) => c.runId === stoppedRun), [], "fetch is never called for the stopped round");
  assert.deepEqual(got.called.slice(0, 2), [{ runId: nextRun, lastEventId: null }, { runId: nextRun, lastEventId: "2" }]);
  const requests = await api(`/test/requests?threadId=${threadId}`);
  assert.equal(requests.length, 3, "the run, its re-POST, the restart");
  assert.ok(requests.every((r) => r.body.runId !== stoppedRun), "nothing of the stopped round reached the server");
  assert.equal(requests[1].headers["last-event-id"], "2");
  assert.deepEqual(requests[1].body, requests[0].body, "the re-POST is the next run's own body");
});

test("a prepareRequest that rejects after Stop is no cause of the next run's error", { timeout: TIMEOUT }, async () => {
  await api("/test/reset", {});
  const threadId = "late-reject";
  await api("/test/script", { threadId, responses: [{ status: 500, contentType: "text/plain", body: "down" }] });
  const got = await page.evaluate(async (threadId) => {
    let held = true;
    let rejectHeld;
    let openGate;
    const gate = new Promise((resolve) => { openGate = resolve; });
    const rt = new ChatRuntime({
      runUrl: "/api/threads/{threadId}/runs",
      toolsUrl: null,
      // The next run's request waits until the stopped round's prepareRequest has rejected.
      fetch: async (url, init) => { await gate; return fetch(url, init); },
      prepareRequest: (body) => {
        if (!held) return body;
        held = false;
        return new Promise((_, reject) => { rejectHeld = reject; });
      },
    });
    const first = rt.run({ threadId, messages: [{ id: "u1", role: "user", content: "one" }] });
    while (!rejectHeld) await new Promise((done) => setTimeout(done, 5));
    rt.abort(threadId);
    const stopped = (await first).status;
    const next = rt.run({ threadId, messages: [{ id: "u2", role: "user", content: "two" }] });
    rejectHeld(new Error("the stopped round's"));
    await new Promise((done) => setTimeout(done, 50));
    openGate();
    const result = await next;
    rt.free();
    return { stopped, status: result.status, code: result.error?.code, httpStatus: result.error?.status, hasCause: result.error && "cause" in result.error };
  }, threadId);
  assert.deepEqual(got, { stopped: "aborted", status: "error", code: "run/http", httpStatus: 500, hasCause: false });
});
