// Type-level test of the package's declarations: compiled with `tsc --noEmit` in `make test`.
// Every line must type-check; the `@ts-expect-error` lines must NOT (tsc fails if they would).
import init, {
  initSync,
  ChatRuntimeError,
  decodeEventStream,
  decodeEventStreamReport,
  type AgUiEvent,
  type DecodeReport,
  type DecodeWarning,
  type Message,
  type RunAgentInput,
} from "../pkg/chat_runtime.js";

export async function usesTheApi(bytes: Uint8Array, wasm: BufferSource): Promise<string[]> {
  await init();
  initSync({ module: wasm });
  const events: AgUiEvent[] = decodeEventStream(bytes);
  decodeEventStream("data: {}\n\n", { verify: false, maxEventBytes: 1024 });
  const report: DecodeReport = decodeEventStreamReport(bytes);
  const ids: string[] = [];
  for (const event of events) {
    switch (event.type) {
      case "TEXT_MESSAGE_CONTENT":
        ids.push(event.messageId + event.delta);
        break;
      case "TOOL_CALL_START":
        ids.push(event.toolCallName, event.parentMessageId ?? "");
        break;
      case "RUN_FINISHED":
        if (event.outcome?.type === "success") ids.push(...(event.outcome.pendingToolCallIds ?? []));
        if (event.outcome?.type === "interrupt") ids.push(event.outcome.interrupts[0].reason);
        break;
      case "MESSAGES_SNAPSHOT":
        for (const message of event.messages) {
          if (message.role === "assistant") ids.push(...(message.toolCalls ?? []).map((c) => c.function.arguments));
          if (message.role === "tool") ids.push(message.toolCallId, message.error ?? "");
        }
        break;
      case "STATE_DELTA":
        ids.push(...event.delta.map((op) => op.path));
        break;
      default:
        ids.push(event.type);
    }
  }
  const warning: DecodeWarning | undefined = report.warnings[0];
  if (warning?.kind === "legacy_event") ids.push(warning.translatedTo);
  if (report.lastEventId !== undefined) ids.push(report.lastEventId);
  return ids;
}

export function handlesErrors(input: string): string {
  try {
    decodeEventStream(input);
    return "ok";
  } catch (e) {
    // @ts-expect-error: a caught value is `unknown` until it is narrowed
    void e.code;
    if (!(e instanceof ChatRuntimeError)) throw e;
    return `${e.code}:${e.index ?? -1}:${e.field ?? ""}:${e.status ?? 0}:${e.toolName ?? ""}`;
  }
}

export const input: RunAgentInput = {
  threadId: "t",
  runId: "r",
  messages: [{ id: "1", role: "user", content: "hi" } satisfies Message],
  tools: [{ name: "get_weather", description: "weather", parameters: { type: "object" } }],
  context: [],
};

// @ts-expect-error: numbers are not a stream
decodeEventStream(42);
// @ts-expect-error: a tool message needs its toolCallId
export const bad: Message = { id: "x", role: "tool", content: "r" };

// ---- ChatRuntime ---------------------------------------------------------------------------------
import {
  ChatRuntime,
  type ChatRuntimeOptions,
  type Diagnostic,
  type FrontendTool,
  type Interrupt,
  type ResumeEntry,
  type RunOptions,
  type RunRequest,
  type RunResult,
  type RunStatus,
  type RuntimeEvent,
  type ToolCatalogReport,
  type ToolContext,
  type ToolEntry,
  type ToolHandler,
  type ToolManifestEntry,
  type ToolSchema,
} from "../pkg/chat_runtime.js";

const options: ChatRuntimeOptions = {
  runUrl: "/api/threads/{threadId}/runs",
  toolsUrl: null,
  fetch: (input, init) => fetch(input, init),
  headers: { Authorization: "Bearer token" },
  importModule: (url) => import(url),
  storage: null,
  history: "new",
  maxRounds: 4,
  toolTimeoutMs: 10_000,
  toolNamePrefix: "ui_",
  allowedImportOrigins: ["https://cdn.example"],
};

