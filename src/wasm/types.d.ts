// ---- AG-UI 1.0 wire types (camelCase; optional fields are omitted, never null) ----------------

/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** One RFC 6902 JSON Patch operation. */
export type JsonPatchOperation =
  | { op: "add" | "replace" | "test"; path: string; value: JsonValue }
  | { op: "remove"; path: string }
  | { op: "move" | "copy"; from: string; path: string };

/** The content parts of AG-UI, with `metadata` of type `Metadata`. */
type PartOf<Metadata> =
  | { type: "text"; text: string; id?: string; metadata?: Metadata }
  | {
      type: "image" | "audio" | "video" | "document";
      source:
        | { type: "data"; value: string; mimeType: string }
        | { type: "url"; value: string; mimeType?: string }
        | { type: "file"; value: string; provider?: string; mimeType?: string };
      id?: string;
      metadata?: Metadata;
    };

/** A content part of a user or tool message. */
export type ContentPart = PartOf<JsonObject>;

/**
 * A content part as `setMessages` and `run` take it: AG-UI 1.0's {@link ContentPart}, or 0.0.x's
 * (`metadata` of any type, the deprecated `binary` part). Kept as given.
 */
export type ContentPartInput =
  | PartOf<unknown>
  | { type: "binary"; mimeType: string; id?: string; url?: string; data?: string; filename?: string };

/** A tool call inside an assistant message. `arguments` is JSON text. */
export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
  encryptedValue?: string;
  metadata?: JsonObject;
}

interface MessageBase {
  id: string;
  encryptedValue?: string;
  metadata?: JsonObject;
  subagentRunId?: string;
}
/** The AG-UI messages, discriminated by `role`; `Part` is the type of a content part. */
type MessageOf<Part> =
  | (MessageBase & { role: "developer"; content: string; name?: string })
  | (MessageBase & { role: "system"; content: string; name?: string })
  | (MessageBase & { role: "user"; content: string | Part[]; name?: string })
  | (MessageBase & { role: "assistant"; content?: string; toolCalls?: ToolCall[]; name?: string })
  | (MessageBase & { role: "tool"; content: string | Part[]; toolCallId: string; error?: string })
  | { id: string; role: "activity"; activityType: string; content: JsonObject; metadata?: JsonObject; subagentRunId?: string }
  | (MessageBase & { role: "reasoning"; content: string });
/** An AG-UI 1.0 message, as the runtime gives it out (`messages()`, events, `RunResult`). */
export type Message = MessageOf<ContentPart>;
/**
 * A message as `setMessages` and `run` take it: an AG-UI 1.0 {@link Message}, or an AG-UI 0.0.x one
 * (its content parts, see {@link ContentPartInput}).
 */
export type MessageInput = MessageOf<ContentPartInput>;

/** A tool offered to the agent. */
export interface ToolSchema {
  name: string;
  description: string;
  parameters?: JsonObject;
  metadata?: JsonObject;
}
/** A piece of context for the agent. */
export interface Context {
  description: string;
  value: string;
}
/** The body of a run request. */
export interface RunAgentInput {
  threadId: string;
  runId: string;
  protocolVersion?: string;
  parentRunId?: string;
  state?: JsonValue;
  messages: Message[];
  tools: ToolSchema[];
  context: Context[];
  forwardedProps?: JsonValue;
  resume?: { interruptId: string; status: "resolved" | "cancelled"; payload?: JsonValue; metadata?: JsonObject }[];
}

/** Token usage of one model call. */
export interface TokenUsage {
  provider?: string;
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  reasoningTokens?: number;
  cachedInputTokens?: number;
  cacheWriteInputTokens?: number;
}
/** An open interrupt of a run. */
export interface Interrupt {
  id: string;
  reason: string;
  message?: string;
  toolCallId?: string;
  responseSchema?: JsonObject;
  expiresAt?: string;
  metadata?: JsonObject;
  subagentRunId?: string;
}
/** `RUN_FINISHED.outcome`; absent means success. */
export type RunFinishedOutcome =
  | { type: "success"; pendingToolCallIds?: string[] }
  | { type: "interrupt"; interrupts: Interrupt[] }
  | { type: "cancelled" };

interface EventBase {
  timestamp?: number;
  rawEvent?: JsonValue;
  metadata?: JsonObject;
}
interface SubagentScoped extends EventBase {
  subagentRunId?: string;
}

