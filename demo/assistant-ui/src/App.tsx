// The app: a trace list and a trace view (the span timeline, or a flame graph), and the Ask panel,
// mounted from the start and hidden until opened (as the Jaeger UI keeps it). The panel's provider
// is the whole switch from @assistant-ui/react-ag-ui: ChatRuntimeAssistantProvider (docs/assistant-ui.md).
import { useEffect, useState } from "react";
import type { ChatRuntimeOptions, MessageInput } from "chat-runtime";
import { ChatRuntimeAssistantProvider } from "chat-runtime/assistant-ui";

import { AskPanel } from "./Ask";
import { TraceList, TraceView, type View } from "./views";

const params = new URLSearchParams(location.search);
// The threads of this page: the URL's (the tests name theirs), else one of its own; "New chat" adds one.
const first = params.get("thread") ?? crypto.randomUUID();

// Model-context tools that run from the stream with no result and no new run (views.tsx: open_trace).
const FIRE_AND_FORGET = ["open_trace"];
// chat-runtime tools whose calls wait for a person (Ask.tsx: ask_person, `timeoutMs: null`).
const HUMAN_TOOLS = ["ask_person"];

const options: ChatRuntimeOptions = {
  runUrl: "/api/threads/{threadId}/runs",
  toolsUrl: "/tools/tools.json",
};

/**
 * The thread's history as the agent keeps it (`GET /api/threads/{id}/messages`, demo/agent), once
 * its runs that are still going on have ended (`?wait`): a page reloaded mid-run gets the run's
 * answer. `undefined` while it loads. Fetched again each time the thread is shown: the adapter
 * drops a thread given a `history` when it is no longer shown, and seeds it again from this copy.
 */
function useHistory(threadId: string): readonly MessageInput[] | undefined {
  const [history, setHistory] = useState<{ threadId: string; messages: readonly MessageInput[] }>();
  useEffect(() => {
    let live = true;
    fetch(`/api/threads/${encodeURIComponent(threadId)}/messages?wait`)
      .then((res) => (res.ok ? res.json() : { messages: [] }))
      .then((body: { messages: MessageInput[] }) => live && setHistory({ threadId, messages: body.messages }))
      .catch(() => live && setHistory({ threadId, messages: [] }));
    return () => {
      live = false;
    };
  }, [threadId]);
  return history?.threadId === threadId ? history.messages : undefined;
}

export function App() {
  const [view, setView] = useState<View>({ kind: "list", filter: null });
  const [open, setOpen] = useState(false);
  const [errors, setErrors] = useState<string[]>([]);
  const [threads, setThreads] = useState<string[]>([first]);
  const [threadId, setThreadId] = useState(first);
  // The shown thread is in the URL: a reload shows it again, with its history from the agent.
  useEffect(() => {
    const url = new URL(location.href);
    url.searchParams.set("thread", threadId);
    history.replaceState(null, "", url);
  }, [threadId]);
  const messages = useHistory(threadId);
  return (
    <ChatRuntimeAssistantProvider
      options={options}
      threadId={threadId}
      history={messages}
      showThinking
      whileRunning={params.has("steer") ? "steer" : "queue"}
      fireAndForget={FIRE_AND_FORGET}
      humanTools={HUMAN_TOOLS}
      onError={(e) => setErrors((list) => [...list, `${e.code}: ${e.message}`])}
    >
      <div className="app" data-view={view.kind === "list" ? "list" : view.mode}>
        <header>
          <h1>Traces</h1>
          {view.kind === "trace" && (
            <button id="back" onClick={() => setView({ kind: "list", filter: null })}>
              ← all traces
            </button>
          )}
          <button id="ask" onClick={() => setOpen((o) => !o)}>
            {open ? "Close" : "Ask"}
          </button>
        </header>
        <main>{view.kind === "list" ? <TraceList view={view} setView={setView} /> : <TraceView view={view} setView={setView} />}</main>
        <aside className="ask" style={{ display: open ? undefined : "none" }}>
          <nav className="threads">
            {threads.map((t, i) => (
              <button key={t} data-thread={i} disabled={t === threadId} onClick={() => setThreadId(t)}>
                Chat {i + 1}
              </button>
            ))}
            <button
              id="new-chat"
              onClick={() => {
                const id = `${first}-${threads.length + 1}`;
                setThreads((list) => [...list, id]);
                setThreadId(id);
              }}
            >
              New chat
            </button>
          </nav>
          <AskPanel open={open} threadId={threadId} view={view} />
          <ul id="errors">
            {errors.map((e, i) => (
              <li key={i}>{e}</li>
            ))}
          </ul>
        </aside>
      </div>
    </ChatRuntimeAssistantProvider>
  );
}
