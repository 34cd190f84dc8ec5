// AG-UI 1.0 interrupts against the real servers, ChatRuntime in headless Chromium:
// - pydantic-ai's AGUIAdapter: the backend tool `delete_notes` is declared requires_approval=True
//   (threads `approve-*` of pydantic_app.py); the run ends with the interrupt outcome naming the
//   call, and the next run's `resume` approves or rejects it;
// - ag-ui-langgraph with emit_interrupt_outcome=True: a node calls LangGraph's `interrupt(...)`
//   ("ask ..." in langgraph_app.py), and the next run's `resume` payload is what it returns.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { lastText, serverSuite, sseEvents } from "./suite.mjs";

const TIMEOUT = 90_000;

/** Runs `request` in the page; resolves `{ result }` or `{ error: { code, message, field, interruptId } }`. */
const run = (suite, request) =>
  suite.page.evaluate(
    (request) =>
      window.rt.run(request).then(
        (result) => ({ result }),
        (error) => ({ error: { code: error.code, message: error.message, field: error.field, interruptId: error.interruptId, isChatRuntimeError: error instanceof window.ChatRuntimeError } }),
      ),
    request,
  );

const user = (text) => ({ id: crypto.randomUUID(), role: "user", content: text });
const open = (suite, threadId) => suite.page.evaluate((threadId) => window.rt.interrupts(threadId), threadId);
const finishedEvents = (suite) => suite.page.evaluate(() => window.finished);
const toolMessages = (result) => result.messages.filter((m) => m.role === "tool");

/** A runtime on the page that records `run_finished` events in `window.finished`. */
async function runtime(suite, threadId, history) {
  await suite.createRuntime(threadId, { history });
  await suite.page.evaluate(() => {
    window.finished = [];
    window.rt.subscribe((event) => window.finished.push(event), { events: ["run_finished"] });
  });
}

