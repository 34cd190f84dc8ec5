// An app typed by @ag-ui/core 1.0.0: what it holds goes into the runtime with no cast, and what the
// runtime gives out is AG-UI 1.0's types, both ways (a change that breaks either direction fails here).
import type {
  AgentCapabilities,
  ContentPart as AgContentPart,
  Context as AgContext,
  Message as AgMessage,
  RunAgentInput as AgRunAgentInput,
  Tool,
  ToolCall as AgToolCall,
} from "@ag-ui/core";
import {
  ChatRuntime,
  syncMessages,
  toAguiV0Message,
  type AguiV0Message,
  type ContentPart,
  type Context,
  type Message,
  type MessageInput,
  type RunAgentInput,
  type RunResult,
  type ToolCall,
  type ToolSchema,
} from "chat-runtime";

/** `true` when each type is assignable to the other. */
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;

// ---- the output types are AG-UI 1.0's, both ways ----
export type MessagesMatch = Assert<Mutual<Message, AgMessage>>;
export type ContentPartsMatch = Assert<Mutual<ContentPart, AgContentPart>>;
export type ToolCallsMatch = Assert<Mutual<ToolCall, AgToolCall>>;
export type ToolsMatch = Assert<Mutual<ToolSchema, Tool>>;
export type ContextsMatch = Assert<Mutual<Context, AgContext>>;
export type RunAgentInputsMatch = Assert<Mutual<RunAgentInput, AgRunAgentInput>>;
// and a 1.0 message is an input as it is
export type MessageIsInput = Assert<[AgMessage] extends [MessageInput] ? true : false>;

// ---- what the app holds goes in ----
export async function app(
  agent: { capabilities?: AgentCapabilities },
  history: AgMessage[],
  question: AgMessage,
  context: AgContext[],
  extraTools: Tool[],
): Promise<AgMessage[]> {
  const rt = new ChatRuntime({
    runUrl: "/api/threads/{threadId}/runs",
    // typed by AG-UI 1.0: the body the runtime sends is one
    prepareRequest: (body: AgRunAgentInput) => ({ threadId: body.threadId, messages: body.messages, tools: body.tools, context: body.context }),
  });
  rt.setBackendTools(agent.capabilities?.tools);
  rt.setBackendTools(agent.capabilities?.tools?.items);
  rt.setBackendTools(extraTools);
  const [tool] = extraTools;
  if (tool) rt.registerTool({ name: tool.name, description: tool.description, parameters: tool.parameters, handler: () => "ok" });
  rt.setMessages("t1", history);
  const result: RunResult = await rt.run({ threadId: "t1", messages: [question], context });

  // ---- what comes out is AG-UI 1.0's ----
  const all: AgMessage[] = rt.messages("t1");
  const added: AgMessage[] = result.newMessages;
  rt.subscribe(
    (event) => {
      const streamed: AgMessage[] = event.messages;
      void streamed;
    },
    { events: ["messages"] },
  );
  // a 1.0 message can be handed back as one of ours
  const back: Message[] = all;
  rt.setMessages("t2", back);
  return added;
}

// ---- the 0.0.x mapping fits a 1.0 app too (it can upgrade @ag-ui/core before dropping the map) ----
export type V0IsV1 = Assert<[AguiV0Message] extends [AgMessage] ? true : false>;
declare const client: {
  setQueryData(key: readonly unknown[], updater: AgMessage[] | ((old: AgMessage[] | undefined) => AgMessage[] | undefined)): AgMessage[] | undefined;
};
export function feeds(rt: ChatRuntime): (() => void)[] {
  return [
    syncMessages(rt, { map: toAguiV0Message, write: (threadId, update) => client.setQueryData(["thread", threadId], update) }),
    syncMessages(rt, { write: (threadId, update) => client.setQueryData(["thread", threadId], update) }),
  ];
}
