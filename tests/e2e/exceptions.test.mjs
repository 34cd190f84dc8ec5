// End-to-end: no JavaScript exception makes the runtime unusable (docs/guarantees.md). Each test
// makes one browser API the runtime calls throw (or a page's replacement of it throw) while a turn
// with a tool call runs: RegExp construction and execution, JSON.stringify / JSON.parse, the string concatenation that joins a request body, storage,
// fetch, import(), the body reads, AbortController and its signal, the timers, frames and the
// console. That turn must settle (resolve or reject, never hang); then, with the API restored, the
// same runtime completes a whole turn (tool call, restart, answer) as if nothing had happened.
// In headless Chromium against the scripted server.
import { test } from "node:test";
import assert from "node:assert/strict";

import { answer, api as harnessApi, browserSuite, finished, started } from "./harness.mjs";

const TIMEOUT = 90_000;

const suite = browserSuite();

const api = (path, body) => harnessApi(suite.base, path, body);
const script = (threadId, responses) => api("/test/script", { threadId, responses });

const callRun = (threadId) => ({
  events: [
    started(threadId, "s1"),
    { type: "TEXT_MESSAGE_START", messageId: "a0", role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "a0", delta: "Calling echo." },
    { type: "TEXT_MESSAGE_END", messageId: "a0" },
    { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "echo", parentMessageId: "a1" },
    { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: JSON.stringify({ text: "hello", mode: "loud" }) },
    { type: "TOOL_CALL_END", toolCallId: "c1" },
    finished(threadId, "s1"),
  ],
});

/**
 * The patches, by name: each is the body of a function run in the page that replaces an API and
 * returns the function that puts it back. `when`: "create" patches before the runtime is made and
 * its tools loaded, "run" (default) only around the first turn.
 */
const PATCHES = {
  "new RegExp throws": `const Original = RegExp;
    globalThis.RegExp = function () { throw new SyntaxError("Regular expression too large"); };
    return () => { globalThis.RegExp = Original; };`,
  "RegExp.prototype.test throws": `const original = RegExp.prototype.test;
    RegExp.prototype.test = function () { throw new RangeError("Maximum call stack size exceeded"); };
    return () => { RegExp.prototype.test = original; };`,
  "RegExp.prototype.exec throws": `const original = RegExp.prototype.exec;
    RegExp.prototype.exec = function () { throw new RangeError("Maximum call stack size exceeded"); };
    return () => { RegExp.prototype.exec = original; };`,
  "String.prototype.concat throws (the request body is joined with it)": `const original = String.prototype.concat;
    String.prototype.concat = function () { throw new RangeError("Invalid string length"); };
    return () => { String.prototype.concat = original; };`,
  "JSON.stringify throws": `const original = JSON.stringify;
    JSON.stringify = () => { throw new TypeError("stringify is broken"); };
    return () => { JSON.stringify = original; };`,
  "JSON.parse throws": `const original = JSON.parse;
    JSON.parse = () => { throw new SyntaxError("parse is broken"); };
    return () => { JSON.parse = original; };`,
  "Storage getItem and setItem throw": `const { getItem, setItem } = Storage.prototype;
    Storage.prototype.getItem = () => { throw new DOMException("denied", "SecurityError"); };
    Storage.prototype.setItem = () => { throw new DOMException("full", "QuotaExceededError"); };
    return () => { Object.assign(Storage.prototype, { getItem, setItem }); };`,
  "fetch throws synchronously": `const original = globalThis.fetch;
    globalThis.fetch = () => { throw new TypeError("fetch is broken"); };
    return () => { globalThis.fetch = original; };`,
  "fetch returns a Response whose getters throw": `const original = globalThis.fetch;
    globalThis.fetch = async (...args) => {
      const response = await original(...args);
      for (const name of ["body", "headers", "status", "url", "ok"]) {
        Object.defineProperty(response, name, { get() { throw new TypeError(name + " is broken"); } });
      }
      return response;
    };
    return () => { globalThis.fetch = original; };`,
  "fetch returns a Response whose body is not a stream": `const original = globalThis.fetch;
    globalThis.fetch = async (...args) => {
      const response = await original(...args);
      Object.defineProperty(response, "body", { get() { return { locked: false }; } });
      return response;
    };
    return () => { globalThis.fetch = original; };`,
  "ReadableStream.prototype.getReader throws": `const original = ReadableStream.prototype.getReader;
    ReadableStream.prototype.getReader = () => { throw new TypeError("getReader is broken"); };
    return () => { ReadableStream.prototype.getReader = original; };`,
  "ReadableStreamDefaultReader.prototype.read throws": `const original = ReadableStreamDefaultReader.prototype.read;
    ReadableStreamDefaultReader.prototype.read = () => { throw new TypeError("read is broken"); };
    return () => { ReadableStreamDefaultReader.prototype.read = original; };`,
  "ReadableStreamDefaultReader.prototype.read gives a detached chunk": `const original = ReadableStreamDefaultReader.prototype.read;
    ReadableStreamDefaultReader.prototype.read = async function () {
      const chunk = await original.call(this);
      if (!chunk.done) structuredClone(chunk.value.buffer, { transfer: [chunk.value.buffer] });
      return chunk;
    };
    return () => { ReadableStreamDefaultReader.prototype.read = original; };`,
  "Response.prototype.text throws": `const original = Response.prototype.text;
    Response.prototype.text = () => { throw new TypeError("text is broken"); };
    return () => { Response.prototype.text = original; };`,
  "import() fails (importModule throws)": null, // an option, below
  "new AbortController throws": `const Original = AbortController;
    globalThis.AbortController = function () { throw new TypeError("AbortController is broken"); };
    return () => { globalThis.AbortController = Original; };`,
  "AbortController.prototype.abort throws": `const original = AbortController.prototype.abort;
    AbortController.prototype.abort = () => { throw new TypeError("abort is broken"); };
    return () => { AbortController.prototype.abort = original; };`,
  "AbortSignal.prototype.aborted throws": `const descriptor = Object.getOwnPropertyDescriptor(AbortSignal.prototype, "aborted");
    Object.defineProperty(AbortSignal.prototype, "aborted", { configurable: true, get() { throw new TypeError("aborted is broken"); } });
    return () => { Object.defineProperty(AbortSignal.prototype, "aborted", descriptor); };`,
  "AbortSignal.prototype.addEventListener throws": `const original = EventTarget.prototype.addEventListener;
    EventTarget.prototype.addEventListener = function (...args) {
      if (this instanceof AbortSignal) throw new TypeError("addEventListener is broken");
      return original.apply(this, args);
    };
    return () => { EventTarget.prototype.addEventListener = original; };`,
  "setTimeout and clearTimeout throw": `const { setTimeout: set, clearTimeout: clear } = globalThis;
    globalThis.setTimeout = () => { throw new TypeError("setTimeout is broken"); };
    globalThis.clearTimeout = () => { throw new TypeError("clearTimeout is broken"); };
    return () => { globalThis.setTimeout = set; globalThis.clearTimeout = clear; };`,
  "requestAnimationFrame and setTimeout throw": `const { requestAnimationFrame: raf, setTimeout: set } = globalThis;
    globalThis.requestAnimationFrame = () => { throw new TypeError("requestAnimationFrame is broken"); };
    globalThis.setTimeout = () => { throw new TypeError("setTimeout is broken"); };
    return () => { globalThis.requestAnimationFrame = raf; globalThis.setTimeout = set; };`,
  "console.error throws (a subscriber throws too)": `const original = console.error;
    console.error = () => { throw new Error("console.error is broken (a test framework)"); };
    window.throwingListener = true;
    return () => { console.error = original; window.throwingListener = false; };`,
  "performance.now and Date.now throw": `const { now } = performance; const dateNow = Date.now;
    performance.now = () => { throw new TypeError("performance.now is broken"); };
    Date.now = () => { throw new TypeError("Date.now is broken"); };
    return () => { performance.now = now; Date.now = dateNow; };`,
  "Promise.race throws": `const original = Promise.race;
    Promise.race = () => { throw new TypeError("race is broken"); };
    return () => { Promise.race = original; };`,
  "new URL throws": `const Original = URL;
    globalThis.URL = function () { throw new TypeError("URL is broken"); };
    return () => { globalThis.URL = Original; };`,
};

