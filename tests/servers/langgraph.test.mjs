// LangGraph through ag-ui-langgraph (langgraph_app.py, a checkpointer keeps the thread) with
// ChatRuntime in headless Chromium, in both history modes.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { callsOf, lastText, scenarios, serverSuite, sseEvents, turnedOff } from "./suite.mjs";

const suite = serverSuite("langgraph_app.py");

describe("ag-ui-langgraph, history new", () => {
  scenarios(suite, "new");
});

describe("ag-ui-langgraph, history full", () => {
  scenarios(suite, "full");
});

// ag-ui-langgraph keeps the request's tools in its state (STATE_SNAPSHOT carries `tools`) and
// offers the union of the request's tools and the state's. The runtime sends the state without
// that copy, so a tool turned off is not offered again; sent back as the server wrote it (as
// `@ag-ui/client` does), the tool is offered, called, answered TOOL_NOT_AVAILABLE: one more round.
describe("ag-ui-langgraph, a tool turned off after a turn that used it", () => {
  for (const history of ["new", "full"]) {
    test(`${history}: not offered again; the model answers plainly in one round`, { timeout: 90_000 }, async () => {
      const { rounds, requests, result, state } = await turnedOff(suite, history, `${history}-off`);
      assert.deepEqual(state.tools.map((t) => t.name), ["get_time"], "the server's snapshot holds its copy of the tools");
      assert.equal(rounds, 1);
      assert.equal(requests.length, 1);
      assert.equal(requests[0].body.state.tools, undefined, "the state is sent without the copy");
      assert.equal(lastText(result), "I cannot call get_time: not offered.");
      assert.deepEqual((await suite.calls()).map((c) => c.name), ["get_time"], "only the first turn's call ran");
    });

    test(`${history}: the server's copy sent back (prepareRequest) re-offers it: TOOL_NOT_AVAILABLE, one round more`, { timeout: 90_000 }, async () => {
      const { rounds, requests, result } = await turnedOff(suite, history, `${history}-off-sent`, { sendServerTools: true });
      assert.equal(rounds, 2);
      assert.equal(requests.length, 2);
      assert.deepEqual(requests[0].body.state.tools.map((t) => t.name), ["get_time"]);
      const [, restartCalls] = requests.map((r) => callsOf(r.response));
      const answer = result.messages.filter((m) => m.role === "tool").at(-1);
      assert.match(answer.content, /^TOOL ERROR: TOOL_NOT_AVAILABLE\n/);
      assert.deepEqual(restartCalls, [], "the restart ends the turn");
      assert.equal(lastText(result), `Results: ${answer.toolCallId} => ${answer.content}`);
      assert.deepEqual((await suite.calls()).map((c) => c.name), ["get_time"], "the disabled tool never ran");
    });
  }
});

// ag-ui-langgraph streams a call's arguments from the chunks after the one that opens it: a model
// that sends a first piece in the opening chunk (OpenAI's models do not) loses it in TOOL_CALL_ARGS.
// Its MESSAGES_SNAPSHOT, sent before RUN_FINISHED, has them whole; the runtime runs a call after
// RUN_FINISHED, from the thread, so with the whole arguments. A `followUp: false` tool runs as soon
// as its call is complete, usually before the snapshot is read, and then fails validation.
describe("ag-ui-langgraph, arguments in the chunk that opens a call", () => {
  test("the stream loses them, the snapshot restores them: the call runs with the whole arguments", { timeout: 90_000 }, async () => {
    const threadId = "eager";
    await suite.createRuntime(threadId, { history: "new", enable: ["get_time"] });
    const result = await suite.turn(threadId, "call get_time eagerly");
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.equal(result.rounds, 2);
    const [first] = await suite.requests(threadId);
    const events = sseEvents(first.response);
    const streamed = events.filter((e) => e.type === "TOOL_CALL_ARGS").map((e) => e.delta).join("");
    assert.equal(streamed, ': "UTC"}', "the piece of the opening chunk is not streamed");
    const snapshot = events.findLastIndex((e) => e.type === "MESSAGES_SNAPSHOT");
    assert.equal(events[snapshot].messages.at(-1).toolCalls[0].function.arguments, '{"zone": "UTC"}', "the snapshot has them whole");
    assert.ok(snapshot < events.findIndex((e) => e.type === "RUN_FINISHED"), "the snapshot comes before RUN_FINISHED");
    assert.deepEqual((await suite.calls()).map((c) => c.args), [{ zone: "UTC" }]);
  });

  test("a followUp: false tool never gets the cut arguments", { timeout: 90_000 }, async () => {
    const threadId = "eager-ff";
    await suite.createRuntime(threadId, { history: "new" });
    await suite.page.evaluate((threadId) => {
      window.rt.registerTool({
        name: "note",
        description: "Takes a note.",
        parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
        followUp: false,
        handler: (args, ctx) => {
          (globalThis.__calls ??= []).push({ name: "note", toolCallId: ctx.toolCallId, args });
          return "noted";
        },
      });
      window.rt.setToolEnabled(threadId, "note", true);
    }, threadId);
    const result = await suite.turn(threadId, "call note eagerly");
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.equal(result.rounds, 1, "a followUp: false call never restarts");
    const [first] = await suite.requests(threadId);
    const streamed = sseEvents(first.response).filter((e) => e.type === "TOOL_CALL_ARGS").map((e) => e.delta).join("");
    assert.equal(streamed, ' "hello"}', "the piece of the opening chunk is not streamed");
    // It runs once its call is complete: with the streamed (cut) arguments, which fail validation,
    // or, when the snapshot came in the same read, with the snapshot's whole ones.
    const finished = await suite.page.evaluate(() => window.events.filter((e) => e.type === "tool_finished"));
    assert.equal(finished.length, 1);
    const calls = await suite.calls();
    if (finished[0].error) {
      assert.equal(finished[0].error.code, "INVALID_TOOL_ARGUMENTS");
      assert.deepEqual(calls, [], "the handler never got the cut arguments");
    } else {
      assert.equal(finished[0].result, "noted");
      assert.deepEqual(calls.map((c) => c.args), [{ text: "hello" }]);
    }
  });
});
