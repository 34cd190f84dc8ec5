// chat-runtime/assistant-ui: an assistant-ui (`@assistant-ui/react`, an optional peer dependency)
// `AssistantRuntime` over a chat-runtime thread. Compiled by `tsc -p react` into
// pkg/assistant-ui.js + .d.ts (scripts/merge-package.mjs). docs/assistant-ui.md is its guide.
//
// Design:
// - The thread lives in chat-runtime (`useThread` of ./react.js); assistant-ui gets it through
//   `useExternalStoreRuntime`, its messages converted here. assistant-ui's converter caches by the
//   input object, so a converted message keeps its object until one of the chat-runtime messages it
//   is made of (or its status) changes: memoised rows re-render only for what streams.
// - One assistant-ui message per agent turn: the assistant, reasoning and tool messages between two
//   user messages are joined in order (text, reasoning, tool-call parts; a tool message becomes the
//   `result` of its call), so text streamed after a tool call renders below it.
// - Tools run in chat-runtime's loop (validation, timeouts, Stop, toggles): assistant-ui's own
//   tool execution stays off (`unstable_enableToolInvocations` is not set). Tools an app registers
//   the assistant-ui way (model context, `makeAssistantTool` / `useAssistantTool`) are registered
//   in chat-runtime before each send; a tool without `execute` (a human tool) waits for the tool
//   UI's `addResult`, with no deadline.
// - Only names ./react.js exports are used (react.ts is the adapter's barrel).
import { createElement, useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import {
  AssistantRuntimeProvider,
  useExternalStoreRuntime,
  type AddToolResultOptions,
  type AppendMessage,
  type AssistantRuntime,
  type ExternalStoreAdapter,
  type MessageStatus,
  type ThreadMessageLike,
} from "@assistant-ui/react";
import { ChatRuntimeError } from "./chat_runtime.js";
import type { ChatRuntime, FrontendTool, Interrupt, JsonObject, Message, ResumeEntry, RunResult, RuntimeEventOf, ToolContext } from "./chat_runtime.js";
import { ChatRuntimeProvider, useChatRuntime, useThread, type ChatRuntimeProviderProps, type ThreadHandle, type UseThreadOptions } from "./react.js";
import type { HasId } from "./apply-messages.js";

type Part = Exclude<ThreadMessageLike["content"], string>[number];
type Adapter = ExternalStoreAdapter<ThreadMessageLike>;

/** Options of {@link useAssistantUiRuntime}. */
export interface AssistantUiRuntimeOptions {
  /** Show the agent's reasoning messages as `reasoning` parts (like react-ag-ui's `showThinking`). Default `false`. */
  showThinking?: boolean;
  /** Called with each failed run's error (also shown on the turn's message, `status.reason: "error"`). */
  onError?: (error: ChatRuntimeError) => void;
  /** Called when the user stops a run (after it was aborted). */
  onCancel?: () => void;
  /**
   * A message sent while a run is going on: `"queue"` (the default) sends it when the run has
   * ended; `"steer"` stops the run (its open calls are answered `INTERRUPTED`) and sends it at once.
   */
  whileRunning?: "queue" | "steer";
  /** The thread's history as the app has it, and what to do with its unanswered calls (`useThread`'s options). */
  history?: UseThreadOptions["history"];
  pending?: UseThreadOptions["pending"];
  /**
   * Model-context tools (`useAssistantTool`, `makeAssistantTool`) that run fire-and-forget
   * (`followUp: false`): at their call's end, from the stream, with no result sent back and no new
   * run (the Jaeger UI's view tools registered the assistant-ui way).
   */
  fireAndForget?: readonly string[];
  /**
   * chat-runtime tools (`tools.json`, `useFrontendTool`) whose calls wait for a person (`timeoutMs:
   * null`, a card that answers): their calls show `requires-action` (`tool-calls`) while their
   * handler waits, as assistant-ui's own human tools do. (The runtime's events do not say that a
   * tool has no deadline, so the app names them.)
   */
  humanTools?: readonly string[];
  /** assistant-ui adapters passed through (attachments, feedback, speech, a thread list for switching threads). */
  adapters?: Adapter["adapters"];
}

// ---- message conversion ---------------------------------------------------------------------------

/** What the page knows of one browser tool call from the runtime's `tool_started` / `tool_finished`. */
interface CallActivity {
  finished: boolean;
  result?: unknown;
  isError?: boolean;
}

/** A person's answer the tool UI must give (`addResult`, or `resumeToolCall` for `human(payload)`). */
interface HumanWait {
  /** Set for `human(payload)` inside an `execute`: the part's `interrupt`. */
  interrupt?: { type: "human"; payload: unknown };
  resolve(value: unknown): void;
  reject(reason: unknown): void;
}

interface ConvertInput {
  messages: readonly Message[];
  running: boolean;
  result: RunResult | null;
  error: ChatRuntimeError | null;
  showThinking: boolean;
  calls: ReadonlyMap<string, CallActivity>;
  waits: ReadonlyMap<string, HumanWait>;
  interrupts: readonly Interrupt[];
  /** Names of chat-runtime tools whose open calls wait for a person (the `humanTools` option). */
  humanTools: readonly string[];
}

interface Group {
  id: string;
  members: Message[];
}

interface CacheEntry {
  members: readonly Message[];
  key: string;
  value: ThreadMessageLike;
}

/** Converted messages, kept while their inputs do not change (so their objects do not either). */
class Converter {
  private users = new WeakMap<Message, ThreadMessageLike>();
  private groups = new Map<string, CacheEntry>();

  convert(input: ConvertInput): ThreadMessageLike[] {
    const items: (Extract<Message, { role: "user" | "system" }> | Group)[] = [];
    let group: Group | null = null;
    for (const m of input.messages) {
      if (m.role === "user" || m.role === "system") {
        group = null;
        items.push(m);
      } else if (m.role === "assistant" || m.role === "reasoning" || m.role === "tool") {
        if (group === null) {
          group = { id: m.id, members: [] };
          items.push(group);
        }
        group.members.push(m);
      }
    }
    const seen = new Set<string>();
    const out = items.map((item, i) => {
      if (!("members" in item)) return this.user(item);
      seen.add(item.id);
      // The last turn carries the run's status.
      return this.group(item, input, i === items.length - 1);
    });
    for (const id of [...this.groups.keys()]) if (!seen.has(id)) this.groups.delete(id);
    // A run that failed before the agent wrote anything: a message of its own, so the error
    // shows under the user's message.
    const last = input.messages.at(-1);
    if (last !== undefined && last.role === "user" && !input.running && input.error !== null) {
      out.push(this.errorTurn(last.id, input.error));
    }
    return out;
  }

  private user(m: Extract<Message, { role: "user" | "system" }>): ThreadMessageLike {
    let like = this.users.get(m);
    if (like === undefined) {
      const text =
        typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : "")).join("");
      like = { id: m.id, role: m.role, content: [{ type: "text", text }] };
      this.users.set(m, like);
    }
    return like;
  }

  private errorEntry: { id: string; error: ChatRuntimeError; value: ThreadMessageLike } | null = null;

  private errorTurn(userId: string, error: ChatRuntimeError): ThreadMessageLike {
    const id = `${userId}:error`;
    if (this.errorEntry?.id === id && this.errorEntry.error === error) return this.errorEntry.value;
    const value: ThreadMessageLike = { id, role: "assistant", content: [], status: errorStatus(error) };
    this.errorEntry = { id, error, value };
    return value;
  }

  private group(g: Group, input: ConvertInput, isLast: boolean): ThreadMessageLike {
    const status = groupStatus(g, input, isLast);
    // What else the parts read: the activity and waits of the group's calls, the interrupts.
    const callIds = g.members.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : []));
    const key = JSON.stringify([
      status,
      input.showThinking,
      callIds.map((id) => {
        const a = input.calls.get(id);
        const w = input.waits.get(id);
        const i = input.interrupts.find((x) => x.toolCallId === id);
        return [a?.finished, a?.isError, a === undefined ? 0 : resultKey(a.result), w === undefined ? 0 : w.interrupt ? 2 : 1, i?.id ?? 0];
      }),
    ]);
    const cached = this.groups.get(g.id);
    if (cached && cached.key === key && sameMembers(cached.members, g.members)) return cached.value;
    const value: ThreadMessageLike = { id: g.id, role: "assistant", content: parts(g, input), status };
    this.groups.set(g.id, { members: g.members, key, value });
    return value;
  }
}

