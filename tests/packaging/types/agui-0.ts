// An app typed by @ag-ui/core 0.0.57 (installed as `agui-core-0`): what it holds goes into the
// runtime with no cast; what comes out is AG-UI 1.0's, mapped to 0.0.57's as the README shows.
import type { AgentCapabilities, BinaryInputContent, Context, InputContent, Message as V0Message, Tool } from "agui-core-0";
import { ChatRuntime, type ContentPart, type Message, type RunResult } from "chat-runtime";

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

// ---- what comes out, mapped (the README's snippet) ----
// AG-UI 1.0 has two shapes 0.0.57 lacks: a tool message's content may be content parts, and a part's
// `source` may be `{ type: "file" }`. Everything else is a 0.0.57 message as it is.
export function toV0(message: Message): V0Message {
  switch (message.role) {
    case "tool": {
      const { content } = message;
      return { ...message, content: typeof content === "string" ? content : content.map((p) => (p.type === "text" ? p.text : "")).join("") };
    }
    case "user": {
      const { content } = message;
      return { ...message, content: typeof content === "string" ? content : content.map(toV0Part) };
    }
    default:
      return message;
  }
}
function toV0Part(part: ContentPart): InputContent {
  if (part.type === "text") return part;
  const { source } = part;
  return source.type === "file" ? { type: "text", text: `[${part.type}: ${source.value}]` } : { ...part, source };
}

export function reads(rt: ChatRuntime, result: RunResult): V0Message[] {
  rt.subscribe(
    (event) => {
      const messages: V0Message[] = event.messages.map(toV0);
      void messages;
    },
    { events: ["messages"] },
  );
  // @ts-expect-error: AG-UI 1.0 messages are not 0.0.57's as they are (hence toV0)
  const direct: V0Message[] = rt.messages("t1");
  void direct;
  return result.newMessages.map(toV0);
}
