import type * as agui from "@ag-ui/core";
import type { ContentPart, Message } from "chat-runtime";

/**
 * chat-runtime's message (AG-UI 1.0) as the app's model (`@ag-ui/core` 0.0.57's `Message`).
 *
 * What goes INTO chat-runtime (`setMessages`, `run`'s messages) takes 0.0.x messages as they are.
 * What comes out is AG-UI 1.0, which differs from 0.0.x in two places: content parts (1.0 adds
 * `file` sources, and its `metadata` is JSON) and tool results (0.0.x keeps a string only). Only
 * those are mapped; every other message is already a 0.0.x message.
 */
export function toAppMessage(message: Message): agui.Message {
  switch (message.role) {
    case "user":
      return {
        ...message,
        content: typeof message.content === "string" ? message.content : message.content.map(toAppPart),
      };
    case "tool":
      return {
        ...message,
        content: typeof message.content === "string" ? message.content : partsText(message.content),
      };
    default:
      return message;
  }
}

/** A 1.0 content part as a 0.0.x one (0.0.x has no file sources: the legacy `binary` part names it). */
function toAppPart(part: ContentPart): agui.InputContent {
  if (part.type === "text") {
    return { type: "text", text: part.text };
  }
  const { source } = part;
  if (source.type === "file") {
    return { type: "binary", mimeType: source.mimeType ?? "application/octet-stream", id: source.value };
  }
  return { type: part.type, source, metadata: part.metadata };
}

/** Content parts as text: the text parts, media as `[type]`. */
function partsText(parts: readonly ContentPart[]): string {
  return parts.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join(" ");
}

/** The text of a message of the app's model, for display. */
export function messageText(message: agui.Message): string {
  switch (message.role) {
    case "user":
      return typeof message.content === "string"
        ? message.content
        : message.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join(" ");
    case "activity":
      return `[${message.activityType}]`;
    default:
      return message.content ?? "";
  }
}