function sameMembers(a: readonly Message[], b: readonly Message[]): boolean {
  return a.length === b.length && a.every((m, i) => m === b[i]);
}

function resultKey(result: unknown): string {
  try {
    return JSON.stringify(result) ?? "undefined";
  } catch {
    return String(result);
  }
}

/** `TOOL ERROR: INTERRUPTED`: the call was stopped (Stop, the run ended first, its tool left). */
function interrupted(m: Extract<Message, { role: "tool" }>): boolean {
  return m.error !== undefined && typeof m.content === "string" && m.content.startsWith("TOOL ERROR: INTERRUPTED");
}

function toolText(m: Extract<Message, { role: "tool" }>): string {
  return typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : "")).join("");
}

function errorStatus(error: ChatRuntimeError): MessageStatus {
  return { type: "incomplete", reason: "error", error: { code: error.code, message: error.message } };
}

function groupStatus(g: Group, input: ConvertInput, isLast: boolean): MessageStatus {
  if (isLast && input.running) {
    // A call that waits for a person: assistant-ui's `requires-action` (the tool UI answers it).
    for (const m of g.members) {
      for (const call of m.role === "assistant" ? (m.toolCalls ?? []) : []) {
        const wait = input.waits.get(call.id);
        if (wait) return { type: "requires-action", reason: wait.interrupt ? "interrupt" : "tool-calls" };
        // A chat-runtime tool that waits for a person, its handler started and not done.
        if (input.humanTools.includes(call.function.name) && input.calls.get(call.id)?.finished === false) return { type: "requires-action", reason: "tool-calls" };
      }
    }
    return { type: "running" };
  }
  if (isLast && input.interrupts.length > 0) return { type: "requires-action", reason: "interrupt" };
  if (isLast && input.error !== null) return errorStatus(input.error);
  if (isLast && input.result?.status === "aborted") return { type: "incomplete", reason: "cancelled" };
  if (g.members.some((m) => m.role === "tool" && interrupted(m))) return { type: "incomplete", reason: "cancelled" };
  return { type: "complete", reason: isLast && input.result?.status === "completed" ? "stop" : "unknown" };
}