/** An AG-UI 1.0 event as it is on the wire. */
export type AgUiEvent =
  | (EventBase & { type: "RUN_STARTED"; threadId: string; runId: string; protocolVersion?: string; parentRunId?: string; input?: RunAgentInput })
  | (EventBase & { type: "RUN_FINISHED"; threadId: string; runId: string; result?: JsonValue; outcome?: RunFinishedOutcome; usage?: TokenUsage[] })
  | (EventBase & { type: "RUN_ERROR"; message: string; code?: string; usage?: TokenUsage[] })
  | (SubagentScoped & { type: "STEP_STARTED"; stepName: string })
  | (SubagentScoped & { type: "STEP_FINISHED"; stepName: string })
  | (SubagentScoped & { type: "TEXT_MESSAGE_START"; messageId: string; role?: "developer" | "system" | "assistant" | "user"; name?: string })
  | (SubagentScoped & { type: "TEXT_MESSAGE_CONTENT"; messageId: string; delta: string })
  | (SubagentScoped & { type: "TEXT_MESSAGE_END"; messageId: string })
  | (SubagentScoped & { type: "TEXT_MESSAGE_CHUNK"; messageId?: string; role?: "developer" | "system" | "assistant" | "user"; delta?: string; name?: string })
  | (SubagentScoped & { type: "TOOL_CALL_START"; toolCallId: string; toolCallName: string; parentMessageId?: string })
  | (SubagentScoped & { type: "TOOL_CALL_ARGS"; toolCallId: string; delta: string })
  | (SubagentScoped & { type: "TOOL_CALL_END"; toolCallId: string })
  | (SubagentScoped & { type: "TOOL_CALL_CHUNK"; toolCallId?: string; toolCallName?: string; parentMessageId?: string; delta?: string })
  | (SubagentScoped & { type: "TOOL_CALL_RESULT"; messageId: string; toolCallId: string; content: string | ContentPart[]; role?: "tool" })
  | (SubagentScoped & { type: "STATE_SNAPSHOT"; snapshot: JsonValue })
  | (SubagentScoped & { type: "STATE_DELTA"; delta: JsonPatchOperation[] })
  | (EventBase & { type: "MESSAGES_SNAPSHOT"; messages: Message[] })
  | (SubagentScoped & { type: "ACTIVITY_SNAPSHOT"; messageId: string; activityType: string; content: JsonObject; replace?: boolean })
  | (SubagentScoped & { type: "ACTIVITY_DELTA"; messageId: string; activityType: string; patch: JsonPatchOperation[] })
  | (SubagentScoped & { type: "RAW"; event: JsonValue; source?: string })
  | (SubagentScoped & { type: "CUSTOM"; name: string; value: JsonValue })
  | (SubagentScoped & { type: "REASONING_START"; messageId: string })
  | (SubagentScoped & { type: "REASONING_MESSAGE_START"; messageId: string; role: "reasoning" })
  | (SubagentScoped & { type: "REASONING_MESSAGE_CONTENT"; messageId: string; delta: string })
  | (SubagentScoped & { type: "REASONING_MESSAGE_END"; messageId: string })
  | (SubagentScoped & { type: "REASONING_MESSAGE_CHUNK"; messageId?: string; delta?: string })
  | (SubagentScoped & { type: "REASONING_END"; messageId: string })
  | (SubagentScoped & { type: "REASONING_ENCRYPTED_VALUE"; subtype: "tool-call" | "message"; entityId: string; encryptedValue: string })
  | (EventBase & { type: "SUBAGENT_STARTED"; subagentRunId: string; name: string; description?: string; parentSubagentRunId?: string; parentToolCallId?: string; parentMessageId?: string })
  | (EventBase & { type: "SUBAGENT_FINISHED"; subagentRunId: string; result?: JsonValue; outcome?: { type: "success" } | { type: "suspended"; interruptIds?: string[] } })
  | (EventBase & { type: "SUBAGENT_ERROR"; subagentRunId: string; message: string; code?: string });

/** The `type` strings of the AG-UI 1.0 events. */
export type AgUiEventType = AgUiEvent["type"];

// ---- decoding -----------------------------------------------------------------------------------

/** Options of `decodeEventStream`. */
export interface DecodeOptions {
  /** Check the AG-UI ordering rules (default `true`). */
  verify?: boolean;
  /** The largest single event accepted, in bytes (default 16 MiB). */
  maxEventBytes?: number;
}

/** Something the decoder accepted but wants you to know. */
export type DecodeWarning =
  | { kind: "unknown_event_type"; index: number; eventType: string }
  | { kind: "legacy_event"; index: number; eventType: string; translatedTo: string }
  | { kind: "legacy_title_dropped"; index: number; title: string }
  | { kind: "legacy_minted_id"; index: number; eventType: string; id: string };

/** What `decodeEventStreamReport` returns. */
export interface DecodeReport {
  events: AgUiEvent[];
  warnings: DecodeWarning[];
  /** The last SSE `id:` seen, for resuming a stream. */
  lastEventId?: string;
}

