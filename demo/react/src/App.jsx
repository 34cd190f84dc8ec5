import { memo, useEffect, useRef, useState } from "react";
import { applyMessages } from "chat-runtime";
import { useAgentState, useChatRuntime, useFrontendTool, useThread, useToolToggles } from "chat-runtime/react";

// Instrumentation the end-to-end test reads (tests/packaging/react.test.mjs): every render of a
// message row, in order; every tool execution the runtime reported; the theme tool's calls; the
// app's own message store (fed from `messages` events with applyMessages), one array per update.
export const trace = (window.__chatTrace ??= { renders: [], toolRuns: [], themeCalls: [], mirrors: [], runs: [] });

/**
 * The chat. `initialThreadId` null is a new chat: `useThread(null)`, whose first run starts a
 * thread; the app then takes that id (URL and state), as an app whose server creates threads does.
 * With `?keepNull` it does not: it keeps calling `useThread(null)`, and the handle shows the thread.
 */
export function App({ initialThreadId }) {
  const [threadId, setThreadId] = useState(initialThreadId);
  const [theme, setTheme] = useState("light");
  const [themeTool, setThemeTool] = useState(true);
  // "The agent seems stuck" after 30 s without a sign of life of the stream (any event, even
  // STATE_DELTA or STEP_*): `thread.stalled`. ?stalledAfter=ms sets it (the test uses 1.5 s).
  const thread = useThread(threadId, { stalledAfter: Number(new URLSearchParams(location.search).get("stalledAfter") ?? 30_000) });
  const shown = thread.threadId;
  const { tools, ready } = useToolToggles(shown);

  useEffect(() => {
    if (shown !== null && shown !== threadId && !new URLSearchParams(location.search).has("keepNull")) {
      history.replaceState(null, "", `?${withThread(shown)}`);
      setThreadId(shown);
    }
  }, [shown, threadId]);

  const newChat = () => {
    history.replaceState(null, "", `?${withThread(null)}`);
    setThreadId(null);
  };

  return (
    <div className="app" data-ready={ready ? "true" : "false"} data-thread={shown ?? ""} data-theme={theme}>
      <header>
        <h1>chat-runtime · React</h1>
        <button id="new-chat" type="button" onClick={newChat}>
          New chat
        </button>
        <button id="theme-toggle" type="button" onClick={() => setTheme((t) => (t === "dark" ? "light" : "dark"))}>
          Theme: <span id="theme">{theme}</span>
        </button>
        <label>
          <input id="theme-tool" type="checkbox" checked={themeTool} onChange={(e) => setThemeTool(e.target.checked)} />
          set_theme tool
        </label>
        <ToolMenu threadId={shown} />
      </header>
      {themeTool && <ThemeTool theme={theme} setTheme={setTheme} />}
      <Thread thread={thread} />
      {ready && tools.length === 0 && <p className="hint">No tools: is /chat-tools.json served?</p>}
      <AgentState threadId={shown} />
      <MessageMirror threadId={shown} />
      <ToolTrace />
      <Confirmations />
    </div>
  );
}

/** The page's query string with `thread` set (or removed), other parameters kept. */
function withThread(id) {
  const params = new URLSearchParams(location.search);
  if (id === null) params.delete("thread");
  else params.set("thread", id);
  return params.toString();
}