function parts(g: Group, input: ConvertInput): Part[] {
  const results = new Map<string, Extract<Message, { role: "tool" }>>();
  for (const m of g.members) if (m.role === "tool") results.set(m.toolCallId, m);
  const out: Part[] = [];
  for (const m of g.members) {
    if (m.role === "reasoning") {
      if (input.showThinking && m.content) out.push({ type: "reasoning", text: m.content });
    } else if (m.role === "assistant") {
      if (m.content) out.push({ type: "text", text: m.content });
      for (const call of m.toolCalls ?? []) out.push(toolPart(call.id, call.function.name, call.function.arguments, results.get(call.id), input));
    }
  }
  return out;
}

function toolPart(
  toolCallId: string,
  toolName: string,
  argsText: string,
  answer: Extract<Message, { role: "tool" }> | undefined,
  input: ConvertInput,
): Part {
  const wait = input.waits.get(toolCallId);
  const ask = input.interrupts.find((i) => i.toolCallId === toolCallId);
  let outcome: { result?: unknown; isError?: boolean } = {};
  if (answer !== undefined) {
    // Stopped: no result, so the part shows the message's `incomplete` status (and its reason).
    outcome = interrupted(answer) ? { isError: true } : { result: toolText(answer), isError: answer.error !== undefined };
  } else {
    const activity = input.calls.get(toolCallId);
    // A fire-and-forget call (`followUp: false`) gets no tool message: its outcome is the result.
    if (activity?.finished) outcome = { result: activity.result === undefined ? null : activity.result, isError: activity.isError === true };
  }
  const interrupt = wait?.interrupt ?? (ask !== undefined ? { type: "human" as const, payload: ask } : undefined);
  return { type: "tool-call", toolCallId, toolName, argsText, ...outcome, ...(interrupt !== undefined ? { interrupt } : {}) };
}

// ---- tools registered the assistant-ui way -----------------------------------------------------------