/**
 * Every error this package throws (and every promise it rejects for a programmer error): a real
 * `Error` with `name` `"ChatRuntimeError"`, a stable `code` and, where they apply, the fields below.
 * Exported, so `e instanceof ChatRuntimeError` tells them from other errors and narrows `e`.
 */
export class ChatRuntimeError extends Error {
  /**
   * `details` become fields of the error (`index`, `eventType`, `field`, `status`, `toolName`, or
   * an app's own); `cause` becomes the standard `Error` cause; a key the error already has (`name`,
   * `code`, `message`, `stack`, ...) is ignored.
   */
  constructor(code: string, message: string, details?: Record<string, unknown>);
  name: "ChatRuntimeError";
  /**
   * What went wrong, stable across versions: `options/invalid`, `input/invalid`, `run/busy`,
   * `run/bad-request`, `tools/fetch`, `tools/not-json`, `tools/locked`, `tool/bad-name` (from
   * `registerTool`), `decode/field`, `runtime/freed`, ... (the README lists them all).
   */
  code: string;
  /** The 0-based position of the event in the stream, for `decode/...` errors. */
  index?: number;
  /** The `type` of the offending event, when known (`decode/...`). */
  eventType?: string;
  /** The path of the offending field (`decode/field`), or the argument (`input/invalid`: `"threadId"`; for a `resume` payload, the JSON pointer in it: `"/approved"`). */
  field?: string;
  /** The HTTP status, for `tools/fetch` (also taken from a thrown value's numeric `status`). */
  status?: number;
  /** The tool, for `registerTool`'s `tool/...` errors and `tools/locked`. */
  toolName?: string;
  /** The interrupt whose `resume` payload is off its `responseSchema` (`input/invalid`). */
  interruptId?: string;
  /** What the app's code threw, e.g. its `fetch` for `tools/fetch`: the very value. */
  cause?: unknown;
  /** What a Coder server said beyond the message, for a run's `coder/error` and `coder/http`. */
  details?: ChatErrorDetails;
}

/**
 * `ChatRuntimeError.details`, members present only when the server gave them. For `coder/error`
 * (the chat's `error` event): `kind` (`"overloaded"`, `"rate_limit"`, ...), `retryable`,
 * `provider`, `statusCode` (the provider's HTTP status), `detail`. For `coder/http` (a REST call
 * refused; the status is `status`): Coder's body, `message`, `detail`, `validations`.
 */
export interface ChatErrorDetails {
  kind?: string;
  retryable?: boolean;
  provider?: string;
  statusCode?: number;
  detail?: string;
  message?: string;
  validations?: { field: string; detail: string }[];
}

// ---- the runtime ----------------------------------------------------------------------------

/**
 * Options of `new ChatRuntime(options)`: an AG-UI agent (`runUrl`, the default backend) or a Coder
 * deployment's chats (`backend: { type: "coder", ... }`).
 */
export type ChatRuntimeOptions = AgUiRuntimeOptions | CoderRuntimeOptions;

/** The `backend` option: AG-UI (the default), or a Coder deployment's chats. */
export type ChatRuntimeBackend =
  | { type: "agui" }
  | {
      type: "coder";
      /** The deployment's API base, `"/api/v2"` (same origin as the page: no CORS) or `"https://coder.example/api/v2"`. */
      baseUrl: string;
      /**
       * The organization new chats are created in: a UUID (the forms Coder's decoder takes); any
       * other string throws `options/invalid` (`field: "backend.organizationId"`).
       */
      organizationId: string;
      /**
       * Token mode: sent as `Coder-Session-Token` on every REST call, which goes without the
       * page's cookies (`credentials: "omit"`), and as the stream's `coder_session_token` query
       * parameter (a browser WebSocket sends no headers; it always carries the page's cookies,
       * which Coder reads first: docs/coder.md, "Auth"); never put in `headers` nor in an error.
       * Absent: cookie mode, the page's Coder session cookie authenticates. With a `baseUrl` of
       * another origin than the page's it throws `options/invalid` unless `allowCrossOriginToken`.
       */
      sessionToken?: string;
      /**
       * Cookie mode: the `X-CSRF-TOKEN` Coder requires on every cookie-carrying POST; a function
       * is called for each POST (what it throws fails that request as a throwing `fetch` does).
       * Default: the page's `<meta property="csrf-token">`, read for each POST, as Coder's own
       * site does. Not sent in token mode.
       */
      csrfToken?: string | (() => string | null | undefined);
      /**
       * Lets a `sessionToken` go to a `baseUrl` on another origin than the page's (it travels in
       * the stream's URL there). Default `false`: such options throw `options/invalid`.
       */
      allowCrossOriginToken?: boolean;
      /**
       * How many times in a row the chat's stream may close without progress before the run
       * ends `coder/stream`. Default: no bound (Coder's own site reconnects forever: 1 s
       * doubling to 10 s, each wait ±30 %).
       */
      maxReconnects?: number | null;
      /** `CreateChatRequest.model_config_id` of new chats (a UUID). */
      modelConfigId?: string;
      /** `CreateChatRequest.system_prompt` of new chats. */
      systemPrompt?: string;
      /** `CreateChatRequest.workspace_id` of new chats (a UUID). */
      workspaceId?: string;
      /** `CreateChatRequest.labels` of new chats. */
      labels?: Record<string, string>;
      /** `CreateChatRequest.mcp_server_ids` of new chats (UUIDs). */
      mcpServerIds?: string[];
      /** `CreateChatRequest.reasoning_effort` of new chats. */
      reasoningEffort?: string;
      /** `CreateChatRequest.plan_mode` of new chats. */
      planMode?: string;
    };