describe("pydantic-ai AGUIAdapter: a tool that requires approval", () => {
  const suite = serverSuite("pydantic_app.py");

  /** The user asks; the run ends interrupted. Returns the interrupt. */
  async function asked(threadId) {
    await runtime(suite, threadId, "full");
    const { result, error } = await run(suite, { threadId, messages: [user("call delete_notes")] });
    assert.equal(error, undefined, JSON.stringify(error));
    assert.equal(result.status, "interrupted", JSON.stringify(result.error));
    assert.equal(result.rounds, 1);
    const [interrupt] = result.interrupts;
    assert.equal(result.interrupts.length, 1);
    const [call] = result.messages.flatMap((m) => m.toolCalls ?? []);
    assert.equal(call.function.name, "delete_notes");
    assert.equal(interrupt.toolCallId, call.id);
    assert.equal(interrupt.id, `int-${call.id}`);
    assert.equal(interrupt.reason, "tool_call");
    assert.deepEqual(interrupt.responseSchema.required, ["approved"]);
    // The interrupts as the server sent them.
    const [request] = await suite.requests(threadId);
    const finished = sseEvents(request.response).find((e) => e.type === "RUN_FINISHED");
    assert.deepEqual(result.interrupts, finished.outcome.interrupts);
    assert.deepEqual(await open(suite, threadId), result.interrupts);
    const [event] = await finishedEvents(suite);
    assert.equal(event.status, "interrupted");
    assert.deepEqual(event.interrupts, result.interrupts);
    // The call is the server's: no tool message, no handler.
    assert.deepEqual(toolMessages(result), []);
    assert.deepEqual(await suite.calls(), []);
    return interrupt;
  }

  test("approve: the server runs the tool and the turn goes on", { timeout: TIMEOUT }, async () => {
    const threadId = "approve-yes";
    const interrupt = await asked(threadId);
    const { result, error } = await run(suite, { threadId, messages: [], resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }] });
    assert.equal(error, undefined, JSON.stringify(error));
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.equal(result.interrupts, undefined);
    assert.deepEqual(toolMessages(result).map((m) => [m.toolCallId, m.content]), [[interrupt.toolCallId, "deleted 3 notes"]]);
    assert.equal(lastText(result), `Results: ${interrupt.toolCallId} => deleted 3 notes`);
    assert.deepEqual(await open(suite, threadId), []);
    const requests = await suite.requests(threadId);
    assert.equal(requests.length, 2);
    assert.deepEqual(requests[1].body.resume, [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }]);
    assert.deepEqual(requests[1].body.messages.filter((m) => m.role === "tool"), [], "the runtime answered nothing for the call");
    // The next turn needs no resume.
    const next = await run(suite, { threadId, messages: [user("thanks")] });
    assert.equal(next.result.status, "completed", JSON.stringify(next));
    assert.equal(lastText(next.result), "You said: thanks");
  });

  test("reject: the model hears the reason; a new user message rides along", { timeout: TIMEOUT }, async () => {
    const threadId = "approve-no";
    const interrupt = await asked(threadId);
    const { result, error } = await run(suite, {
      threadId,
      messages: [user("no, keep them")],
      resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: false, reason: "keep them" } }],
    });
    assert.equal(error, undefined, JSON.stringify(error));
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.deepEqual(toolMessages(result).map((m) => [m.toolCallId, m.content]), [[interrupt.toolCallId, "keep them"]]);
    const requests = await suite.requests(threadId);
    assert.equal(requests.length, 2);
    assert.equal(requests[1].body.messages.at(-1).content, "no, keep them");
  });

  test("an off-schema payload and a run that does not answer are refused before anything is sent", { timeout: TIMEOUT }, async () => {
    const threadId = "approve-bad";
    const interrupt = await asked(threadId);
    const bad = await run(suite, { threadId, messages: [], resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: "yes" } }] });
    assert.equal(bad.result, undefined);
    assert.deepEqual(bad.error, {
      code: "input/invalid",
      message: bad.error.message,
      field: "/approved",
      interruptId: interrupt.id,
      isChatRuntimeError: true,
    });
    assert.match(bad.error.message, /expected a boolean/);
    const unanswered = await run(suite, { threadId, messages: [user("hello?")] });
    assert.equal(unanswered.error.code, "run/unanswered-interrupts");
    assert.equal((await suite.requests(threadId)).length, 1, "nothing was sent");
    assert.equal(await suite.page.evaluate((threadId) => window.rt.messages(threadId).length, threadId), 2, "the refused message was not added");
    assert.deepEqual(await open(suite, threadId), [interrupt]);
    // Cancelled: pydantic-ai denies the call.
    const { result } = await run(suite, { threadId, messages: [], resume: [{ interruptId: interrupt.id, status: "cancelled" }] });
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.deepEqual(toolMessages(result).map((m) => m.content), ["Cancelled by user."]);
  });
});

describe("ag-ui-langgraph with emit_interrupt_outcome=True: interrupt() in a node", () => {
  const suite = serverSuite("langgraph_app.py");

  for (const history of ["new", "full"]) {
    test(`${history}: the run ends interrupted; resume's payload is what interrupt() returns`, { timeout: TIMEOUT }, async () => {
      const threadId = `ask-${history}`;
      await runtime(suite, threadId, history);
      const first = await run(suite, { threadId, messages: [user("ask delete my notes?")] });
      assert.equal(first.result.status, "interrupted", JSON.stringify(first));
      const [interrupt] = first.result.interrupts;
      assert.equal(first.result.interrupts.length, 1);
      assert.equal(interrupt.reason, "confirm");
      assert.equal(interrupt.message, "delete my notes?");
      assert.deepEqual(interrupt.responseSchema, { type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"] });
      assert.deepEqual(await open(suite, threadId), first.result.interrupts);

      const bad = await run(suite, { threadId, messages: [], resume: [{ interruptId: interrupt.id, status: "resolved", payload: {} }] });
      assert.equal(bad.error.code, "input/invalid");
      assert.equal(bad.error.field, "/approved");
      assert.equal((await suite.requests(threadId)).length, 1, "nothing was sent");

      const resumed = await run(suite, { threadId, messages: [], resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }] });
      assert.equal(resumed.result.status, "completed", JSON.stringify(resumed));
      assert.equal(lastText(resumed.result), 'Answer: {"approved": true}');
      assert.deepEqual(await open(suite, threadId), []);
      const requests = await suite.requests(threadId);
      assert.equal(requests.length, 2);
      assert.deepEqual(requests[1].body.resume, [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }]);
      const events = await finishedEvents(suite);
      assert.deepEqual(events.map((e) => e.status), ["interrupted", "completed"]);
    });
  }
});
