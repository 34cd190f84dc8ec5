// What an app writes against chat-runtime/react, checked by tsc (strict, no skipLibCheck); the
// `@ts-expect-error` lines must stay errors.
import { createElement, type ReactNode } from "react";
import type { Message as AgUiMessage } from "@ag-ui/core";
import { QueryClient } from "@tanstack/react-query";
import * as aguiBuild from "../../pkg/chat_runtime.js";
import { ChatRuntime, ChatRuntimeError, applyMessages as applyFromMain, type FrontendTool, type Message, type RunResult } from "../../pkg/chat_runtime.js";
import {
  ChatRuntimeProvider,
  applyMessages,
  errorKind,
  initChatRuntime,
  toAguiV0Message,
  useRuntimeStatus,
  useAgentState,
  useChatRuntime,
  useFrontendTool,
  useThread,
  useToolToggles,
  type ChatRuntimeBuild,
  type ChatRuntimeProviderProps,
  type ErrorKind,
  type RuntimeStatus,
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

// ---- a `messages` event's `replace` is what applyMessages takes ----
export function replaces(runtime: ChatRuntime, prev: readonly Message[]): void {
  runtime.subscribe(
    (event) => {
      const replace: true | undefined = event.replace;
      const next: readonly Message[] = applyMessages(prev, event.messages, event.replace);
      void [replace, next];
    },
    { events: ["messages"] },
  );
}

// ---- react-query's shapes as they are: a nullable query, its own setQueryData ----
export function nullableQuery(client: QueryClient): ReactNode {
  // A query that answers `null` for "no thread yet" (issue 39): `update` is its updater as it is.
  const key = (threadId: string) => ["thread", threadId] as const;
  const byKey = (threadId: string) => client.getQueryData<AgUiMessage[] | null>(key(threadId));
  const history: AgUiMessage[] | null | undefined = byKey("t1");
  const thread = useThread("t1", { history });
  same<typeof thread.loading, boolean>(true);
  // The cache holds @ag-ui/core 1.0 messages: no `map`. (0.0.x: `map: toAguiV0Message`, below.)
  const props: ChatRuntimeProviderProps = {
    options: { runUrl: "/r/{threadId}" },
    syncMessages: { write: (threadId, update) => client.setQueryData<AgUiMessage[] | null>(key(threadId), update) },
  };
  const v0: ChatRuntimeProviderProps<ReturnType<typeof toAguiV0Message>> = {
    options: { runUrl: "/r/{threadId}" },
    syncMessages: { map: toAguiV0Message, write: (threadId, update) => client.setQueryData<ReturnType<typeof toAguiV0Message>[] | null>(key(threadId), update) },
  };
  return createElement(ChatRuntimeProvider, props, createElement(ChatRuntimeProvider, v0, null));
}

// ---- which build, when to load, a failed load as state ----
export function Status(): ReactNode {
  const { status, error, load } = useRuntimeStatus();
  same<typeof status, RuntimeStatus>(true);
  same<RuntimeStatus, "idle" | "loading" | "ready" | "failed">(true);
  same<typeof error, ChatRuntimeError | null>(true);
  const retry: () => Promise<void> = load;
  const kind: ErrorKind | null = error ? errorKind(error) : null;
  same<ErrorKind, "auth" | "network" | "server" | "unavailable" | "app">(true);
  void retry;
  return kind;
}
// The AG-UI build's module namespace is a build; a Coder app passes `() => import("chat-runtime/coder")`.
const agui: ChatRuntimeBuild = aguiBuild;
export const onDemand = createElement(
  ChatRuntimeProvider,
  {
    options: { runUrl: "/r/{threadId}" },
    build: () => Promise.resolve(agui),
    load: "demand",
    onError: (error: ChatRuntimeError) => console.log(error.code),
    backendTools: { items: [] },
  },
  null,
);
// @ts-expect-error: load is "mount" or "demand"
export const badLoad = createElement(ChatRuntimeProvider, { options: { runUrl: "/r" }, load: "eager" }, null);
// @ts-expect-error: the build is the provider's to load, not for the app's own runtime
export const buildWithRuntime: ChatRuntimeProviderProps = { runtime: null as unknown as ChatRuntime, build: () => Promise.resolve(agui) };
