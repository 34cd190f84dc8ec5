// LangGraph through ag-ui-langgraph (langgraph_app.py, a checkpointer keeps the thread) with
// ChatRuntime in headless Chromium, in both history modes.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { callsOf, lastText, scenarios, serverSuite, turnedOff } from "./suite.mjs";

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
