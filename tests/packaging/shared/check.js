// The check every fixture runs on the installed package (copied into each fixture as check.js):
// the wasm initialises, a recorded AG-UI stream decodes into the right events, and a ChatRuntime
// works (a code-defined tool is listed and runs through the runtime's own validation), and its
// errors, thrown or rejected, are instances of the exported `ChatRuntimeError`.
import init, { ChatRuntime, ChatRuntimeError, decodeEventStream } from "chat-runtime";

export const STREAM = [
  { type: "RUN_STARTED", threadId: "t1", runId: "r1" },
  { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" },
  { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "Hello " },
  { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "from the tarball" },
  { type: "TEXT_MESSAGE_END", messageId: "m1" },
  { type: "RUN_FINISHED", threadId: "t1", runId: "r1" },
]
  .map((event) => `data: ${JSON.stringify(event)}\n\n`)
  .join("");

/** What the checks need to know about an error the runtime threw or rejected with. */
function describeError(error) {
  return {
    exported: typeof ChatRuntimeError === "function",
    instanceOfChatRuntimeError: error instanceof ChatRuntimeError,
    instanceOfError: error instanceof Error,
    name: error?.name,
    code: error?.code,
    status: error?.status,
    hasStack: typeof error?.stack === "string" && error.stack.length > 0,
  };
}

/** `initialise` defaults to `init()` (the wasm next to the package's JS). */
export async function check(initialise = () => init()) {
  await initialise();
  const events = decodeEventStream(STREAM);
  const runtime = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs", toolsUrl: null, storage: null });
  runtime.registerTool({
    name: "echo",
    description: "Returns its arguments",
    parameters: { type: "object", properties: { text: { type: "string" } } },
    handler: (args) => args,
  });
  runtime.setToolEnabled("t1", "echo", true);
  const result = {
    types: events.map((e) => e.type),
    text: events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join(""),
    tools: runtime.listTools("t1").map((t) => `${t.name}:${t.enabled}`),
    active: runtime.activeTools("t1").map((t) => t.name),
  };
  runtime.free();

  // A thrown error (bad options) and a rejected promise (tools.json answered 404, through the
  // `fetch` option so that no request leaves the page).
  try {
    new ChatRuntime({});
    result.thrown = "nothing";
  } catch (error) {
    result.thrown = describeError(error);
  }
  const missing = new ChatRuntime({
    runUrl: "/api/threads/{threadId}/runs",
    toolsUrl: "https://example.invalid/tools.json",
    storage: null,
    fetch: async () => new Response("missing", { status: 404 }),
  });
  result.rejected = await missing.loadTools().then(() => "resolved", describeError);
  missing.free();
  return result;
}

/** In a page: runs the check and shows the result in #result (data-done="true" when finished). */
export function checkInPage() {
  const out = document.querySelector("#result");
  check().then(
    (result) => {
      out.textContent = JSON.stringify(result);
      out.dataset.done = "true";
    },
    (error) => {
      out.textContent = JSON.stringify({ error: String(error?.stack ?? error) });
      out.dataset.done = "true";
    },
  );
}
