// The runtime's options, tools, errors and events as an app types them. Every `@ts-expect-error`
// line is something that must NOT compile (tsc fails if it does).
import {
  ChatRuntime,
  ChatRuntimeError,
  type BackendTools,
  type ChatRuntimeOptions,
  type FrontendTool,
  type Message,
  type OmittableRequestField,
  type PrepareRequestInfo,
  type RunAgentInput,
  type RunError,
  type RuntimeEvent,
  type RuntimeEventOf,
  type SubscribeOptions,
  type ToolManifestEntry,
} from "chat-runtime";

// ---- fetch: typed as it is called, fetch(url, init) ----
class FetchError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}
const token = (): string => "t0ken";
/** An app's auth wrapper: `init` optional, as its own callers use it. */
async function authFetch(url: string, init?: RequestInit): Promise<Response> {
  const response = await fetch(url, { ...init, headers: { ...init?.headers, Authorization: `Bearer ${token()}` } });
  if (response.status === 401) throw new FetchError(401);
  return response;
}
export const withWrapper = new ChatRuntime({ runUrl: "/runs/{threadId}", fetch: authFetch });
export const withGlobal = new ChatRuntime({ runUrl: "/runs/{threadId}", fetch: globalThis.fetch });
export const withBound: ChatRuntimeOptions = { runUrl: "/r", fetch: fetch.bind(globalThis) };
export const withLambda: ChatRuntimeOptions = { runUrl: "/r", fetch: (url, init) => fetch(`${url}?v=1`, { ...init, credentials: "include" }) };
// @ts-expect-error: the runtime passes a string url, not a Request
export const wantsRequest: ChatRuntimeOptions = { runUrl: "/r", fetch: (request: Request) => fetch(request) };
// @ts-expect-error: fetch must give a Response
export const noResponse: ChatRuntimeOptions = { runUrl: "/r", fetch: async (url: string) => url };

// ---- omitRequestFields: RunAgentInput members by name, a const array as it is ----
const notTaken = ["runId", "parentRunId", "state"] as const;
export const omitting: ChatRuntimeOptions = { runUrl: "/r", omitRequestFields: notTaken };
export const omittable: OmittableRequestField[] = ["threadId", "protocolVersion", "tools", "context", "forwardedProps"];
// @ts-expect-error: `messages` is what a run is about
export const omitsMessages: ChatRuntimeOptions = { runUrl: "/r", omitRequestFields: ["messages"] };
// @ts-expect-error: an AG-UI option, refused with the coder backend
export const coderOmits: ChatRuntimeOptions = { backend: { type: "coder", baseUrl: "/api/v2", organizationId: "o" }, omitRequestFields: ["state"] };

// ---- prepareRequest (sync or async) ----
export const shaped: ChatRuntimeOptions = {
  runUrl: "/r",
  // the server declares only messages, tools, context and forwarded_props
  prepareRequest: ({ messages, tools, context, forwardedProps }, { threadId, round }) => ({
    messages,
    tools,
    context,
    forwarded_props: { ...(forwardedProps as object | undefined), threadId, round },
  }),
};
export const shapedAsync: ChatRuntimeOptions = {
  runUrl: "/r",
  prepareRequest: async (body: RunAgentInput, info: PrepareRequestInfo) => {
    const { runId, state, ...rest } = body;
    void runId;
    void state;
    return { ...rest, round: info.round };
  },
};
// @ts-expect-error: the request body must be an object
export const sendsText: ChatRuntimeOptions = { runUrl: "/r", prepareRequest: (body) => JSON.stringify(body) };
// @ts-expect-error: `round` is a number
export const roundIsNumber: ChatRuntimeOptions = { runUrl: "/r", prepareRequest: (body, info: { threadId: string; round: string }) => body };

// ---- tools: no deadline, on by default ----
export const approval: FrontendTool<{ action: string }, { approved: boolean }> = {
  name: "confirm_action",
  description: "Ask the user to approve an action",
  parameters: { type: "object", properties: { action: { type: "string" } }, required: ["action"] },
  handler: async ({ action }, ctx) => ({ approved: action.length > 0 && !ctx.signal.aborted }),
  timeoutMs: null,
};
export const location: FrontendTool = {
  name: "get_location",
  description: "The user's location",
  handler: () => ({ lat: 0, lon: 0 }),
  defaultEnabled: true,
  timeoutMs: 5000,
};
export function registers(rt: ChatRuntime): void {
  rt.registerTool(approval);
  rt.registerTool(location);
  rt.registerTool({ name: "wait", description: "waits", handler: () => "ok", timeoutMs: null, defaultEnabled: false, followUp: false });
  // @ts-expect-error: timeoutMs is a number of milliseconds (or null), not a string
  rt.registerTool({ name: "slow", description: "slow", handler: () => "ok", timeoutMs: "5" });
  // @ts-expect-error: defaultEnabled is a boolean
  rt.registerTool({ name: "on", description: "on", handler: () => "ok", defaultEnabled: "yes" });
}
export const manifest: ToolManifestEntry[] = [
  { tool: { name: "confirm_action", description: "approve" }, importPath: "/tools/confirm.js", entrypoint: "confirm", timeoutMs: null },
  { tool: { name: "get_location", description: "where" }, importPath: "/tools/location.js", entrypoint: "locate", defaultEnabled: true },
];
// @ts-expect-error: timeoutMs is not a string in tools.json either
export const badManifest: ToolManifestEntry = { tool: { name: "x", description: "y" }, importPath: "/x.js", entrypoint: "x", timeoutMs: "5" };

