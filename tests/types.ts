// Type-level test of the package's declarations: compiled with `tsc --noEmit` in `make test`.
// Every line must type-check; the `@ts-expect-error` lines must NOT (tsc fails if they would).
import init, {
  initSync,
  decodeEventStream,
  decodeEventStreamReport,
  type AgUiEvent,
  type ChatRuntimeError,
  type DecodeReport,
  type DecodeWarning,
  type Message,
  type RunAgentInput,
} from "../pkg/chat_runtime.js";

export async function usesTheApi(bytes: Uint8Array, wasm: BufferSource): Promise<string[]> {
  await init();
  initSync({ module: wasm });
  const events: AgUiEvent[] = decodeEventStream(bytes);
  decodeEventStream("data: {}\n\n", { verify: false, maxEventBytes: 1024 });
  const report: DecodeReport = decodeEventStreamReport(bytes);
  const ids: string[] = [];
  for (const event of events) {
    switch (event.type) {
      case "TEXT_MESSAGE_CONTENT":
        ids.push(event.messageId + event.delta);
        break;
      case "TOOL_CALL_START":
        ids.push(event.toolCallName, event.parentMessageId ?? "");
        break;
      case "RUN_FINISHED":
        if (event.outcome?.type === "success") ids.push(...(event.outcome.pendingToolCallIds ?? []));
        if (event.outcome?.type === "interrupt") ids.push(event.outcome.interrupts[0].reason);
        break;
      case "MESSAGES_SNAPSHOT":
        for (const message of event.messages) {
          if (message.role === "assistant") ids.push(...(message.toolCalls ?? []).map((c) => c.function.arguments));
          if (message.role === "tool") ids.push(message.toolCallId, message.error ?? "");
        }
        break;
      case "STATE_DELTA":
        ids.push(...event.delta.map((op) => op.path));
        break;
      default:
        ids.push(event.type);
    }
  }
  const warning: DecodeWarning | undefined = report.warnings[0];
  if (warning?.kind === "legacy_event") ids.push(warning.translatedTo);
  if (report.lastEventId !== undefined) ids.push(report.lastEventId);
  return ids;
}

export function handlesErrors(input: string): string {
  try {
    decodeEventStream(input);
    return "ok";
  } catch (e) {
    const error = e as ChatRuntimeError;
    return `${error.code}:${error.index ?? -1}:${error.field ?? ""}:${error.status ?? 0}`;
  }
}

export const input: RunAgentInput = {
  threadId: "t",
  runId: "r",
  messages: [{ id: "1", role: "user", content: "hi" } satisfies Message],
  tools: [{ name: "get_weather", description: "weather", parameters: { type: "object" } }],
  context: [],
};

// @ts-expect-error: numbers are not a stream
decodeEventStream(42);
// @ts-expect-error: a tool message needs its toolCallId
export const bad: Message = { id: "x", role: "tool", content: "r" };
