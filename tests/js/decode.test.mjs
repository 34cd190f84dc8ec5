// JS-level tests of the npm package in Node: `initSync` with the wasm bytes, then `decodeEventStream`
// against the conformance corpus written by the official @ag-ui/encoder and against real captures.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";

import { initSync, decodeEventStream, decodeEventStreamReport } from "../../pkg/chat_runtime.js";

initSync({ module: readFileSync(new URL("../../pkg/chat_runtime_bg.wasm", import.meta.url)) });

const fixtures = new URL("../fixtures/", import.meta.url);
const corpus = JSON.parse(readFileSync(new URL("conformance/index.json", fixtures), "utf8"));
const caseNames = Array.isArray(corpus) ? corpus : corpus.cases.map((c) => c.name ?? c);

for (const name of caseNames) {
  test(`conformance corpus "${name}" decodes to the official encoder's events`, () => {
    const sse = readFileSync(new URL(`conformance/${name}.sse`, fixtures));
    const expected = JSON.parse(readFileSync(new URL(`conformance/${name}.json`, fixtures), "utf8"));
    assert.deepStrictEqual(decodeEventStream(new Uint8Array(sse)), expected);
    assert.deepStrictEqual(decodeEventStream(sse.toString("utf8")), expected);
  });
}

test("real captures decode to what JSON.parse of each data line gives", () => {
  for (const server of ["pydantic-ai", "ag-ui-server-starter"]) {
    const dir = new URL(`agui-real/${server}/`, fixtures);
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".sse") && f !== "bad-input.sse")) {
      const text = readFileSync(new URL(file, dir), "utf8");
      const expected = text
        .split("\n\n")
        .filter((frame) => frame.trim())
        .map((frame) => JSON.parse(frame.replace(/^data: /, "")));
      assert.deepStrictEqual(decodeEventStream(text), expected, `${server}/${file}`);
    }
  }
});

test("CRLF line ends and a BOM decode like LF", () => {
  const lf = 'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\ndata: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n\n';
  const crlf = "\uFEFF" + lf.replaceAll("\n", "\r\n");
  assert.deepStrictEqual(decodeEventStream(crlf), decodeEventStream(lf));
});

/** Asserts that decoding `input` throws a ChatRuntimeError with `code` (and `index` if given). */
function assertDecodeError(input, code, index, options) {
  assert.throws(
    () => decodeEventStream(input, options),
    (error) => {
      assert.ok(error instanceof Error, "a real Error");
      assert.equal(error.name, "ChatRuntimeError");
      assert.equal(error.code, code, error.message);
      if (index !== undefined) assert.equal(error.index, index);
      return true;
    },
  );
}

const runStarted = 'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n';

test("a malformed known field is a decode/field error naming the event and field", () => {
  const input = runStarted + 'data: {"type":"TEXT_MESSAGE_START","messageId":42}\n\n';
  assert.throws(
    () => decodeEventStream(input),
    (error) => error.code === "decode/field" && error.index === 1 &&
      error.eventType === "TEXT_MESSAGE_START" && error.field === "messageId",
  );
});

test("a missing required field names the field", () => {
  assert.throws(
    () => decodeEventStream('data: {"type":"RUN_STARTED","threadId":"t"}\n\n'),
    (error) => error.code === "decode/field" && error.index === 0 && error.field === "runId",
  );
});

test("bad JSON, a missing type and a truncated stream have their own codes", () => {
  assertDecodeError(runStarted + "data: {not json\n\n", "decode/json", 1);
  assertDecodeError(runStarted + 'data: {"threadId":"t"}\n\n', "decode/no-type", 1);
  assertDecodeError(runStarted + 'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}', "decode/truncated", 1);
});

test("an event over the size cap is decode/too-large", () => {
  const big = `data: {"type":"CUSTOM","name":"x","value":"${"a".repeat(2048)}"}\n\n`;
  assertDecodeError(runStarted + big, "decode/too-large", 1, { maxEventBytes: 1024 });
  assert.equal(decodeEventStream(runStarted + big, { maxEventBytes: 4096, verify: false }).length, 2);
});

test("ordering rules are checked unless verify is false", () => {
  const input = runStarted + 'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}\n\n';
  assertDecodeError(input, "decode/order", 1);
  assert.equal(decodeEventStream(input, { verify: false }).length, 2);
});

test("unknown event types are kept and reported", () => {
  const input = runStarted + 'data: {"type":"SOMETHING_NEW","x":1}\n\n';
  const report = decodeEventStreamReport(input);
  assert.deepStrictEqual(report.events[1], { type: "SOMETHING_NEW", x: 1 });
  assert.deepStrictEqual(report.warnings, [{ kind: "unknown_event_type", index: 1, eventType: "SOMETHING_NEW" }]);
});

test("the last SSE id is reported for resuming", () => {
  const report = decodeEventStreamReport("id: 7\n" + runStarted);
  assert.equal(report.lastEventId, "7");
});

test("input of the wrong type is decode/input", () => {
  assertDecodeError(42, "decode/input");
});