interface WeatherArgs {
  city: string;
}
const fetchWeather: ToolHandler<WeatherArgs, { temperature: number }> = async (args, ctx: ToolContext) => {
  ctx.signal.throwIfAborted();
  return { temperature: args.city.length + ctx.toolCallId.length + ctx.runId.length + ctx.threadId.length };
};
const weatherTool: FrontendTool<WeatherArgs> = {
  name: ctx_name("get_weather"),
  description: "weather",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  handler: fetchWeather,
  followUp: true,
  timeoutMs: 5000,
};
function ctx_name(name: string): string {
  return name;
}
export const manifest: ToolManifestEntry[] = [
  { tool: { name: "get_weather", description: "weather" }, importPath: "/tools/weather.js", entrypoint: "fetchWeather" },
  { tool: { type: "function", function: { name: "clock", description: "time" } }, importPath: "clock.js", entrypoint: "now", followUp: false, timeoutMs: 100 },
];

export async function drivesTheRuntime(): Promise<RunStatus> {
  const rt = new ChatRuntime(options);
  const report: ToolCatalogReport = await rt.loadTools();
  const diagnostics: Diagnostic[] = report.diagnostics;
  rt.registerTool(weatherTool);
  rt.unregisterTool("other");
  rt.setBackendTools([{ name: "search_docs", description: "docs" }]);
  rt.setBackendTools({ items: [] });
  const rows: ToolEntry[] = rt.listTools(null).concat(rt.listTools("t1"));
  const locked: boolean = rows.some((row) => row.locked && row.source === "backend");
  rt.setToolEnabled("t1", "get_weather", !locked);
  const active: ToolSchema[] = rt.activeTools("t1");
  rt.setMessages("t1", [{ id: "u0", role: "user", content: "earlier" }]);
  const messages: Message[] = rt.messages("t1");
  const state: unknown = rt.state("t1");
  const running: boolean = rt.isRunning("t1");
  rt.subscribe((event) => console.log(event.type), { events: ["messages", "run_finished"] });
  const unsubscribe: () => void = rt.subscribe((event: RuntimeEvent) => {
    switch (event.type) {
      case "agui":
        console.log(event.event.type, event.runId);
        break;
      case "tool_started":
        console.log(event.toolName, event.args);
        break;
      case "tool_finished":
        console.log(event.error?.code ?? event.result);
        break;
      case "messages":
        console.log(event.messages.length);
        break;
      case "activity":
        console.log(event.threadId, Date.now() - event.at);
        break;
      case "toggles_changed":
        console.log(event.threadId ?? "default");
        break;
      case "diagnostic":
        console.log(event.diagnostic.code);
        break;
      case "run_finished":
        console.log(event.status, event.rounds);
        break;
      default:
        console.log(event.type);
    }
  });
  const controller = new AbortController();
  const request: RunRequest = {
    threadId: "t1",
    messages: [{ id: "u1", role: "user", content: "weather in Paris?" }],
    context: [{ description: "page", value: "/home" }],
    state: { step: 1 },
    forwardedProps: { model: "small" },
  };
  const runOptions: RunOptions = { signal: controller.signal };
  const result: RunResult = await rt.run(request, runOptions);
  rt.abort("t1");
  unsubscribe();
  rt.free();
  console.log(diagnostics, active, messages, state, running, result.newMessages, result.error?.status);
  return result.status;
}

/** Memory: a thread dropped once the app keeps its history; `false` when there was none. */
export function forgets(rt: ChatRuntime, threadId: string): boolean {
  const forgot: boolean = rt.forgetThread(threadId);
  return forgot;
}