function ToolMenu({ threadId }) {
  const { tools, setEnabled, activeCount, error } = useToolToggles(threadId);
  return (
    <details className="tools" open>
      <summary>
        Tools <span id="active-count">{activeCount}</span>
      </summary>
      {error && <p className="error">tools: {error.code}: {error.message}</p>}
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

/**
 * set_theme, defined in React: fire-and-forget (`followUp: false`). Its handler reads the CURRENT
 * theme (component state) on every call: useFrontendTool always calls the latest handler.
 */
function ThemeTool({ theme, setTheme }) {
  useFrontendTool({
    name: "set_theme",
    description: "Switch the page between its light and dark theme.",
    parameters: {
      type: "object",
      properties: { theme: { type: "string", enum: ["dark", "light"], description: "The theme to use" } },
      required: ["theme"],
      additionalProperties: false,
    },
    followUp: false,
    handler: ({ theme: next }) => {
      trace.themeCalls.push({ previous: theme, next });
      setTheme(next);
      return { theme: next, previous: theme };
    },
  });
  return null;
}

function Thread({ thread }) {
  const { messages, running, error, result, run, abort } = thread;
  trace.lastError = error;
  const [text, setText] = useState("");
  const send = (event) => {
    event.preventDefault();
    const value = text.trim();
    if (!value || running) return;
    setText("");
    // How each run() settled, for the tests; a failure is shown through `error`.
    run(value).then(
      (result) => trace.runs.push(result.status),
      (error) => trace.runs.push(`rejected ${error.code}`),
    );
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
        {error && (
          <span className="error" data-code={error.code} data-http-status={error.status ?? ""}>
            {" "}
            {error.code}: {error.message}
          </span>
        )}
      </p>
      {thread.stalled && <p id="stalled">The agent seems stuck (nothing received for a while).</p>}
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

/** The thread's AG-UI state (STATE_SNAPSHOT / STATE_DELTA), re-rendered on `state` events. */
function AgentState({ threadId }) {
  const state = useAgentState(threadId);
  return (
    <section className="side">
      <h2>Agent state</h2>
      <pre id="agent-state">{state === undefined ? "" : JSON.stringify(state)}</pre>
    </section>
  );
}

/**
 * The app's own copy of the messages, as an app with its own store (react-query) keeps it: fed from
 * `messages` events with applyMessages, which keeps every unchanged message object.
 */
function MessageMirror({ threadId }) {
  const runtime = useChatRuntime();
  const [mirror, setMirror] = useState([]);
  const shown = useRef(threadId);
  useEffect(() => {
    shown.current = threadId;
    setMirror(runtime && threadId ? runtime.messages(threadId) : []);
  }, [runtime, threadId]);
  useEffect(() => {
    if (!runtime) return undefined;
    return runtime.subscribe(
      (event) => {
        if (event.threadId !== shown.current) return;
        setMirror((prev) => {
          const next = applyMessages(prev, event.messages, event.replace);
          if (next !== prev) trace.mirrors.push(next);
          return next;
        });
      },
      { events: ["messages"] },
    );
  }, [runtime]);
  return (
    <p className="side">
      The app's own store: <span id="mirror-count">{mirror.length}</span> messages
    </p>
  );
}

/** Subscribes (in an effect: subscribing twice under StrictMode is harmless) to tool executions. */
function ToolTrace() {
  const runtime = useChatRuntime();
  const [last, setLast] = useState(null);
  useEffect(() => {
    if (!runtime) return undefined;
    return runtime.subscribe(
      (event) => {
        if (event.type === "tool_started") {
          trace.toolRuns.push(event.toolCallId);
          setLast(`${event.toolName} running`);
        } else if (event.type === "tool_finished") {
          setLast(`${event.toolName} ${event.error ? `failed: ${event.error.code}` : "done"}`);
        }
      },
      { events: ["tool_started", "tool_finished"] },
    );
  }, [runtime]);
  return <p id="tool-trace">{last}</p>;
}

/**
 * confirm_action, defined in React: a tool that waits for a person, so no deadline
 * (`timeoutMs: null`; Stop still cancels it through `ctx.signal`). Each call shows a card; Yes/No
 * answer it.
 */
function Confirmations() {
  const [requests, setRequests] = useState([]);
  useFrontendTool({
    name: "confirm_action",
    description: "Ask the user to confirm an action before doing it; returns whether they confirmed.",
    parameters: {
      type: "object",
      properties: { action: { type: "string", description: "What will be done, in one sentence", minLength: 1 } },
      required: ["action"],
      additionalProperties: false,
    },
    timeoutMs: null,
    handler: ({ action }, { toolCallId, signal }) =>
      new Promise((resolve, reject) => {
        const request = { toolCallId, action, resolve: null };
        const remove = () => setRequests((list) => list.filter((r) => r !== request));
        request.resolve = (confirmed) => {
          signal.removeEventListener("abort", onAbort);
          remove();
          resolve({ confirmed });
        };
        const onAbort = () => {
          remove();
          reject(signal.reason);
        };
        if (signal.aborted) return onAbort();
        signal.addEventListener("abort", onAbort, { once: true });
        setRequests((list) => [...list, request]);
      }),
  });
  return requests.map((request) => (
    <div className="confirm" key={request.toolCallId}>
      <p>The agent wants to: {request.action}</p>
      <button className="confirm-yes" onClick={() => request.resolve(true)}>
        Yes
      </button>
      <button className="confirm-no" onClick={() => request.resolve(false)}>
        No
      </button>
    </div>
  ));
}