/** The options both backends take. */
export interface RuntimeOptionsBase {
  /** Where `tools.json` is (default `"/tools/tools.json"`); `null`: no manifest. */
  toolsUrl?: string | null;
  /**
   * A `fetch` of your own (auth wrappers, proxies, extra headers), called as `fetch(url, init)`;
   * default `globalThis.fetch`. With the coder backend every REST call goes through it (the stream
   * is a WebSocket and does not). What it throws or rejects with is kept as `cause` (a numeric
   * `status` on it makes `run/http`).
   */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  /** How tool modules are loaded; default dynamic `import()`. */
  importModule?: (url: string) => Promise<Record<string, unknown>>;
  /** Where toggles are kept; default `localStorage`; `null`: memory only. */
  storage?: { getItem(key: string): string | null; setItem(key: string, value: string): void; removeItem(key: string): void } | null;
  /** A tool's time limit when it sets none, in ms (default 30000): loading its module and the call together. */
  toolTimeoutMs?: number;
  /** The largest tool result, in bytes of UTF-8 (a string) or of its JSON text (default 1048576); larger fails `TOOL_RESULT_TOO_LARGE`. */
  maxToolResultBytes?: number;
  /** Sent before frontend tool names (and stripped from incoming calls), e.g. `"ui_"`. */
  toolNamePrefix?: string;
  /** Foreign origins tool modules may be imported from, e.g. `["https://cdn.example"]`. */
  allowedImportOrigins?: string[];
}

/** The options of an AG-UI runtime (the default backend). */
export interface AgUiRuntimeOptions extends RuntimeOptionsBase {
  /** AG-UI (the default): absent, `null` or `{ type: "agui" }`. */
  backend?: { type: "agui" } | null;
  /**
   * The AG-UI run endpoint; `{threadId}` is filled in as one percent-encoded path segment, e.g.
   * `"/api/threads/{threadId}/runs"` (thread ids `""`, `"."`, `".."` and ids with a lone surrogate
   * are refused: README, "Thread ids").
   */
  runUrl: string;
  /**
   * Shapes each request of a run: called before every POST with the body and `{ threadId, round }`;
   * what it returns (or resolves with) is sent as JSON. Throwing, rejecting or a non-object ends the
   * run with `run/prepare-request` (the thrown value as `cause`) and sends nothing.
   */
  prepareRequest?: (body: RunAgentInput, info: PrepareRequestInfo) => object | Promise<object>;
  /**
   * Extra request headers. A name or value holding a lone UTF-16 surrogate throws
   * `options/invalid` (`field: "headers"`): no HTTP header can carry one.
   */
  headers?: Record<string, string>;
  /** `"full"` (default) sends the whole thread; `"new"` only what the server has not seen. */
  history?: "full" | "new";
  /**
   * The `RunAgentInput` members a server does not take, left out of every request body (before
   * `prepareRequest` sees it), e.g. `["runId", "parentRunId", "state"]` for a server that names
   * runs itself and keeps no client state. Another name throws `options/invalid`.
   */
  omitRequestFields?: readonly OmittableRequestField[];
  /** Restarts one turn may make (default 8). */
  maxRounds?: number;
}

/**
 * The `RunAgentInput` members `omitRequestFields` can leave out: all but `messages` (what a run is
 * about) and `resume` (sent only to answer interrupts).
 */
export type OmittableRequestField =
  | "threadId"
  | "runId"
  | "protocolVersion"
  | "parentRunId"
  | "state"
  | "tools"
  | "context"
  | "forwardedProps";

