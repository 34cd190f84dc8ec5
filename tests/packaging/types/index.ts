// What an app and a tool author write against the INSTALLED package: every import goes through the
// package's `exports` map and its `types` conditions. Checked with `tsc --noEmit` (strict); the
// `@ts-expect-error` lines must stay errors.
import init, { ChatRuntime, ChatRuntimeError, decodeEventStream, initSync } from "chat-runtime";
import type { AgUiEvent, Message, RunResult, RuntimeEvent, ToolEntry, ToolHandler, ToolManifestEntry } from "chat-runtime";
import {
  ChatRuntimeProvider,
  initChatRuntime,
  useChatRuntime,
  useThread,
  useToolToggles,
  type ThreadHandle,
  type ToolToggles,
} from "chat-runtime/react";
import { createElement, memo, type ReactNode } from "react";

// ---- a tool author ----
interface WeatherArgs {
  city: string;
}
interface Weather {
  city: string;
  temperatureC: number;
}
export const getWeather: ToolHandler<WeatherArgs, Weather> = async ({ city }, ctx) => {
  ctx.signal.throwIfAborted();
  return { city: `${city} (${ctx.toolName} ${ctx.toolCallId} ${ctx.threadId} ${ctx.runId})`, temperatureC: 18 };
};
// @ts-expect-error: the result must be a Weather
export const wrongResult: ToolHandler<WeatherArgs, Weather> = () => ({ city: "x" });
export const manifest: ToolManifestEntry[] = [
  { tool: { name: "get_weather", description: "weather" }, importPath: "/tools/weather.js", entrypoint: "getWeather", timeoutMs: 5000 },
  { tool: { type: "function", function: { name: "clock", description: "time" } }, importPath: "/tools/clock.js", entrypoint: "now", followUp: false },
];
// @ts-expect-error: an entry needs its entrypoint
export const badEntry: ToolManifestEntry = { tool: { name: "x", description: "y" }, importPath: "/x.js" };

// ---- vanilla ----
export async function vanilla(bytes: Uint8Array, wasm: BufferSource): Promise<RunResult> {
  await init();
  initSync({ module: wasm });
  const events: AgUiEvent[] = decodeEventStream(bytes);
  const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs" });
  rt.registerTool({ name: "get_weather", description: "weather", handler: getWeather });
  const off = rt.subscribe((event: RuntimeEvent) => {
    if (event.type === "messages") event.messages.forEach((m: Message) => m.id);
    if (event.type === "toggles_changed") void event.threadId;
  });
  off();
  const tools: ToolEntry[] = rt.listTools(null);
  return rt.run({ threadId: `t${events.length}${tools.length}`, messages: [{ id: "1", role: "user", content: "hi" }] });
}

// ---- errors: `instanceof ChatRuntimeError` narrows a caught `unknown` ----
export async function loadOrExplain(rt: ChatRuntime): Promise<string> {
  try {
    const { tools } = await rt.loadTools();
    return `${tools.length} tools`;
  } catch (e) {
    // @ts-expect-error: a caught value is `unknown` (strict) until it is narrowed
    void e.code;
    if (e instanceof ChatRuntimeError) {
      const name: "ChatRuntimeError" = e.name;
      const code: string = e.code;
      const status: number | undefined = e.status;
      const error: Error = e;
      return `${name} ${code} ${status ?? ""} ${e.index ?? ""} ${e.eventType ?? ""} ${e.field ?? ""} ${e.toolName ?? ""} ${error.message} ${e.stack ?? ""}`;
    }
    throw e;
  }
}
export const ownError: Error = new ChatRuntimeError("app/offline", "the app is offline", { status: 503 });
// @ts-expect-error: a code and a message are required
export const noCode = new ChatRuntimeError();

// ---- React ----
const Row = memo(function Row({ message }: { message: Message }) {
  return createElement("li", null, message.role);
});

export function Chat({ threadId }: { threadId: string }): ReactNode {
  const thread: ThreadHandle = useThread(threadId);
  const toggles: ToolToggles = useToolToggles(threadId);
  const defaults = useToolToggles(null);
  const runtime: ChatRuntime | null = useChatRuntime();
  const send = async (): Promise<string> => {
    const result = await thread.run("What's the weather in Paris?");
    await thread.run([{ id: "2", role: "user", content: "again" }], { signal: new AbortController().signal });
    await thread.run({ messages: [], context: [{ description: "page", value: "/" }] });
    return result.status;
  };
  void send;
  toggles.setEnabled("get_weather", !toggles.tools[0]?.enabled);
  // @ts-expect-error: setEnabled takes a boolean
  toggles.setEnabled("get_weather", "yes");
  // A new chat: no thread id until its first run.
  const draft = useThread(null);
  const draftId: string | null = draft.threadId;
  void draftId;
  // @ts-expect-error: a thread id is a string or null
  useThread(42);
  const status: string = thread.running ? "running" : thread.result?.status ?? "idle";
  return createElement(
    "div",
    { "data-count": toggles.activeCount + defaults.activeCount, "data-ready": String(thread.ready && toggles.ready && runtime !== null) },
    status,
    thread.messages.map((message) => createElement(Row, { key: message.id, message })),
    createElement("button", { onClick: thread.abort }, "Stop"),
  );
}

export const app = createElement(
  ChatRuntimeProvider,
  { options: { runUrl: "/api/threads/{threadId}/runs", toolsUrl: null }, loadTools: false, fallback: "Loading" },
  createElement(Chat, { threadId: "t1" }),
);
// @ts-expect-error: options or an existing runtime is required
export const noOptions = createElement(ChatRuntimeProvider, {});
export const ready: Promise<void> = initChatRuntime();

// ---- the other exports ----
import pkg from "chat-runtime/package.json" with { type: "json" };
import * as wasmExports from "chat-runtime/chat_runtime_bg.wasm";
export const name: "chat-runtime" = pkg.name;
export const version: string = pkg.version;
export const memory: WebAssembly.Memory = wasmExports.memory;