/** Interrupts: the open ones, and a run that answers them. */
export async function answersInterrupts(rt: ChatRuntime): Promise<Interrupt[] | undefined> {
  const open: Interrupt[] = rt.interrupts("t1");
  const resume: ResumeEntry[] = open.map((i) =>
    i.responseSchema ? { interruptId: i.id, status: "resolved", payload: { approved: true } } : { interruptId: i.id, status: "cancelled" },
  );
  rt.subscribe((event) => console.log(event.interrupts?.map((i) => i.toolCallId)), { events: ["run_finished"] });
  const result = await rt.run({ threadId: "t1", messages: [], resume });
  const status: RunStatus = result.status;
  if (status === "interrupted") return result.interrupts;
  return undefined;
}
// @ts-expect-error: a resume status is "resolved" or "cancelled"
export const badResume: ResumeEntry = { interruptId: "i", status: "approved" };

// @ts-expect-error: runUrl is required
new ChatRuntime({ toolsUrl: null });
// @ts-expect-error: history is "full" or "new"
export const badHistory: ChatRuntimeOptions = { runUrl: "/r", history: "all" };
export const runPending: RunRequest = { threadId: "t1", messages: [], pending: "run" };
// @ts-expect-error: pending is "settle" or "run"
export const badPending: RunRequest = { threadId: "t1", pending: "drop" };

// The coder backend (issue 28): a Coder deployment's chats, no AG-UI request options.
export const coderOptions: ChatRuntimeOptions = {
  backend: { type: "coder", baseUrl: "/api/v2", organizationId: "6f1c", sessionToken: "t" },
  toolsUrl: "/tools/tools.json",
  storage: null,
  toolTimeoutMs: 10_000,
};
export const aguiBackend: ChatRuntimeOptions = { backend: { type: "agui" }, runUrl: "/r" };
// Cookie mode's CSRF token, a string or a function per request; the cross-origin opt-in.
export const coderCsrf: ChatRuntimeOptions[] = [
  { backend: { type: "coder", baseUrl: "/api/v2", organizationId: "6f1c", csrfToken: "c" } },
  { backend: { type: "coder", baseUrl: "/api/v2", organizationId: "6f1c", csrfToken: () => document.cookie || null } },
  { backend: { type: "coder", baseUrl: "https://c.example/api/v2", organizationId: "6f1c", sessionToken: "t", allowCrossOriginToken: true } },
];
// @ts-expect-error: csrfToken is a string or a function
export const coderCsrfNumber: ChatRuntimeOptions = { backend: { type: "coder", baseUrl: "/b", organizationId: "o", csrfToken: 5 } };
// @ts-expect-error: runUrl is an AG-UI option, refused with the coder backend
export const coderWithRunUrl: ChatRuntimeOptions = { backend: { type: "coder", baseUrl: "/b", organizationId: "o" }, runUrl: "/r" };
// @ts-expect-error: headers are an AG-UI option (the session token is the backend's)
export const coderWithHeaders: ChatRuntimeOptions = { backend: { type: "coder", baseUrl: "/b", organizationId: "o" }, headers: {} };
// @ts-expect-error: a coder backend names its organization
export const coderWithoutOrganization: ChatRuntimeOptions = { backend: { type: "coder", baseUrl: "/b" } };

// Which backend a runtime was made for: a read-only literal union.
export function isCoder(rt: ChatRuntime): boolean {
  const backend: "agui" | "coder" = rt.backend;
  // @ts-expect-error: read-only
  rt.backend = "coder";
  return backend === "coder";
}

export async function coderChat(rt: ChatRuntime): Promise<string | undefined> {
  // No threadId: a new chat; its id comes back as the result's.
  const first = await rt.run({ messages: [{ id: "u1", role: "user", content: "hi" }] });
  const next = await rt.run({ threadId: first.threadId, messages: [{ id: "u2", role: "user", content: "more" }] });
  rt.subscribe(
    (event) => {
      const wait: number = event.delayMs;
      const kind: string | undefined = event.kind;
      console.log(event.threadId, event.attempt, wait, kind, event.retryingAt);
    },
    { events: ["retry"] },
  );
  if (next.error instanceof ChatRuntimeError && next.error.code === "coder/http") {
    const validations = next.error.details?.validations ?? [];
    return validations.map((v) => `${v.field}: ${v.detail}`).join(", ") + String(next.error.status);
  }
  return next.error?.details?.kind;
}
