// What an app writes against chat-runtime/react, checked by tsc (strict, no skipLibCheck); the
// `@ts-expect-error` lines must stay errors.
import { createElement, type ReactNode } from "react";
import type { Message as AgUiMessage } from "@ag-ui/core";
import { ChatRuntime, ChatRuntimeError, applyMessages as applyFromMain, type FrontendTool, type Message, type RunResult } from "../../pkg/chat_runtime.js";
import {
  ChatRuntimeProvider,
  applyMessages,
  initChatRuntime,
  useAgentState,
  useChatRuntime,
  useFrontendTool,
  useThread,
  useToolToggles,
  type ChatRuntimeProviderProps,
  type ThreadHandle,
  type ToolToggles,
  type UseThreadOptions,
} from "../../pkg/react.js";

/** true when A and B are the same type. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(_proof: Same<A, B>): void => {};

// ---- useThread: one error shape; null is a new chat ----
export function Chat({ threadId }: { threadId: string | null }): ReactNode {
  const thread: ThreadHandle = useThread(threadId);
  same<typeof thread.error, ChatRuntimeError | null>(true);
  same<typeof thread.threadId, string | null>(true);
  const toggles: ToolToggles = useToolToggles(thread.threadId);
  same<typeof toggles.error, ChatRuntimeError | null>(true);
  const state: unknown = useAgentState(thread.threadId);
  const runtime: ChatRuntime | null = useChatRuntime();
  const send = async (): Promise<RunResult> => {
    const first = await thread.run("Hello", { threadId: "server-made-id" });
    if (thread.error) console.log(thread.error.code, thread.error.status, thread.error.cause);
    await thread.run([{ id: "u2", role: "user", content: "again" }], { signal: new AbortController().signal });
    await thread.run({ messages: [], state: { step: 1 }, forwardedProps: { a: 1 } });
    // @ts-expect-error: the thread id is the handle's, not the request's
    await thread.run({ threadId: "x", messages: [] });
    return first;
  };
  void send;
  toggles.setEnabled("get_weather", true);
  // @ts-expect-error: setEnabled takes a boolean
  toggles.setEnabled("get_weather", "yes");
  return createElement("div", { "data-ready": String(thread.ready && runtime !== null), "data-state": JSON.stringify(state) }, thread.messages.length);
}

// ---- useThread's options: a stalled stream, a history from the app's own store ----
export function Seeded({ threadId, saved }: { threadId: string; saved: readonly AgUiMessage[] | undefined }): ReactNode {
  const thread = useThread(threadId, { stalledAfter: 30_000, history: saved, pending: "run" });
  same<typeof thread.stalled, boolean>(true);
  // @ts-expect-error: pending is "settle" or "run"
  useThread(threadId, { pending: "later" });
  const options: UseThreadOptions = {};
  useThread(null, options);
  return thread.stalled ? "The agent seems stuck." : null;
}

// ---- useFrontendTool: typed arguments, no deadline, default on ----
interface ConfirmArgs {
  action: string;
}
export function Approval(): null {
  useFrontendTool<ConfirmArgs, { confirmed: boolean }>({
    name: "confirm_action",
    description: "Ask the user",
    parameters: { type: "object", properties: { action: { type: "string" } }, required: ["action"] },
    timeoutMs: null,
    defaultEnabled: true,
    handler: async ({ action }, { signal, toolCallId }) => ({ confirmed: action.length > 0 && !signal.aborted && toolCallId !== "" }),
  });
  useFrontendTool<{ theme: "dark" | "light" }>({
    name: "set_theme",
    description: "Theme",
    followUp: false,
    // @ts-expect-error: a handler's arguments are what the type parameter says
    handler: ({ theme }: { theme: number }) => theme,
    timeoutMs: 1000,
  });
  return null;
}

// ---- the provider: options or runtime, tools ----
const tools: FrontendTool<{ city: string }, string>[] = [
  { name: "get_weather", description: "Weather", handler: ({ city }) => city, timeoutMs: null },
];
export const withOptions = createElement(ChatRuntimeProvider, { options: { runUrl: "/api/{threadId}" }, tools, fallback: "Loading" }, createElement(Chat, { threadId: null }));
export const withRuntime = (runtime: ChatRuntime) => createElement(ChatRuntimeProvider, { runtime, loadTools: true }, createElement(Chat, { threadId: "t1" }));
// @ts-expect-error: options or runtime, not both
export const both: ChatRuntimeProviderProps = { options: { runUrl: "/r" }, runtime: null as unknown as ChatRuntime };
// @ts-expect-error: one of them is needed
export const neither: ChatRuntimeProviderProps = { tools };
// @ts-expect-error: the wasm location is for a runtime the provider makes
export const wasmWithRuntime: ChatRuntimeProviderProps = { runtime: null as unknown as ChatRuntime, wasm: "/x.wasm" };
export const preloaded: Promise<void> = initChatRuntime();

// ---- applyMessages: one function, mutable in -> mutable out, readonly in -> readonly out ----
export function merges(prev: Message[], frozen: readonly Message[], changed: Message[], ag: AgUiMessage[]): void {
  const a: Message[] = applyMessages(prev, changed);
  const b: readonly Message[] = applyFromMain(frozen, changed);
  // @ts-expect-error: a readonly list stays readonly
  const c: Message[] = applyMessages(frozen, changed);
  // An app's store of @ag-ui/core messages, fed from `messages` events.
  const d: AgUiMessage[] = applyMessages(ag, changed);
  void [a, b, c, d];
}
