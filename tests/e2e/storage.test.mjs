// End-to-end: the tool toggles over the browser's REAL localStorage, in headless Chromium. A fresh
// browser context per test is a fresh, empty localStorage for the page's origin; `page.reload()`
// keeps it, so a new runtime after a reload reads back what the last one saved.
import { test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./harness.mjs";

const TIMEOUT = 90_000;

const suite = browserSuite();

/** Waits until the (re)loaded /runtime.html has set `window.ChatRuntime`. */
async function open() {
  await suite.page.waitForSelector("body[data-ready=true]", { state: "attached", timeout: 60_000 });
}

/**
 * Creates `window.rt` (tools from /tools/tools.json loaded) and `window.diagnostics`, the
 * `diagnostic` events' payloads in order.
 */
async function createRuntime() {
  await suite.page.evaluate(async () => {
    window.diagnostics = [];
    const rt = (window.rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs" }));
    rt.subscribe((event) => window.diagnostics.push(event.diagnostic), { events: ["diagnostic"] });
    const report = await rt.loadTools();
    if (report.diagnostics.length) throw new Error(JSON.stringify(report.diagnostics));
    // `on(thread)`: the names of the frontend tools shown as enabled for that thread.
    window.on = (thread) => rt.listTools(thread).filter((e) => !e.locked && e.enabled).map((e) => e.name).sort();
  });
}

/** Every `chat:tools:` key in localStorage with its raw value. */
const stored = () =>
  suite.page.evaluate(() =>
    Object.fromEntries(
      Object.keys(localStorage)
        .filter((key) => key.startsWith("chat:tools:"))
        .sort()
        .map((key) => [key, localStorage.getItem(key)]),
    ),
  );

test("thread \"default\" and the no-thread default (null) keep independent toggles", { timeout: TIMEOUT }, async () => {
  await createRuntime();
  const before = await suite.page.evaluate(() => localStorage.getItem("chat:tools:default"));
  assert.equal(before, null);

  const seen = await suite.page.evaluate(() => {
    rt.setToolEnabled("default", "get_browser_time", true);
    return { thread: on("default"), none: on(null), other: on("other") };
  });
  assert.deepEqual(seen, { thread: ["get_browser_time"], none: [], other: [] }, "enabling in thread \"default\" changed the default");
  assert.deepEqual(await stored(), { "chat:tools:~default": '{"get_browser_time":true}' }, "chat:tools:default is untouched");

  // And the other way round: a change of the default is not a change of thread "default".
  const after = await suite.page.evaluate(() => {
    rt.setToolEnabled(null, "echo", true);
    return { thread: on("default"), none: on(null), other: on("other") };
  });
  assert.deepEqual(after, { thread: ["get_browser_time"], none: ["echo"], other: ["echo"] });
  assert.deepEqual(await stored(), {
    "chat:tools:default": '{"echo":true}',
    "chat:tools:~default": '{"get_browser_time":true}',
  });

  // A new runtime on a reloaded page reads each back from its own key.
  await suite.page.reload();
  await open();
  await createRuntime();
  const reloaded = await suite.page.evaluate(() => ({ thread: on("default"), none: on(null), other: on("other") }));
  assert.deepEqual(reloaded, { thread: ["get_browser_time"], none: ["echo"], other: ["echo"] });
  assert.deepEqual(await suite.page.evaluate(() => window.diagnostics), []);
});

test("storage full: every change tries again, and once space is back nothing is lost", { timeout: TIMEOUT }, async () => {
  await createRuntime();

  // Fill localStorage to the last character with one growing key, until setItem throws a real
  // QuotaExceededError even for one more character.
  const fill = await suite.page.evaluate(() => {
    let size = 0;
    let step = 1 << 20;
    const errors = new Set();
    while (step >= 1) {
      try {
        localStorage.setItem("filler", "x".repeat(size + step));
        size += step;
      } catch (error) {
        errors.add(error.name);
        step >>= 1;
      }
    }
    let probe = null;
    try {
      localStorage.setItem("probe", "{}");
    } catch (error) {
      probe = error.name;
    }
    return { size, errors: [...errors], probe };
  });
  assert.deepEqual(fill.errors, ["QuotaExceededError"], JSON.stringify(fill));
  assert.equal(fill.probe, "QuotaExceededError", "the storage is full");
  assert.ok(fill.size > 1_000_000, `filled ${fill.size} characters`);

  // Two changes while full, on two keys: each write fails with a diagnostic; the second change
  // also retries the first one's key (and fails again).
  const full = await suite.page.evaluate(() => {
    rt.setToolEnabled("t1", "get_browser_time", true);
    const first = window.diagnostics.splice(0);
    rt.setToolEnabled(null, "record_ctx", true);
    const second = window.diagnostics.splice(0);
    return { first, second, t1: on("t1"), none: on(null) };
  });
  assert.equal(full.first.length, 1, JSON.stringify(full.first));
  assert.equal(full.first[0].code, "toggles/storage-unavailable");
  assert.equal(full.first[0].name, "get_browser_time");
  assert.match(full.first[0].message, /chat:tools:t1/);
  assert.match(full.first[0].message, /QuotaExceededError/);
  assert.ok(full.second.length >= 1, "the second change failed too");
  assert.ok(full.second.every((d) => d.code === "toggles/storage-unavailable"), JSON.stringify(full.second));
  assert.ok(full.second.some((d) => d.name === "record_ctx" && /chat:tools:default/.test(d.message)), JSON.stringify(full.second));
  assert.deepEqual({ t1: full.t1, none: full.none }, { t1: ["get_browser_time"], none: ["record_ctx"] }, "kept in memory");
  assert.deepEqual(await stored(), {}, "nothing could be saved");

  // Space is back: the next change (another tool) saves itself and retries both earlier keys.
  const freed = await suite.page.evaluate(() => {
    localStorage.removeItem("filler");
    rt.setToolEnabled("t1", "echo", true);
    return window.diagnostics.splice(0);
  });
  assert.deepEqual(freed, [], "no diagnostic once space is back");
  assert.deepEqual(await stored(), {
    "chat:tools:default": '{"record_ctx":true}',
    "chat:tools:t1": '{"echo":true,"get_browser_time":true}',
  });

  // After a reload, a new runtime shows every change.
  await suite.page.reload();
  await open();
  await createRuntime();
  const reloaded = await suite.page.evaluate(() => ({ t1: on("t1"), none: on(null), t2: on("t2"), diagnostics: window.diagnostics }));
  assert.deepEqual(reloaded, { t1: ["echo", "get_browser_time"], none: ["record_ctx"], t2: ["record_ctx"], diagnostics: [] });
});