// ---- backend tools: the agent's capabilities.tools, present or not ----
export function backend(rt: ChatRuntime, agent: { capabilities?: { tools?: { items?: { name: string; description: string }[]; supported?: boolean } } }): void {
  rt.setBackendTools(agent.capabilities?.tools);
  rt.setBackendTools(undefined);
  rt.setBackendTools(null);
  rt.setBackendTools({});
  rt.setBackendTools({ items: [{ name: "search", description: "search the docs" }] });
  const frozen: readonly { name: string; description: string }[] = Object.freeze([{ name: "a", description: "b" }]);
  rt.setBackendTools(frozen);
  const none: BackendTools = undefined;
  rt.setBackendTools(none);
  // @ts-expect-error: a tool needs its description
  rt.setBackendTools([{ name: "search" }]);
  // @ts-expect-error: `items` is an array of tools
  rt.setBackendTools({ items: "search" });
}

// ---- errors keep what the app threw ----
export async function errors(rt: ChatRuntime): Promise<string> {
  const result = await rt.run({ threadId: "t1", messages: [{ id: "u1", role: "user", content: "hi" }] });
  const error: RunError | undefined = result.error;
  if (error?.cause instanceof FetchError) return `${error.code} ${error.status ?? error.cause.status}`;
  // @ts-expect-error: the cause is whatever was thrown: `unknown` until narrowed
  void error?.cause.status;
  try {
    await rt.loadTools();
  } catch (e) {
    if (e instanceof ChatRuntimeError && e.code === "tools/fetch") {
      const cause: unknown = e.cause;
      return cause instanceof FetchError ? `login (${cause.status})` : `offline (${e.status ?? "?"})`;
    }
    throw e;
  }
  return "ok";
}

// ---- subscribe narrows the listener's event ----
export function subscribes(rt: ChatRuntime, render: (threadId: string, messages: Message[]) => void): Array<() => void> {
  const offs: Array<() => void> = [];
  offs.push(rt.subscribe((e) => render(e.threadId, e.messages), { events: ["messages"] }));
  offs.push(
    rt.subscribe(
      (e) => {
        // the union of the listed types, discriminated by `type`
        if (e.type === "messages") render(e.threadId, e.messages);
        else if (e.type === "state") console.log(e.threadId, e.state);
        else console.log(e.status, e.rounds, e.error?.code, e.error?.status);
      },
      { events: ["messages", "state", "run_finished"] },
    ),
  );
  const listed = ["tool_started", "tool_finished"] as const;
  offs.push(rt.subscribe((e) => console.log(e.toolName, e.toolCallId), { events: listed }));
  offs.push(rt.subscribe((e) => console.log(e.event.type, e.runId), { events: ["agui"] }));
  // no `events`: every event but `agui`
  offs.push(
    rt.subscribe((e) => {
      const notAgui: Exclude<RuntimeEvent["type"], "agui"> = e.type;
      if (e.type === "state") console.log(notAgui, e.state);
    }),
  );
  offs.push(rt.subscribe((e) => console.log(e.type), {}));
  offs.push(rt.subscribe((e) => console.log(e.type), null));
  // a listener for several types, written once and subscribed to some of them
  const onMessages = (e: RuntimeEventOf<"messages">): void => render(e.threadId, e.messages);
  offs.push(rt.subscribe(onMessages, { events: ["messages"] }));
  const onAny = (e: RuntimeEvent): void => console.log(e.type);
  offs.push(rt.subscribe(onAny), rt.subscribe(onAny, { events: ["agui", "diagnostic"] }));
  // options not known in advance: any event, `agui` included
  const options: SubscribeOptions = { events: ["agui", "messages"] };
  offs.push(rt.subscribe(onAny, options));
  // @ts-expect-error: a messages listener subscribed to tool_started events
  rt.subscribe(onMessages, { events: ["tool_started"] });
  // @ts-expect-error: with `messages` and `state` listed, the event may be a state event
  rt.subscribe((e) => e.messages, { events: ["messages", "state"] });
  // @ts-expect-error: without `events` the listener may get any event (a messages listener does not do)
  rt.subscribe(onMessages);
  // @ts-expect-error: `agui` events come only when listed
  rt.subscribe((e) => e.type === "agui");
  // @ts-expect-error: options not known in advance may list `agui`: the listener must take any event
  rt.subscribe((e: Exclude<RuntimeEvent, { type: "agui" }>) => e.type, options);
  // @ts-expect-error: no such event type
  rt.subscribe(() => {}, { events: ["message"] });
  return offs;
}
