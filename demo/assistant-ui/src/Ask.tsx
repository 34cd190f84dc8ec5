// The Ask panel: assistant-ui primitives only, rendered the way the Jaeger UI's panel renders them
// (text and tool-call parts with status / isError / argsText / result). The tools the assistant-ui
// way: `count_spans` (model context, `execute`), `approve_deploy` (a human tool: its tool UI, found
// by name, answers with `addResult`). The runtime's wasm is fetched when the panel first opens.
import { useEffect, useState } from "react";
import {
  ComposerPrimitive,
  MessagePrimitive,
  ThreadPrimitive,
  makeAssistantToolUI,
  useAssistantTool,
  useAui,
} from "@assistant-ui/react";
import { useInterrupts, useSetAgentState } from "chat-runtime/assistant-ui";
import { useAgentState, useFrontendTool, useRuntimeStatus, useToolToggles } from "chat-runtime/react";

import { TRACES } from "./data";
import type { View } from "./views";

function ToolCall(props: {
  toolName: string;
  argsText?: string | undefined;
  result?: unknown;
  status?: { type: string; reason?: string } | undefined;
  isError?: boolean | undefined;
  interrupt?: { payload: unknown } | undefined;
  resume: (payload: unknown) => void;
}) {
  const { toolName, argsText, result, status, isError, interrupt } = props;
  const running = status?.type === "running" || status?.type === "requires-action";
  const failed = status?.type === "incomplete" || isError === true;
  return (
    <div
      className={`tool-call${failed ? " failed" : ""}`}
      data-tool={toolName}
      data-status={status?.type ?? ""}
      data-reason={status?.reason ?? ""}
      data-error={String(isError === true)}
    >
      <span className="label">{running ? `Calling ${toolName}…` : failed ? `Failed ${toolName}` : `Called ${toolName}`}</span>
      {argsText ? <code className="args">{argsText}</code> : null}
      {result !== undefined ? <code className="result">{typeof result === "string" ? result : JSON.stringify(result)}</code> : null}
      {interrupt !== undefined ? (
        <span className="interrupt">
          <button className="resume-yes" onClick={() => props.resume({ approved: true })}>
            Approve
          </button>
          <button className="resume-no" onClick={() => props.resume({ approved: false })}>
            Reject
          </button>
        </span>
      ) : null}
    </div>
  );
}

/**
 * How often each text part rendered, by its first word (window.textRenders): the tests check that a
 * finished message does not render again while another one streams.
 */
const textRenders = new Map<string, number>();
Object.assign(window, { textRenders });
function countRender(text: string): void {
  const key = text.split(" ")[0] ?? "";
  textRenders.set(key, (textRenders.get(key) ?? 0) + 1);
}

function Body({ variant }: { variant: "user" | "assistant" }) {
  return (
    <MessagePrimitive.Root className={`message ${variant}`}>
      <MessagePrimitive.Parts>
        {({ part }) => {
          if (part.type === "text") {
            countRender(part.text);
            return <div className="text">{part.text}</div>;
          }
          if (part.type === "reasoning") return <div className="reasoning">{part.text}</div>;
          if (part.type === "tool-call") {
            if (part.toolUI) return part.toolUI;
            return (
              <ToolCall
                toolName={part.toolName}
                argsText={part.argsText}
                result={part.result}
                status={part.status}
                isError={part.isError}
                interrupt={part.interrupt}
                resume={part.resume}
              />
            );
          }
          return null;
        }}
      </MessagePrimitive.Parts>
      <MessagePrimitive.Error>
        <div className="message-error">The answer failed.</div>
      </MessagePrimitive.Error>
    </MessagePrimitive.Root>
  );
}

const components = {
  UserMessage: () => <Body variant="user" />,
  AssistantMessage: () => <Body variant="assistant" />,
};

// A human tool's UI, by name: the person answers with `addResult`.
const ApproveDeployUI = makeAssistantToolUI<{ service: string }, string>({
  toolName: "approve_deploy",
  render: ({ args, result, status, addResult }) => (
    <div className="approve" data-tool="approve_deploy" data-status={status.type}>
      Deploy {args.service}?
      {result === undefined ? (
        <>
          <button className="approve-yes" onClick={() => addResult("approved")}>
            Yes
          </button>
          <button className="approve-no" onClick={() => addResult("refused")}>
            No
          </button>
        </>
      ) : (
        <b className="answer">{result}</b>
      )}
    </div>
  ),
});

// A chat-runtime tool that waits for a person (`timeoutMs: null`): its handler waits until its card
// (a tool UI by name) is answered. App.tsx names it in `humanTools`, so its part shows
// `requires-action` while it waits, as assistant-ui's own human tools do.
const answers = new Map<string, (answer: string) => void>();

const AskPersonUI = makeAssistantToolUI<{ question: string }, string>({
  toolName: "ask_person",
  render: ({ args, result, status, toolCallId }) => (
    <div className="ask-person" data-tool="ask_person" data-status={status.type}>
      {args.question}
      {status.type === "requires-action" ? (
        <button className="ask-person-yes" onClick={() => answers.get(toolCallId)?.("yes")}>
          Yes
        </button>
      ) : null}
      {result !== undefined ? <b className="answer">{result}</b> : null}
    </div>
  ),
});

