// AG-UI 1.0 messages (what the runtime gives out) as `@ag-ui/core` 0.0.x types them: the one mapping
// for apps whose own message model is 0.0.x, exported by `chat-runtime` and `chat-runtime/react`.
// No import of the wasm glue's values: the main entry re-exports this module.
import type { ContentPart, JsonObject, Message } from "./chat_runtime.js";

/**
 * A content part both `@ag-ui/core` 0.0.57 and 1.0.0 accept: text, or media from a `data` or `url`
 * source (0.0.x has no `file` source; 1.0 has no `binary` part).
 */
export type AguiV0ContentPart =
  | { type: "text"; text: string; id?: string; metadata?: JsonObject }
  | {
      type: "image" | "audio" | "video" | "document";
      source: { type: "data"; value: string; mimeType: string } | { type: "url"; value: string; mimeType?: string };
      id?: string;
      metadata?: JsonObject;
    };

type UserMessage = Extract<Message, { role: "user" }>;
type ToolMessage = Extract<Message, { role: "tool" }>;
type AguiV0UserMessage = Omit<UserMessage, "content"> & { content: string | AguiV0ContentPart[] };
type AguiV0ToolMessage = Omit<ToolMessage, "content"> & { content: string };

/**
 * A message as `@ag-ui/core` 0.0.57 types it, less its deprecated `binary` part: assignable to
 * 0.0.57's `Message` and to 1.0.0's, so an app's store typed by either takes it with no cast.
 */
export type AguiV0Message = Exclude<Message, { role: "user" | "tool" }> | AguiV0UserMessage | AguiV0ToolMessage;

/**
 * The runtime's AG-UI 1.0 message as a 0.0.x one. Only the two shapes 0.0.x lacks change: a part
 * with a `file` source becomes a text part naming it (`[image: file-1]`), and a tool message's
 * content parts become one string (the texts, media named the same way). Every other message is
 * returned as it is (the same object), so `applyMessages` and `React.memo` keep their identity.
 *
 * ```ts
 * runtime.subscribe((e) => store.merge(e.threadId, e.messages.map(toAguiV0Message)), { events: ["messages"] });
 * ```
 */
export function toAguiV0Message(message: Message): AguiV0Message {
  if (message.role === "user") {
    if (isV0User(message)) return message;
    const { content } = message;
    return { ...message, content: typeof content === "string" ? content : content.map(toV0Part) };
  }
  if (message.role === "tool") {
    if (isV0Tool(message)) return message;
    const { content } = message;
    return { ...message, content: typeof content === "string" ? content : content.map(named).join("") };
  }
  return message;
}

/** Whether no part has a `file` source (then the message is a 0.0.x one as it is). */
function isV0User(message: UserMessage): message is AguiV0UserMessage {
  return typeof message.content === "string" || message.content.every(isV0Part);
}

function isV0Tool(message: ToolMessage): message is AguiV0ToolMessage {
  return typeof message.content === "string";
}

function isV0Part(part: ContentPart): part is AguiV0ContentPart {
  // `source?.`: a 0.0.x `binary` part the app sent is kept as given and has none.
  return part.type === "text" || part.source?.type !== "file";
}

/** A part with a `file` source as a text part naming it. */
function toV0Part(part: ContentPart): AguiV0ContentPart {
  return isV0Part(part) ? part : { type: "text", text: named(part) };
}

/** A part as text: its text, or media named: `[image: https://...]`, `[document: file-1]`, `[audio]` (inline data). */
function named(part: ContentPart): string {
  if (part.type === "text") return part.text;
  const source = part.source;
  return source?.type === "url" || source?.type === "file" ? `[${part.type}: ${source.value}]` : `[${part.type}]`;
}