/** A JSON Schema object from a model-context tool's `parameters` (JSON Schema, or a schema with `toJSONSchema()`). */
function jsonSchema(parameters: unknown): JsonObject | undefined {
  if (parameters === undefined || parameters === null || typeof parameters !== "object") return undefined;
  try {
    let schema: unknown = parameters;
    if ("~standard" in parameters) {
      schema = "toJSONSchema" in parameters && typeof parameters.toJSONSchema === "function" ? parameters.toJSONSchema() : { type: "object" };
    }
    // Plain JSON (functions and `undefined` members dropped): what the runtime validates against.
    const copy = JSON.parse(JSON.stringify(schema));
    return copy !== null && typeof copy === "object" && !Array.isArray(copy) ? copy : undefined;
  } catch {
    // A schema that cannot be written as JSON (a cycle, a throwing getter): no schema.
    return undefined;
  }
}

interface Registered {
  key: string;
  tool: FrontendTool;
}

/** The assistant-ui model context's tools, registered in chat-runtime (synced before each send). */
class ModelTools {
  readonly registered = new Map<string, Registered>();

  constructor(private readonly humans: Humans) {}

  /** Registers what the model context has, unregisters what left it; returns the tools the runtime refused. */
  sync(runtime: ChatRuntime, assistant: AssistantRuntime, fireAndForget: readonly string[]): unknown[] {
    const refused: unknown[] = [];
    const tools = assistant.thread.getModelContext().tools ?? {};
    const seen = new Set<string>();
    for (const [name, tool] of Object.entries(tools)) {
      if (tool.disabled || tool.type === "backend" || tool.type === "provider" || tool.type === "mcp") continue;
      seen.add(name);
      const execute = tool.execute;
      const parameters = jsonSchema(tool.parameters);
      const description = tool.description ?? "";
      const detached = fireAndForget.includes(name);
      const key = JSON.stringify([description, parameters ?? null, execute === undefined, detached]);
      const current = this.registered.get(name);
      if (current && current.key === key) {
        // The same definition: the newest `execute` is called (the handler reads it through the map).
        this.latest.set(name, execute);
        continue;
      }
      this.latest.set(name, execute);
      const humans = this.humans;
      const latest = this.latest;
      const handler = (args: Record<string, unknown>, ctx: ToolContext): unknown => {
        const run = latest.get(name);
        if (run === undefined) return humans.wait(ctx);
        return run(args, { toolCallId: ctx.toolCallId, abortSignal: ctx.signal, human: (payload: unknown) => humans.wait(ctx, payload) });
      };
      const definition: FrontendTool = { name, description, handler, defaultEnabled: true };
      if (parameters !== undefined) definition.parameters = parameters;
      // A tool without `execute` waits for a person (its tool UI's `addResult`): no deadline.
      if (execute === undefined) definition.timeoutMs = null;
      if (detached) definition.followUp = false;
      try {
        runtime.registerTool(definition);
        this.registered.set(name, { key, tool: definition });
      } catch (error) {
        // A bad name or schema (`tool/bad-name`, ...): the other tools still go.
        refused.push(error);
      }
    }
    for (const name of [...this.registered.keys()]) {
      if (!seen.has(name)) {
        this.registered.delete(name);
        this.latest.delete(name);
        try {
          runtime.unregisterTool(name);
        } catch {
          // A freed runtime has no tools.
        }
      }
    }
    return refused;
  }

  private readonly latest = new Map<string, ((args: Record<string, unknown>, context: { toolCallId: string; abortSignal: AbortSignal; human: (payload: unknown) => Promise<unknown> }) => unknown) | undefined>();

  clear(runtime: ChatRuntime | null): void {
    for (const name of this.registered.keys()) {
      try {
        runtime?.unregisterTool(name);
      } catch {
        // Freed.
      }
    }
    this.registered.clear();
    this.latest.clear();
  }
}

/** Calls that wait for a person, by call id; `onChange` re-renders the thread. */
class Humans {
  readonly waits = new Map<string, HumanWait>();
  onChange: () => void = () => {};

  wait(ctx: ToolContext, payload?: unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const done = (): void => {
        this.waits.delete(ctx.toolCallId);
        this.onChange();
      };
      const wait: HumanWait = {
        resolve: (value) => {
          done();
          resolve(value);
        },
        reject: (reason) => {
          done();
          reject(reason);
        },
      };
      if (payload !== undefined) wait.interrupt = { type: "human", payload };
      if (ctx.signal.aborted) return reject(ctx.signal.reason);
      ctx.signal.addEventListener("abort", () => wait.reject(ctx.signal.reason), { once: true });
      this.waits.set(ctx.toolCallId, wait);
      this.onChange();
    });
  }
}

