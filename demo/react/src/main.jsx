import { StrictMode, useState } from "react";
import { createRoot } from "react-dom/client";
import { ChatRuntime, ChatRuntimeError, applyMessages as applyFromMain } from "chat-runtime";
import { ChatRuntimeProvider, initChatRuntime, useRuntimeStatus, useThread, applyMessages as applyFromReact } from "chat-runtime/react";
import { App, trace } from "./App.jsx";

const params = new URLSearchParams(location.search);

/** The organization the page's Coder chats are created in (the demo agent's mock takes any non-nil UUID). */
const CODER_ORGANIZATION_ID = "0de00000-0000-4000-8000-000000000001";

// Read once by the provider; everything else goes through the hooks. The React demo's manifest
// (public/chat-tools.json) has the module tools; get_browser_time, set_theme and confirm_action are
// defined in React code (the provider's `tools`, `useFrontendTool`). `?backend=coder`: the same app
// on the Coder chat backend (the demo agent's Coder mock at /api/v2/chats, same origin: the dev
// server proxies it, its WebSocket too); a thread is a chat, created by a new chat's first message.
const options = {
  ...(params.get("backend") === "coder"
    ? { backend: { type: "coder", baseUrl: "/api/v2", organizationId: CODER_ORGANIZATION_ID } }
    : { runUrl: "/api/threads/{threadId}/runs" }),
  toolsUrl: "/chat-tools.json",
  // An app's fetch wrapper (an auth layer does this): the test makes it throw once, as an auth
  // fetch throws its FetchError(401); the hook's `error` keeps what was thrown as `cause`.
  fetch: (url, init) => {
    const failure = trace.failFetch;
    if (failure) {
      trace.failFetch = null;
      return Promise.reject(failure);
    }
    return fetch(url, init);
  },
};