/**
 * The options of a runtime over a Coder deployment's chats. The options that only shape an AG-UI
 * request (`runUrl`, `prepareRequest`, `headers`, `history`, `omitRequestFields`, `maxRounds`)
 * throw `options/invalid` naming them: they would do nothing.
 */
export interface CoderRuntimeOptions extends RuntimeOptionsBase {
  backend: Extract<ChatRuntimeBackend, { type: "coder" }>;
  runUrl?: never;
  prepareRequest?: never;
  headers?: never;
  history?: never;
  omitRequestFields?: never;
  maxRounds?: never;
}

/** The second argument of `prepareRequest`. */
export interface PrepareRequestInfo {
  threadId: string;
  /** The request's round: 1 for the first, counting up with each restart (as `round_started`). */
  round: number;
}

/** One `run` call. */
export interface RunRequest {
  /**
   * The thread. With the coder backend it is the chat's id, and absent (or `null`, `""`) starts a
   * new chat: `result.threadId` is its id, to pass in the next `run`. An AG-UI run needs one.
   */
  threadId?: string | null;
  /** The new messages (usually the user's); messages whose id the thread has are not added again. */
  messages?: readonly MessageInput[];
  context?: readonly Context[];
  /** Replaces the thread's AG-UI state. */
  state?: unknown;
  forwardedProps?: unknown;
  /**
   * The answers to the thread's open interrupts (`interrupts(threadId)`), one for each; sent as
   * `RunAgentInput.resume` with the run's first request. A `resolved` payload is checked against
   * its interrupt's `responseSchema` first (`input/invalid`, `field` the JSON pointer).
   */
  resume?: readonly ResumeEntry[];
  /**
   * The browser calls of the thread's last assistant message that have no result (a history
   * loaded with `setMessages` after a reload mid-tool): `"settle"` (the default) answers them
   * `INTERRUPTED` before the request; `"run"` runs each once (toggles and validation as usual)
   * and sends their results.
   */
  pending?: "settle" | "run";
  /**
   * Coder: `threadId` is not a chat but the id this run goes by until the new chat it creates
   * has one (a `thread_created` event then names both, and `result.threadId` is the chat's).
   * Lets an app (the React adapter's `useThread(null)`) follow a new chat from its first message.
   * Refused (`run/bad-request`) on an AG-UI runtime.
   */
  newChat?: boolean;
  /**
   * Coder (`chat-runtime/coder`): the message's `busy_behavior`. Given, the message is posted as
   * soon as the chat's stream is read, busy or not: `"queue"` waits for the chat's turn on the
   * server, `"interrupt"` stops it. Absent: posted once the chat is idle.
   */
  busyBehavior?: "queue" | "interrupt";
}

/** The answer to an open interrupt. */
export interface ResumeEntry {
  interruptId: string;
  status: "resolved" | "cancelled";
  payload?: unknown;
  metadata?: JsonObject;
}

/** Options of `run`. */
export interface RunOptions {
  /** Aborts the run like `abort(threadId)`. */
  signal?: AbortSignal;
}

/** How a run ended. */
export type RunStatus = "completed" | "aborted" | "max_rounds" | "error" | "interrupted";

/** What `run` resolves with, for every ending. */
export interface RunResult {
  threadId: string;
  status: RunStatus;
  /** Runs sent: 1 + restarts. */
  rounds: number;
  /** The whole thread. With a `messages` subscriber these are the very objects the `messages`
   * events handed out (an unchanged message keeps its object); treat them as read-only. */
  messages: Message[];
  /** What this run added: the user's messages, the agent's, the tool results (objects of
   * `messages`). */
  newMessages: Message[];
  state?: unknown;
  error?: RunError;
  /** The open interrupts as the server sent them, for `status: "interrupted"`. */
  interrupts?: Interrupt[];
}

/**
 * Why a run ended with `status: "error"`: a `ChatRuntimeError` (the one error shape: `instanceof
 * ChatRuntimeError` holds for it as for every rejection), also in the `run_finished` event.
 */
export interface RunError extends ChatRuntimeError {
  /**
   * `run/http` (with `status`), `run/network`, `run/prepare-request`, `run/content-type`,
   * `run/truncated`, `run/max-rounds`, the agent's `RUN_ERROR` code or `run/error`, `decode/...`;
   * with the coder backend `coder/error` (the chat's error, `details`), `coder/http` (a REST call
   * refused: `status`, `details`), `coder/stream` (the stream could not be read) or `run/network`.
   */
  code: string;
  message: string;
  /** The HTTP status, for `run/http` and `coder/http`. */
  status?: number;
  /** What the app's `fetch` or `prepareRequest` threw or rejected with: the very value. */
  cause?: unknown;
}