for (const [name, patch] of Object.entries(PATCHES)) {
  const when = /^new URL|^new RegExp/.test(name) ? ["create", "run"] : ["run"];
  for (const phase of when) {
    test(`${name} (${phase === "create" ? "while the tools load" : "during a turn"}): the turn settles, then the same runtime completes a turn`, { timeout: TIMEOUT }, async () => {
      await script("t1", [callRun("t1"), answer("t1")]);
      await script("t2", [callRun("t2"), answer("t2")]);
      const first = await suite.page.evaluate(
        async ({ patch, phase, importThrows }) => {
          const realSetTimeout = window.setTimeout;
          const apply = () => (patch ? new Function(patch)() : () => {});
          let restore = phase === "create" ? apply() : null;
          window.importThrows = importThrows;
          const rt = (window.rt = new ChatRuntime({
            runUrl: "/api/threads/{threadId}/runs",
            toolsUrl: "/tools/tools.json",
            importModule: (url) => {
              if (window.importThrows) throw new TypeError("import is broken");
              return import(url);
            },
          }));
          window.events = [];
          rt.subscribe((event) => {
            window.events.push(event.type);
            if (window.throwingListener) throw new Error("a listener threw");
          });
          let loaded;
          try {
            loaded = await rt.loadTools();
          } catch (error) {
            loaded = { error: String(error) };
          }
          for (const thread of ["t1", "t2"]) {
            try {
              rt.setToolEnabled(thread, "echo", true);
            } catch {
              // Storage or the runtime refused: the second turn enables it again.
            }
          }
          restore ??= apply();
          const hung = Symbol("hung");
          let settled;
          try {
            // Not `Promise.race`: one of the patches replaces it.
            settled = await new Promise((done) => {
              rt.run({ threadId: "t1", messages: [{ id: "u1", role: "user", content: "Go" }] }).then(
                (result) => done({ status: result.status }),
                (error) => done({ rejected: String(error) }),
              );
              realSetTimeout(() => done(hung), 20_000);
            });
          } finally {
            restore();
            window.importThrows = false;
          }
          return { loaded: loaded.error ?? "ok", settled: settled === hung ? "hung" : settled };
        },
        { patch, phase, importThrows: name.startsWith("import()") },
      );
      assert.notEqual(first.settled, "hung", `the first turn never settled: ${JSON.stringify(first)}`);

      const second = await suite.page.evaluate(async () => {
        const rt = window.rt;
        if (!rt.listTools("t2").some((t) => t.name === "echo")) await rt.loadTools();
        rt.setToolEnabled("t2", "echo", true);
        const result = await rt.run({ threadId: "t2", messages: [{ id: "u2", role: "user", content: "Go" }] });
        return {
          status: result.status,
          tool: result.messages.filter((m) => m.role === "tool").map((m) => [m.toolCallId, m.content, m.error ?? null]),
          last: result.messages.at(-1).content,
          running: rt.isRunning("t1") || rt.isRunning("t2"),
        };
      });
      assert.deepEqual(second, {
        status: "completed",
        tool: [["c1", JSON.stringify({ text: "hello", mode: "loud" }), null]],
        last: "Done.",
        running: false,
      });
    });
  }
}