/** A tool defined in code, given to the provider: the browser's local time. */
const tools = [
  {
    name: "get_browser_time",
    description: "Get the current local date, time and time zone of the user's browser.",
    parameters: { type: "object", properties: {}, additionalProperties: false },
    handler: () => {
      const now = new Date();
      return { localTime: now.toLocaleString(), timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC" };
    },
  },
];

/** The history the app keeps of a thread (?history). */
const HISTORY = [
  { id: "h1", role: "user", content: "Earlier question" },
  { id: "h2", role: "assistant", content: "Earlier answer" },
];

// ?thread=ID opens that thread; without it the page is a new chat (useThread(null)).
const threadId = params.get("thread");

// The test reads these: the merge-by-id of both entries (one function).
trace.applyMessages = { main: applyFromMain, react: applyFromReact };
trace.ChatRuntimeError = ChatRuntimeError;

const root = createRoot(document.getElementById("root"));

/** The provider on a runtime the app made itself: remounting it keeps the runtime and its threads. */
function Remountable({ runtime }) {
  const [generation, setGeneration] = useState(0);
  const [mounted, setMounted] = useState(true);
  return (
    <>
      <p className="bar">
        <button id="remount" type="button" onClick={() => setGeneration((g) => g + 1)}>
          Remount the provider
        </button>{" "}
        <button id="unmount" type="button" onClick={() => setMounted((m) => !m)}>
          {mounted ? "Unmount" : "Mount"} the provider
        </button>
      </p>
      {mounted && (
        <ChatRuntimeProvider key={generation} runtime={runtime} tools={tools}>
          <App initialThreadId={threadId} />
        </ChatRuntimeProvider>
      )}
    </>
  );
}

if (params.has("runtime")) {
  // ?runtime: the app makes its own ChatRuntime (and loads its tools) and hands it to the provider,
  // which never frees it.
  initChatRuntime()
    .then(() => {
      const runtime = new ChatRuntime(options);
      window.__appRuntime = runtime;
      return runtime.loadTools().then(() => runtime);
    })
    .then((runtime) =>
      root.render(
        <StrictMode>
          <Remountable runtime={runtime} />
        </StrictMode>,
      ),
    );
} else if (params.has("history")) {
  // ?history: two panels on the app's runtime (window.__appRuntime), each behind a button: thread
  // `{thread}-owned` is given the app's `history` (the adapter forgets it when its panel unmounts
  // and seeds it again when it mounts), `{thread}-kept` is not (the runtime keeps it). The test
  // holds the runtime's requests with `trace.hold` (a promise) to unmount a running thread.
  function Panel({ id, history }) {
    const thread = useThread(id, history ? { history } : {});
    return (
      <ul className="panel" data-thread={id} data-ready={thread.ready ? "true" : "false"} data-running={thread.running ? "true" : "false"}>
        {thread.messages.map((m) => (
          <li key={m.id}>{m.id}</li>
        ))}
      </ul>
    );
  }
  function Panels() {
    const [shown, setShown] = useState({ owned: true, kept: true });
    const flip = (name) => () => setShown((s) => ({ ...s, [name]: !s[name] }));
    return (
      <>
        <button id="toggle-owned" type="button" onClick={flip("owned")}>owned</button>
        <button id="toggle-kept" type="button" onClick={flip("kept")}>kept</button>
        {shown.owned && <Panel id={`${threadId}-owned`} history={HISTORY} />}
        {shown.kept && <Panel id={`${threadId}-kept`} />}
      </>
    );
  }
  initChatRuntime().then(async () => {
    const runtime = new ChatRuntime({ ...options, fetch: async (url, init) => (await trace.hold, fetch(url, init)) });
    window.__appRuntime = runtime;
    await runtime.loadTools();
    root.render(
      <StrictMode>
        <ChatRuntimeProvider runtime={runtime}>
          <Panels />
        </ChatRuntimeProvider>
      </StrictMode>,
    );
  });
} else if (params.has("unmountable")) {
  // ?unmountable: the provider makes the runtime from `options` (the default), behind a button
  // that unmounts it: the provider then frees its runtime, and every run() of it settles.
  function Unmountable() {
    const [mounted, setMounted] = useState(true);
    return (
      <>
        <p className="bar">
          <button id="unmount" type="button" onClick={() => setMounted((m) => !m)}>
            {mounted ? "Unmount" : "Mount"} the provider
          </button>
        </p>
        {mounted && (
          <ChatRuntimeProvider options={options} tools={tools}>
            <App initialThreadId={threadId} />
          </ChatRuntimeProvider>
        )}
      </>
    );
  }
  root.render(
    <StrictMode>
      <Unmountable />
    </StrictMode>,
  );
} else if (params.has("home")) {
  // ?home: a page that has a chat behind a button, as an app's root layout does. The provider is
  // there from the start, but nothing fetches the wasm until the chat mounts (lazy start).
  function Home() {
    const [open, setOpen] = useState(false);
    return open ? (
      <App initialThreadId={threadId} />
    ) : (
      <p className="home">
        <button id="open-chat" type="button" onClick={() => setOpen(true)}>
          Open the chat
        </button>
      </p>
    );
  }
  root.render(
    <StrictMode>
      <ChatRuntimeProvider options={options} tools={tools}>
        <Home />
      </ChatRuntimeProvider>
    </StrictMode>,
  );
} else {
  // ?build=same: the provider loads a build the app names (here the same AG-UI module, as a Coder
  // app names `chat-runtime/coder`); ?build=fail: a build whose first load fails (a chunk that did
  // not load), then loads. ?load=demand: nothing is fetched before a run or `load()`. The provider's
  // `onError` calls are in `trace.errors`; `#runtime` shows `useRuntimeStatus()`.
  const which = params.get("build");
  let failures = which === "fail" ? 1 : 0;
  trace.builds = 0;
  trace.errors = [];
  // `?backend=coder` loads the package's Coder build (`chat-runtime/coder`, both backends); the
  // AG-UI app imports none of it.
  const build =
    which === null
      ? params.get("backend") === "coder"
        ? () => import("chat-runtime/coder")
        : undefined
      : () => {
          trace.builds++;
          if (failures-- > 0) return Promise.reject(new Error("the build's chunk did not load"));
          return import("chat-runtime");
        };
  const load = params.get("load") ?? undefined;
  function RuntimeStatus() {
    const { status, error, load } = useRuntimeStatus();
    return (
      <p id="runtime" className="bar" data-status={status} data-code={error?.code ?? ""}>
        runtime: {status} {error && `(${error.code}: ${error.message})`}{" "}
        <button id="load" type="button" onClick={() => void load()}>
          Load
        </button>
      </p>
    );
  }
  root.render(
    <StrictMode>
      <ChatRuntimeProvider options={options} tools={tools} build={build} load={load} onError={(error) => trace.errors.push(error.code)}>
        <RuntimeStatus />
        <App initialThreadId={threadId} />
      </ChatRuntimeProvider>
    </StrictMode>,
  );
}