function useAskPerson(): void {
  useFrontendTool<{ question: string }, string>({
    name: "ask_person",
    description: "Ask the user a yes/no question and wait for the answer.",
    parameters: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
    timeoutMs: null,
    defaultEnabled: true,
    handler: (_args, ctx) =>
      new Promise<string>((resolve, reject) => {
        answers.set(ctx.toolCallId, resolve);
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
      }).finally(() => answers.delete(ctx.toolCallId)),
  });
}

const countSpans = {
  toolName: "count_spans",
  type: "frontend" as const,
  description: "Count the spans of a trace shown on the page.",
  parameters: {
    type: "object" as const,
    properties: { trace_id: { type: "string" as const } },
    required: ["trace_id"],
  },
  execute: async ({ trace_id }: { trace_id: string }) => ({ spans: TRACES.find((t) => t.id === trace_id)?.spans.length ?? 0 }),
};

const approveDeploy = {
  toolName: "approve_deploy",
  type: "human" as const,
  description: "Ask the user to approve deploying a service.",
  parameters: { type: "object" as const, properties: { service: { type: "string" as const } }, required: ["service"] },
};

function Toggles({ threadId }: { threadId: string }) {
  const { tools, setEnabled, ready } = useToolToggles(threadId);
  if (!ready) return null;
  return (
    <details className="toggles">
      <summary>Browser tools</summary>
      {tools
        .filter((t) => t.source === "frontend")
        .map((t) => (
          <label key={t.name}>
            <input type="checkbox" data-tool={t.name} checked={t.enabled} onChange={(e) => setEnabled(t.name, e.target.checked)} /> {t.name}
          </label>
        ))}
    </details>
  );
}

function Interrupts({ threadId }: { threadId: string }) {
  const { interrupts, respond } = useInterrupts(threadId);
  const free = interrupts.filter((i) => i.toolCallId === undefined);
  if (free.length === 0) return null;
  return (
    <div id="interrupts">
      {free.map((i) => (
        <p key={i.id} data-interrupt={i.id}>
          {i.message ?? i.reason}
        </p>
      ))}
      <button id="interrupts-resolve" onClick={() => void respond(free.map((i) => ({ interruptId: i.id, status: "resolved", payload: { approved: true } })))}>
        Approve all
      </button>
      <button id="interrupts-cancel" onClick={() => void respond(free.map((i) => ({ interruptId: i.id, status: "cancelled" })))}>
        Cancel all
      </button>
    </div>
  );
}

/** Sends without the composer, as the Jaeger UI's "Ask Jaeger" links do (`aui.thread().append`). */
function Append() {
  const aui = useAui();
  const [text, setText] = useState("");
  return (
    <form
      id="append"
      onSubmit={(e) => {
        e.preventDefault();
        aui.thread().append(text);
        setText("");
      }}
    >
      <input id="append-text" placeholder="…or send with aui.thread().append" value={text} onChange={(e) => setText(e.target.value)} />
    </form>
  );
}

/** The thread's AG-UI state as the agent set it, and the view pinned into it for the next question. */
function AgentState({ threadId, view }: { threadId: string; view: View }) {
  const state = useAgentState(threadId);
  const setState = useSetAgentState(threadId);
  return (
    <div className="agent-state">
      state: <code id="agent-state">{state === undefined ? "" : JSON.stringify(state)}</code>
      <button id="pin-view" onClick={() => setState({ view: view.kind === "list" ? "list" : view.traceId })}>
        Pin this view
      </button>
    </div>
  );
}

export function AskPanel({ open, threadId, view }: { open: boolean; threadId: string; view: View }) {
  const { status, load } = useRuntimeStatus();
  useAssistantTool(countSpans);
  useAssistantTool(approveDeploy);
  useAskPerson();
  useEffect(() => {
    if (open) load().catch(() => {});
  }, [open, load]);
  return (
    <ThreadPrimitive.Root className="thread" data-wasm={status}>
      <ApproveDeployUI />
      <AskPersonUI />
      <Toggles threadId={threadId} />
      <AgentState threadId={threadId} view={view} />
      <ThreadPrimitive.Viewport className="viewport">
        <ThreadPrimitive.Empty>
          <p className="hint">Ask about these traces: "highlight the slow span", "show the flame graph", "filter payments".</p>
        </ThreadPrimitive.Empty>
        <ThreadPrimitive.Messages components={components} />
      </ThreadPrimitive.Viewport>
      <Interrupts threadId={threadId} />
      <Append />
      <ComposerPrimitive.Root className="composer">
        <ComposerPrimitive.Input id="input" placeholder="Ask…" submitMode="enter" rows={1} />
        <ThreadPrimitive.If running={false}>
          <ComposerPrimitive.Send id="send">Send</ComposerPrimitive.Send>
        </ThreadPrimitive.If>
        <ThreadPrimitive.If running>
          <ComposerPrimitive.Cancel id="stop">Stop</ComposerPrimitive.Cancel>
        </ThreadPrimitive.If>
      </ComposerPrimitive.Root>
    </ThreadPrimitive.Root>
  );
}
