// The Ask panel both measured builds share (react-ag-ui.mjs): assistant-ui primitives only.
import { ComposerPrimitive, MessagePrimitive, ThreadPrimitive } from "@assistant-ui/react";

function Body() {
  return (
    <MessagePrimitive.Root>
      <MessagePrimitive.Parts>
        {({ part }) => {
          if (part.type === "text") return <p>{part.text}</p>;
          if (part.type === "tool-call") return <code data-status={part.status.type}>{part.toolName}</code>;
          return null;
        }}
      </MessagePrimitive.Parts>
    </MessagePrimitive.Root>
  );
}

export function Panel() {
  return (
    <ThreadPrimitive.Root>
      <ThreadPrimitive.Viewport>
        <ThreadPrimitive.Messages components={{ UserMessage: Body, AssistantMessage: Body }} />
      </ThreadPrimitive.Viewport>
      <ComposerPrimitive.Root>
        <ComposerPrimitive.Input />
        <ComposerPrimitive.Send>Send</ComposerPrimitive.Send>
      </ComposerPrimitive.Root>
    </ThreadPrimitive.Root>
  );
}