/** A problem with one tool or with storage: skipped or fallen back, never fatal. */
export interface Diagnostic {
  /** The entry's position in tools.json (or in `capabilities.tools`). */
  index?: number;
  name?: string;
  /** `tool/bad-name`, `tool/duplicate-name`, `tool/shadows-backend`, `toggles/corrupt`, `toggles/storage-unavailable`, `run/unknown-pending-call`, ... */
  code: string;
  message: string;
}

/** One row of the tool selector. */
export interface ToolEntry {
  name: string;
  description: string;
  parameters?: JsonObject;
  source: "frontend" | "backend";
  /** Whether the agent gets it in this thread (backend tools: always). */
  enabled: boolean;
  /** Backend tools cannot be toggled. */
  locked: boolean;
}

/** What `loadTools` resolves with. */
export interface ToolCatalogReport {
  tools: ToolEntry[];
  diagnostics: Diagnostic[];
}

/** The second argument of every tool handler. */
export interface ToolContext {
  toolCallId: string;
  /** The tool's name (without any `toolNamePrefix`). */
  toolName: string;
  threadId: string;
  runId: string;
  /** Fires when the run is aborted or the tool times out. */
  signal: AbortSignal;
}

/** A tool's function: gets the validated arguments, returns a string or any JSON value. */
export type ToolHandler<Args = Record<string, unknown>, Result = unknown> = (
  args: Args,
  ctx: ToolContext,
) => Result | Promise<Result>;

/** A tool defined in code (`registerTool`). */
export interface FrontendTool<Args = any, Result = unknown> {
  name: string;
  description: string;
  parameters?: JsonObject;
  handler: ToolHandler<Args, Result>;
  /** `false`: fire-and-forget, runs as soon as the call arrives and never restarts the run. */
  followUp?: boolean;
  /** Its time limit in ms (default: the `toolTimeoutMs` option); `null`: none (Stop still cancels). */
  timeoutMs?: number | null;
  /** `true`: on in every thread whose saved toggles say nothing about it. */
  defaultEnabled?: boolean;
}

/** One entry of `tools.json`. */
export interface ToolManifestEntry {
  tool: { name: string; description: string; parameters?: JsonObject } | { type: "function"; function: { name: string; description: string; parameters?: JsonObject } };
  /** The module's URL, resolved against tools.json; same origin unless allowed. */
  importPath: string;
  /** The named export to call. */
  entrypoint: string;
  /** `false`: fire-and-forget, runs as soon as the call arrives and never restarts the run. */
  followUp?: boolean;
  /** Its time limit in ms (default: the `toolTimeoutMs` option); `null`: none (Stop still cancels). */
  timeoutMs?: number | null;
  /** `true`: on in every thread whose saved toggles say nothing about it. */
  defaultEnabled?: boolean;
}

/**
 * What `setBackendTools` takes: the agent's `capabilities.tools` as AG-UI has it (`{ items?, ... }`,
 * possibly absent), or the array of tools. Absent, `null` or no `items`: no backend tools.
 */
export type BackendTools = readonly ToolSchema[] | { items?: readonly ToolSchema[] } | null | undefined;