// ---- the hook -----------------------------------------------------------------------------------------

function textOf(message: AppendMessage): string {
  return message.content.map((p) => (p.type === "text" ? p.text : "")).join("");
}

function newId(): string {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === "function") return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

const identity = (message: ThreadMessageLike): ThreadMessageLike => message;
const NONE: readonly string[] = [];

/**
 * An assistant-ui `AssistantRuntime` (for `<AssistantRuntimeProvider>`) over the chat-runtime thread
 * `threadId` (`null`: a new chat, whose first send starts a thread), inside a `ChatRuntimeProvider`.
 * The composer's send runs the thread, Cancel stops it; tool calls run in chat-runtime.
 */
export function useAssistantUiRuntime(threadId: string | null, options: AssistantUiRuntimeOptions = {}): AssistantRuntime {
  const { showThinking = false, whileRunning = "queue" } = options;
  const threadOptions: UseThreadOptions = {};
  if (options.history !== undefined) threadOptions.history = options.history;
  if (options.pending !== undefined) threadOptions.pending = options.pending;
  const thread = useThread(threadId, threadOptions);
  const runtime = useChatRuntime();
  const shown = thread.threadId;

  // The thread's browser calls, from the runtime's events.
  const [calls, setCalls] = useState<ReadonlyMap<string, CallActivity>>(() => new Map());
  useEffect(() => {
    if (runtime === null || shown === null) return undefined;
    return runtime.subscribe(
      (event: RuntimeEventOf<"tool_started" | "tool_finished">) => {
        if (event.threadId !== shown) return;
        setCalls((prev) => {
          const next = new Map(prev);
          if (event.type === "tool_started") next.set(event.toolCallId, { finished: false });
          // A failure reads like a tool message's content (`TOOL ERROR: CODE`, then what happened).
          else next.set(event.toolCallId, event.error ? { finished: true, result: `TOOL ERROR: ${event.error.code}\n${event.error.message}`, isError: true } : { finished: true, result: event.result });
          return next;
        });
      },
      { events: ["tool_started", "tool_finished"] },
    );
  }, [runtime, shown]);

  const humans = useRef<Humans | null>(null);
  humans.current ??= new Humans();
  const [waitsVersion, setWaitsVersion] = useState(0);
  humans.current.onChange = () => setWaitsVersion((v) => v + 1);
  const modelTools = useRef<ModelTools | null>(null);
  modelTools.current ??= new ModelTools(humans.current);
  useEffect(() => {
    const tools = modelTools.current;
    return () => tools?.clear(runtime);
  }, [runtime]);

  // The thread's open interrupts (read again when a run ends).
  const interrupts = useOpenInterrupts(runtime, shown, thread);

  // Errors: `onError` once per failed run.
  const onErrorRef = useRef(options.onError);
  onErrorRef.current = options.onError;
  useEffect(() => {
    if (thread.error !== null) onErrorRef.current?.(thread.error);
  }, [thread.error]);

  const humanTools = options.humanTools ?? NONE;
  const humanKey = humanTools.join("\n");
  const converter = useRef<Converter | null>(null);
  converter.current ??= new Converter();
  const waits = humans.current.waits;
  const messages = useMemo(
    () =>
      converter.current!.convert({
        messages: thread.messages,
        running: thread.running,
        result: thread.result,
        error: thread.error,
        showThinking,
        calls,
        waits,
        interrupts,
        humanTools,
      }),
    // `waitsVersion` stands for the contents of `waits`, `humanKey` for `humanTools`.
    [thread.messages, thread.running, thread.result, thread.error, showThinking, calls, waits, waitsVersion, interrupts, humanKey],
  );

  // Sends go through refs: assistant-ui keeps the adapter's callbacks of an earlier render.
  const fireAndForget = options.fireAndForget ?? [];
  const latest = useRef({ thread, interrupts, whileRunning, runtime, threadId, fireAndForget, onCancel: options.onCancel });
  latest.current = { thread, interrupts, whileRunning, runtime, threadId, fireAndForget, onCancel: options.onCancel };
  const queue = useRef<string[]>([]);
  const assistant = useRef<AssistantRuntime | null>(null);

  const send = useCallback(async (text: string): Promise<void> => {
    const { thread, interrupts, runtime, threadId } = latest.current;
    if (runtime !== null && assistant.current !== null) {
      for (const error of modelTools.current!.sync(runtime, assistant.current, latest.current.fireAndForget)) {
        if (error instanceof ChatRuntimeError) onErrorRef.current?.(error);
      }
    }
    const request: Parameters<ThreadHandle["run"]>[0] = { messages: [{ id: newId(), role: "user", content: text }] };
    // A state the app set (`useSetAgentState`) goes with this run.
    let pending = takeState(thread.threadId);
    if (!pending.set && threadId !== thread.threadId) pending = takeState(threadId);
    if (pending.set) request.state = pending.state;
    // Open interrupts the user did not answer: a new message cancels them (steers away).
    if (interrupts.length > 0) request.resume = interrupts.map((i): ResumeEntry => ({ interruptId: i.id, status: "cancelled" }));
    try {
      await thread.run(request);
    } catch {
      // Shown on the thread (`error`, the message's status) and given to `onError`.
    }
  }, []);

  const onNew = useCallback(
    async (message: AppendMessage): Promise<void> => {
      const text = textOf(message);
      const { thread, whileRunning, runtime } = latest.current;
      if (thread.running) {
        if (whileRunning !== "steer") {
          // Sent when the run has ended (the effect below).
          queue.current.push(text);
          return;
        }
        // Steer away: Stop answers the open calls `INTERRUPTED`; the message goes once it settled.
        thread.abort();
        const id = thread.threadId;
        for (let waited = 0; runtime !== null && id !== null && isRunning(runtime, id) && waited < 5000; waited += 10) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
      await send(text);
    },
    [send],
  );

  // The queue: one message a run, once the thread is idle.
  useEffect(() => {
    if (thread.running) return;
    const next = queue.current.shift();
    if (next !== undefined) void send(next);
  }, [thread.running, send]);

  const onCancel = useCallback(async (): Promise<void> => {
    queue.current = [];
    latest.current.thread.abort();
    latest.current.onCancel?.();
  }, []);

  const onAddToolResult = useCallback((options: AddToolResultOptions): void => {
    const wait = humans.current!.waits.get(options.toolCallId);
    if (wait === undefined) return;
    if (options.isError) wait.reject(new Error(typeof options.result === "string" ? options.result : JSON.stringify(options.result)));
    else wait.resolve(options.result);
  }, []);

  const onResumeToolCall = useCallback((options: { toolCallId: string; payload: unknown }): void => {
    const wait = humans.current!.waits.get(options.toolCallId);
    if (wait !== undefined) return wait.resolve(options.payload);
    // An AG-UI interrupt that names the call: answered `resolved` with the payload, the others
    // (the user answered only this one) `cancelled`.
    const { interrupts, thread } = latest.current;
    if (!interrupts.some((i) => i.toolCallId === options.toolCallId)) return;
    const resume = interrupts.map((i): ResumeEntry =>
      i.toolCallId === options.toolCallId ? { interruptId: i.id, status: "resolved", payload: options.payload } : { interruptId: i.id, status: "cancelled" },
    );
    thread.run({ messages: [], resume }).catch(() => {
      // Shown on the thread (`error`).
    });
  }, []);

  const store: Adapter = {
    messages,
    convertMessage: identity,
    isRunning: thread.running,
    onNew,
    onCancel,
    onAddToolResult,
    onResumeToolCall,
  };
  if (options.adapters !== undefined) store.adapters = options.adapters;
  const aui = useExternalStoreRuntime(store);
  assistant.current = aui;
  return aui;
}

function isRunning(runtime: ChatRuntime, threadId: string): boolean {
  try {
    return runtime.isRunning(threadId);
  } catch {
    return false;
  }
}

// ---- agent state --------------------------------------------------------------------------------------

/** States set by `useSetAgentState`, by thread (`""`: a new chat), sent with the thread's next send. */
const pendingStates = new Map<string, unknown>();

function takeState(threadId: string | null): { set: boolean; state?: unknown } {
  const key = threadId ?? "";
  if (!pendingStates.has(key)) return { set: false };
  const state = pendingStates.get(key);
  pendingStates.delete(key);
  return { set: true, state };
}

/**
 * Sets the thread's AG-UI state for its next send (`RunAgentInput.state`; it replaces the thread's
 * state when the run starts), like react-ag-ui's `useAgUiSetState`. Read it with `useAgentState`
 * (`chat-runtime/react`). `threadId` is the one `useAssistantUiRuntime` was given.
 */
export function useSetAgentState(threadId: string | null): (state: unknown) => void {
  return useCallback((state: unknown) => void pendingStates.set(threadId ?? "", state), [threadId]);
}

// ---- interrupts ---------------------------------------------------------------------------------------

/** What {@link useInterrupts} returns. */
export interface InterruptsHandle {
  /** The thread's open AG-UI interrupts (`RUN_FINISHED.outcome.interrupts`), none while it runs. */
  interrupts: readonly Interrupt[];
  /** Answers every open interrupt (`resolved` with a payload, or `cancelled`) and resumes the run. */
  respond(entries: readonly ResumeEntry[]): Promise<RunResult>;
}

/** A thread's open interrupts, read again when a run ends (none while it runs, or without a runtime). */
function useOpenInterrupts(
  runtime: ChatRuntime | null,
  shown: string | null,
  thread: { readonly running: boolean; readonly result: unknown },
): Interrupt[] {
  const { running, result } = thread;
  return useMemo(() => {
    if (runtime === null || shown === null || running) return [];
    try {
      return runtime.interrupts(shown);
    } catch {
      return [];
    }
    // `result` changes when a run ends: the interrupts are read again then.
  }, [runtime, shown, running, result]);
}

/** The open AG-UI interrupts of a thread and their answer (react-ag-ui's `useAgUiInterrupts` + `useAgUiSubmitInterruptResponses`). */
export function useInterrupts(threadId: string | null): InterruptsHandle {
  const thread = useThread(threadId);
  const runtime = useChatRuntime();
  const shown = thread.threadId;
  const interrupts = useOpenInterrupts(runtime, shown, thread);
  const { run } = thread;
  const respond = useCallback((entries: readonly ResumeEntry[]) => run({ messages: [], resume: entries }), [run]);
  return { interrupts, respond };
}

// ---- one component for both providers -------------------------------------------------------------------

/** Props of {@link ChatRuntimeAssistantProvider}: `ChatRuntimeProvider`'s, the thread, and the hook's options. */
export type ChatRuntimeAssistantProviderProps<M extends HasId = Message> = ChatRuntimeProviderProps<M> &
  AssistantUiRuntimeOptions & {
    /** The chat-runtime thread shown (`null`, the default: a new chat whose first send starts one). */
    threadId?: string | null;
  };

/**
 * `ChatRuntimeProvider` with an assistant-ui `AssistantRuntimeProvider` inside, over the thread
 * `threadId`: an app on `@assistant-ui/react-ag-ui` swaps its provider for this one and keeps its
 * message rendering. `load` defaults to `"demand"` here: the wasm is fetched at the first send.
 */
export function ChatRuntimeAssistantProvider<M extends HasId = Message>(props: ChatRuntimeAssistantProviderProps<M>): ReactNode {
  const { threadId = null, showThinking, onError, onCancel, whileRunning, fireAndForget, humanTools, history, pending, adapters, children, ...provider } = props;
  const hookOptions: AssistantUiRuntimeOptions = {};
  if (showThinking !== undefined) hookOptions.showThinking = showThinking;
  if (onError !== undefined) hookOptions.onError = onError;
  if (onCancel !== undefined) hookOptions.onCancel = onCancel;
  if (whileRunning !== undefined) hookOptions.whileRunning = whileRunning;
  if (fireAndForget !== undefined) hookOptions.fireAndForget = fireAndForget;
  if (humanTools !== undefined) hookOptions.humanTools = humanTools;
  if (history !== undefined) hookOptions.history = history;
  if (pending !== undefined) hookOptions.pending = pending;
  if (adapters !== undefined) hookOptions.adapters = adapters;
  // The wasm loads at the first send (or `useRuntimeStatus().load()`), not when a hidden panel mounts.
  return createElement(ChatRuntimeProvider<M>, { ...provider, load: props.load ?? "demand" }, createElement(AssistantUiBridge, { threadId, options: hookOptions, children }));
}

function AssistantUiBridge(props: { threadId: string | null; options: AssistantUiRuntimeOptions; children?: ReactNode }): ReactNode {
  const runtime = useAssistantUiRuntime(props.threadId, props.options);
  return createElement(AssistantRuntimeProvider, { runtime }, props.children);
}
