import { memo, useEffect, useState } from "react";
import { useChatRuntime, useThread, useToolToggles } from "chat-runtime/react";

// Instrumentation the end-to-end test reads (tests/packaging/react.test.mjs): every render of a
// message row, in order, and every tool execution the runtime reported.
const trace = (window.__chatTrace ??= { renders: [], toolRuns: [] });

export function App({ initialThreadId }) {
  const [threadId, setThreadId] = useState(initialThreadId);
  const { tools, ready } = useToolToggles(threadId);
  const newThread = () => {
    const id = `react-${crypto.randomUUID()}`;
    history.replaceState(null, "", `?thread=${encodeURIComponent(id)}`);
    setThreadId(id);
  };
  return (
    <div className="app" data-ready={ready ? "true" : "false"} data-thread={threadId}>
      <header>
        <h1>chat-runtime · React</h1>
        <button id="new-thread" type="button" onClick={newThread}>
          New thread
        </button>
        <ToolMenu threadId={threadId} />
      </header>
      <Thread threadId={threadId} />
      {ready && tools.length === 0 && <p className="hint">No tools: is /tools/tools.json served?</p>}
      <ToolTrace />
      <Confirmations />
    </div>
  );
}

function ToolMenu({ threadId }) {
  const { tools, setEnabled, activeCount, error } = useToolToggles(threadId);
  return (
    <details className="tools" open>
      <summary>
        Tools <span id="active-count">{activeCount}</span>
      </summary>
      {error && <p className="error">tools.json: {error.message}</p>}
      <ul>
        {tools.map((tool) => (
          <li key={tool.name}>
            <label title={tool.description}>
              <input
                type="checkbox"
                data-tool={tool.name}
                checked={tool.enabled}
                disabled={tool.locked}
                onChange={(e) => setEnabled(tool.name, e.target.checked)}
              />
              {tool.name}
              {tool.locked && <small> (agent)</small>}
            </label>
          </li>
        ))}
      </ul>
    </details>
  );
}

function Thread({ threadId }) {
  const { messages, running, error, result, run, abort } = useThread(threadId);
  const [text, setText] = useState("");
  const send = (event) => {
    event.preventDefault();
    const value = text.trim();
    if (!value || running) return;
    setText("");
    run(value).catch(() => {}); // shown through `error`
  };
  return (
    <main>
      <ol id="messages">
        {messages.map((message) => (
          <MessageRow key={message.id} message={message} />
        ))}
      </ol>
      <p id="status" data-running={running ? "true" : "false"} data-status={result?.status ?? ""}>
        {running ? "Working…" : result ? `Last run: ${result.status} (${result.rounds} rounds)` : "Ready"}
        {error && <span className="error"> {error.code}: {error.message}</span>}
      </p>
      <form onSubmit={send}>
        <input id="input" value={text} onChange={(e) => setText(e.target.value)} placeholder="Ask the demo agent…" />
        <button id="send" type="submit" disabled={running}>
          Send
        </button>
        <button id="stop" type="button" onClick={abort} disabled={!running}>
          Stop
        </button>
      </form>
    </main>
  );
}

function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join(" ");
  return "";
}

/** One message; memoised: it renders again only when its own message object changes. */
const MessageRow = memo(function MessageRow({ message }) {
  trace.renders.push(message.id);
  if (message.role === "tool") {
    return (
      <li className="msg tool" data-id={message.id} data-role="tool" data-error={message.error ? "true" : "false"}>
        <code>{textOf(message.content)}</code>
      </li>
    );
  }
  return (
    <li className={`msg ${message.role}`} data-id={message.id} data-role={message.role}>
      <span className="text">{textOf(message.content)}</span>
      {message.role === "assistant" &&
        (message.toolCalls ?? []).map((call) => (
          <code key={call.id} className="call" data-call={call.function.name}>
            {call.function.name}({call.function.arguments})
          </code>
        ))}
    </li>
  );
});

/** Subscribes (in an effect: subscribing twice under StrictMode is harmless) to tool executions. */
function ToolTrace() {
  const runtime = useChatRuntime();
  const [last, setLast] = useState(null);
  useEffect(() => {
    if (!runtime) return undefined;
    return runtime.subscribe((event) => {
      if (event.type === "tool_started") {
        trace.toolRuns.push(event.toolCallId);
        setLast(`${event.toolName} running`);
      } else if (event.type === "tool_finished") {
        setLast(`${event.toolName} ${event.error ? `failed: ${event.error.code}` : "done"}`);
      }
    });
  }, [runtime]);
  return <p id="tool-trace">{last}</p>;
}

/**
 * The page side of the demo's confirm_action tool: it dispatches a cancelable
 * `chat-runtime:confirm` event; claiming it shows a card; Yes/No resolve it; Stop aborts its signal.
 */
function Confirmations() {
  const [requests, setRequests] = useState([]);
  useEffect(() => {
    const onConfirm = (event) => {
      event.preventDefault();
      const request = event.detail;
      const remove = () => setRequests((list) => list.filter((r) => r !== request));
      request.signal.addEventListener("abort", remove, { once: true });
      setRequests((list) => [...list, request]);
    };
    window.addEventListener("chat-runtime:confirm", onConfirm);
    return () => window.removeEventListener("chat-runtime:confirm", onConfirm);
  }, []);
  const answer = (request, yes) => {
    request.resolve(yes);
    setRequests((list) => list.filter((r) => r !== request));
  };
  return requests.map((request) => (
    <div className="confirm" key={request.toolCallId}>
      <p>The agent wants to: {request.action}</p>
      <button className="confirm-yes" onClick={() => answer(request, true)}>
        Yes
      </button>
      <button className="confirm-no" onClick={() => answer(request, false)}>
        No
      </button>
    </div>
  ));
}