/** Everything a `subscribe` listener can receive. */
export type RuntimeEvent =
  | { type: "agui"; threadId: string; runId: string; event: AgUiEvent }
  | { type: "round_started"; threadId: string; runId: string; round: number }
  | { type: "tool_started"; threadId: string; runId: string; toolCallId: string; toolName: string; args: JsonValue }
  | { type: "tool_finished"; threadId: string; runId: string; toolCallId: string; toolName: string; result?: JsonValue; error?: { code: string; message: string } }
  /**
   * The thread's messages changed (at most one per thread and animation frame): those that were
   * added or changed, in thread order. With `replace: true` the list was replaced wholesale (a
   * `MESSAGES_SNAPSHOT`, `setMessages`, a Coder chat's committed copies in place of its streamed
   * previews and the page's own user message): `messages` is then the whole thread, and a
   * message it does not name is gone (`applyMessages(prev, e.messages, e.replace)` drops it).
   */
  | { type: "messages"; threadId: string; messages: Message[]; replace?: true }
  | { type: "state"; threadId: string; state: unknown }
  /**
   * Bytes of the thread's stream arrived since the last frame (any: `STATE_DELTA`, `STEP_*`, a
   * keep-alive comment), at most one per thread and animation frame. `at` is `Date.now()` then.
   * A running thread without one for a while has a silent stream ("the agent seems stuck").
   * Coder: when the chat's stream closed and is being reconnected, `reconnecting` is the attempt
   * (from 1, in a row) and `delayMs` the wait before it; the next `activity` without them is the
   * stream back (its first frame).
   */
  | { type: "activity"; threadId: string; at: number; reconnecting?: number; delayMs?: number }
  | { type: "toggles_changed"; threadId: string | null }
  | { type: "tools_changed" }
  | { type: "diagnostic"; diagnostic: Diagnostic }
  /**
   * Coder: a run started without a chat's id created its chat: the thread is `threadId` from now
   * on (its messages, toggles and events), and `previousThreadId` is the id the run started under
   * (the app's, with `newChat`).
   */
  | { type: "thread_created"; threadId: string; previousThreadId: string }
  /**
   * Coder: the chat's server retries its model call (the turn goes on): the `attempt` (from 1),
   * the wait before it, the failed attempt's `error`, and when known its `kind`
   * (`"overloaded"`, `"rate_limit"`, ...), `provider`, the provider's `statusCode` and
   * `retryingAt` (RFC 3339).
   */
  | { type: "retry"; threadId: string; attempt: number; delayMs: number; error: string; kind?: string; provider?: string; statusCode?: number; retryingAt?: string }
  /**
   * Coder: the chat's `title`, as each answer of the chat the runtime reads says it (the create,
   * a Stop's interrupt, a status read). coderd's chat stream does not carry title changes.
   */
  | { type: "title"; threadId: string; title: string }
  /**
   * Coder: the chat's queue of messages waiting for its turn to end (the stream's
   * `queue_update`, e.g. after a `busyBehavior: "queue"` message): the whole queue, coderd's
   * `ChatQueuedMessage` objects as sent (`id`, `chat_id`, `content`, `created_at`); empty: none.
   */
  | { type: "queue_update"; threadId: string; queuedMessages: JsonValue[] }
  /**
   * Coder: the chat's error (the stream's `error` event, the chat's `last_error`), also when it
   * ends no run of this page (a chat found in error on connect): coderd's `message`, and
   * `details` as a `coder/error` run's (`kind`, `retryable`, `provider`, `statusCode`, `detail`).
   */
  | { type: "last_error"; threadId: string; message: string; details: JsonObject }
  | { type: "run_finished"; threadId: string; status: RunStatus; rounds: number; error?: RunError; interrupts?: Interrupt[] };

/** The `type` strings of the runtime events. */
export type RuntimeEventType = RuntimeEvent["type"];
/** The runtime events of the given types, e.g. `RuntimeEventOf<"messages">`. */
export type RuntimeEventOf<T extends RuntimeEventType> = Extract<RuntimeEvent, { type: T }>;

/** Options of `subscribe`. */
export interface SubscribeOptions {
  /** Only these event types; default: every type but `"agui"` (one per streamed AG-UI event: ask for it by name). */
  events?: readonly RuntimeEventType[];
}

