// An app typed by @ag-ui/core 0.0.57 (installed as `agui-core-0`): what it holds goes into the
// runtime with no cast; what comes out is AG-UI 1.0's, mapped to 0.0.57's by toAguiV0Message.
import type { AgentCapabilities, BinaryInputContent, Context, InputContent, Message as V0Message, Tool } from "agui-core-0";
import {
  ChatRuntime,
  syncMessages,
  toAguiV0Message,
  type AguiV0ContentPart,
  type AguiV0Message,
  type JsonObject,
  type Message,
  type RunResult,
  type SyncMessages,
} from "chat-runtime";
import { ChatRuntimeProvider, toAguiV0Message as fromReact } from "chat-runtime/react";
import { createElement, type ReactNode } from "react";

// ---- what the app holds goes in ----
export async function app(
  agent: { capabilities?: AgentCapabilities },
  history: V0Message[],
  parts: InputContent[],
  file: BinaryInputContent,
  context: Context[],
  tools: Tool[],
): Promise<RunResult> {
  const rt = new ChatRuntime({ runUrl: "/api/threads/{threadId}/runs" });
  rt.setBackendTools(agent.capabilities?.tools);
  rt.setBackendTools(tools);
  rt.setBackendTools(undefined);
  rt.setBackendTools({});
  const [tool] = tools;
  if (tool) rt.registerTool({ name: tool.name, description: tool.description, parameters: tool.parameters, handler: () => "ok" });
  rt.setMessages("t1", history);
  const question: V0Message = { id: "u1", role: "user", content: [...parts, file, { type: "text", text: "and this?" }] };
  return rt.run({ threadId: "t1", messages: [question], context });
}

// ---- what comes out, mapped: toAguiV0Message ----
// AG-UI 1.0 has two shapes 0.0.57 lacks: a tool message's content may be content parts, and a part's
// `source` may be `{ type: "file" }`. toAguiV0Message maps those; its type is 0.0.57's Message less
// the deprecated `binary` part, so each role is 0.0.57's own, both ways, but that part.
/** `true` when each type is assignable to the other. */
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
type Role<M, R> = Extract<M, { role: R }>;
export type IsV0 = Assert<[AguiV0Message] extends [V0Message] ? true : false>;
export type SameDeveloper = Assert<Mutual<Role<AguiV0Message, "developer">, Role<V0Message, "developer">>>;
export type SameSystem = Assert<Mutual<Role<AguiV0Message, "system">, Role<V0Message, "system">>>;
export type SameAssistant = Assert<Mutual<Role<AguiV0Message, "assistant">, Role<V0Message, "assistant">>>;
export type SameTool = Assert<Mutual<Role<AguiV0Message, "tool">, Role<V0Message, "tool">>>;
export type SameActivity = Assert<Mutual<Role<AguiV0Message, "activity">, Role<V0Message, "activity">>>;
export type SameReasoning = Assert<Mutual<Role<AguiV0Message, "reasoning">, Role<V0Message, "reasoning">>>;
// a user message's parts: 0.0.57's, less `binary`, with `metadata` a JSON object as 1.0 has it
type V0Part = Exclude<InputContent, BinaryInputContent>;
export type PartsAreV0 = Assert<[AguiV0ContentPart] extends [V0Part] ? true : false>;
// and a 0.0.57 part is one when its metadata is JSON
export const part: AguiV0ContentPart = { type: "image", source: { type: "url", value: "https://x/a.png" }, metadata: { alt: "a" } satisfies JsonObject } satisfies V0Part;
// @ts-expect-error: the deprecated binary part is not one (1.0 has none)
export const binary: AguiV0ContentPart = { type: "binary", mimeType: "image/png", id: "f1" };

export const toV0: (message: Message) => V0Message = toAguiV0Message;

// react-query's `setQueryData(key, updater)`, its value typed by the query (0.0.57's messages)
declare const client: {
  setQueryData(key: readonly unknown[], updater: V0Message[] | ((old: V0Message[] | undefined) => V0Message[] | undefined)): V0Message[] | undefined;
};
export function feed(rt: ChatRuntime): () => void {
  return syncMessages(rt, { map: toAguiV0Message, write: (threadId, update) => client.setQueryData(["thread", threadId], update) });
}
export function unmapped(rt: ChatRuntime): () => void {
  // @ts-expect-error: without the map, AG-UI 1.0 messages are not 0.0.57's
  return syncMessages(rt, { write: (threadId, update) => client.setQueryData(["thread", threadId], update) });
}
export function provider(children: ReactNode): ReactNode {
  const write: SyncMessages<AguiV0Message>["write"] = (threadId, update) => void client.setQueryData(["thread", threadId], update);
  return createElement(ChatRuntimeProvider<AguiV0Message>, { options: { runUrl: "/r" }, syncMessages: { map: toAguiV0Message, write } }, children);
}

export function reads(rt: ChatRuntime, result: RunResult): V0Message[] {
  rt.subscribe(
    (event) => {
      const messages: V0Message[] = event.messages.map(toV0);
      void messages;
    },
    { events: ["messages"] },
  );
  // @ts-expect-error: AG-UI 1.0 messages are not 0.0.57's as they are (hence toAguiV0Message)
  const direct: V0Message[] = rt.messages("t1");
  void direct;
  return result.newMessages.map(toV0);
}

// chat-runtime/react re-exports the very function
export const same: typeof toAguiV0Message = fromReact;