// The methods of `ChatRuntime`, merged into the generated `class ChatRuntime` (which declares
// only the constructor, `free` and `[Symbol.dispose]`). They are declared here with their
// documentation, not in src/wasm/class.rs, because wasm-bindgen copies a Rust doc comment into
// the JS glue as well as into this file: the package would ship every comment twice.
export interface ChatRuntime {
  /**
   * The backend the runtime was made for (the `backend` option): `"agui"` (the default) or
   * `"coder"`. For code handed a runtime it did not make (the React adapter's `runtime` prop).
   * Read-only; readable after `free()` too.
   */
  readonly backend: "agui" | "coder";
  /**
   * Fetches and validates `tools.json` (`toolsUrl`). Bad entries are skipped and reported in
   * `diagnostics`; the whole file fails (`tools/fetch`, `tools/not-json`, ...) only when it
   * cannot be used at all.
   */
  loadTools(): Promise<ToolCatalogReport>;
  /**
   * Registers a tool defined in code: `{ name, description, parameters?, handler, followUp?,
   * timeoutMs?, defaultEnabled? }` (`timeoutMs: null`: no deadline). Throws a
   * `ChatRuntimeError` with the diagnostic's code when it is invalid.
   */
  registerTool(tool: FrontendTool): void;
  /**
   * Removes a code-registered tool. Returns whether there was one. Its calls that are running
   * are stopped: their `ctx.signal` fires (reason: a `ChatRuntimeError` `tool/removed`) and each
   * is answered `INTERRUPTED` (the tool was removed), so the run goes on without them.
   */
  unregisterTool(name: string): boolean;
  /**
   * Sets the agent's own tools (its `capabilities.tools`, an array or `{ items }`): listed,
   * locked, always on.
   */
  setBackendTools(tools: BackendTools): void;
  /**
   * The tool selector's rows for a thread (`null`: a new chat): frontend tools with their
   * toggle, then the locked backend tools.
   */
  listTools(threadId?: string | null): ToolEntry[];
  /**
   * Turns a frontend tool on or off for a thread (`null`: the default for new chats), saved in
   * `localStorage` under `chat:tools:{threadId}`. Backend tools are locked (`tools/locked`).
   */
  setToolEnabled(threadId: string | null | undefined, name: string, enabled: boolean): void;
  /** The tool schemas a run of this thread would send (the enabled frontend tools). */
  activeTools(threadId?: string | null): ToolSchema[];
  /** The thread's messages (none for an unknown thread, or an id no thread can have). */
  messages(threadId: string): Message[];
  /**
   * The thread's AG-UI state (`STATE_SNAPSHOT` / `STATE_DELTA`), `undefined` for an unknown
   * thread.
   */
  state(threadId: string): unknown;
  /**
   * The thread's open interrupts, as the server sent them (`RUN_FINISHED.outcome.interrupts`);
   * the next `run` answers each in `resume`. None for an unknown thread.
   */
  interrupts(threadId: string): Interrupt[];
  /**
   * The ids of the thread's calls that a run with `pending: "run"` runs: those of its last
   * assistant message without a result that no open interrupt holds. None for an unknown thread.
   */
  pendingCalls(threadId: string): string[];
  /** Whether a run is going on in the thread. */
  isRunning(threadId: string): boolean;
  /**
   * Sends the thread's new messages and drives the loop until the agent answers without
   * needing the browser. Resolves with a `RunResult` for every ending (completed, aborted,
   * max_rounds, error, interrupted); rejects only for programmer errors (`run/busy`, a malformed request,
   * a `resume` that does not answer the open interrupts or is off their schema).
   */
  run(request: RunRequest, options?: RunOptions | null): Promise<RunResult>;
  /**
   * Aborts the thread's run: the fetch is cancelled, the handlers' `signal` fires, nothing
   * restarts, and unanswered calls get an `INTERRUPTED` result.
   */
  abort(threadId: string): void;
  /**
   * Seeds a loaded thread's history (refused with `run/busy` while it runs): messages as AG-UI 1.0
   * or 0.0.x types them ({@link MessageInput}).
   */
  setMessages(threadId: string, messages: readonly MessageInput[]): void;
  /**
   * Drops the thread from memory: its messages, state, open interrupts and what the runtime keeps
   * to render it. Its tool toggles stay (saved and in memory). Afterwards `messages(threadId)` is
   * `[]`, `state(threadId)` `undefined`, `interrupts(threadId)` `[]`, and the next `run` starts
   * from an empty thread (re-seed a history you keep with `setMessages`). Refused with
   * `run/busy` while the thread runs (`abort` it first). `false` when the runtime held nothing
   * for the thread (an unknown thread, or an id no thread can have), else `true`.
   */
  forgetThread(threadId: string): boolean;
  /**
   * Calls `listener` with every runtime event but `agui` events; returns the function that
   * unsubscribes. A listener that throws is reported on the console and does not disturb the run.
   */
  subscribe(listener: (event: RuntimeEventOf<Exclude<RuntimeEventType, "agui">>) => void, options?: { events?: undefined } | null): () => void;
  /**
   * Calls `listener` with the events of the types listed in `options.events` only (e.g.
   * `["messages", "run_finished"]`), its parameter typed accordingly. Events nobody asked for are
   * never converted to JS.
   */
  subscribe<T extends RuntimeEventType>(listener: (event: RuntimeEventOf<T>) => void, options: { events: readonly T[] }): () => void;
  /** `options` not known in advance: the listener takes any {@link RuntimeEvent}. */
  subscribe(listener: (event: RuntimeEvent) => void, options?: SubscribeOptions | null): () => void;
  /**
   * Stops the runtime: every run is stopped as by `abort` (its `run()` resolves `aborted`, its
   * fetch, body and handlers' signals are cancelled, a module still loading never reaches its
   * handler), a `loadTools()` in flight rejects, and listeners, handlers and modules are let go.
   * Every method then throws a `ChatRuntimeError` `runtime/freed`; a second `free()` does nothing.
   * The wasm memory of the object is released when JavaScript collects it.
   */
  free(): void;
}

/**
 * Decodes a whole AG-UI `text/event-stream` body and returns its events as plain objects equal to
 * the wire JSON of each event. Throws a `ChatRuntimeError` (`code` `decode/...`, `index` of the
 * event) on a malformed stream.
 */
export function decodeEventStream(input: string | Uint8Array, options?: DecodeOptions | null): AgUiEvent[];
/**
 * Like `decodeEventStream`, but also returns the warnings (unknown event types, legacy events
 * translated) and the last SSE event id: `{ events, warnings, lastEventId }`.
 */
export function decodeEventStreamReport(input: string | Uint8Array, options?: DecodeOptions | null): DecodeReport;
