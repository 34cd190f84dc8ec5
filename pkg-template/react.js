// chat-runtime/react: a small React adapter over ChatRuntime (plain ES module, no JSX, no build step).
//
// Design:
// - The wasm module is initialised once per page (one module-level promise), whatever the number of
//   providers and however often StrictMode mounts them.
// - A provider owns ONE runtime. It is created outside render (after the init promise) and kept in a
//   ref, so StrictMode's simulated unmount/remount reuses it instead of creating a second one; it is
//   freed only when the provider really goes away.
// - State lives in external stores (one per runtime and thread) read with useSyncExternalStore.
//   Effects only subscribe: nothing in an effect sends a run or executes a tool; `run` is called by
//   the user (an event handler), so double-invoked effects can never double-send.
// - Messages keep their object identity while they do not change: the runtime's coalesced `messages`
//   events carry only the changed messages, which replace their predecessors by id; every other
//   message object is the same as in the previous render, so React.memo message rows skip rendering.
import {
  createContext,
  createElement,
  useCallback,
  useContext,
  useEffect,
  useRef,
  useState,
  useSyncExternalStore,
} from "react";
import init, { ChatRuntime, ChatRuntimeError } from "./chat_runtime.js";

// ---- wasm initialisation, once per page ----------------------------------------------------------

let initPromise = null;

/**
 * Initialises the wasm module once per page; later calls return the same promise. `input` is what
 * wasm-pack's `init` takes (a URL, a Response, bytes or a WebAssembly.Module), used by the first call.
 */
export function initChatRuntime(input) {
  if (initPromise === null) {
    initPromise = (input === undefined ? init() : init({ module_or_path: input })).then(() => undefined);
    // A failed init may be retried (e.g. the wasm URL was wrong and the app fixes it).
    initPromise.catch(() => {
      initPromise = null;
    });
  }
  return initPromise;
}

// ---- per-runtime stores ---------------------------------------------------------------------------

/** runtime -> { threads: Map<threadId, ThreadStore>, toggles: Map<key, ToggleStore>, meta } */
const registry = new WeakMap();

function entryFor(runtime) {
  let entry = registry.get(runtime);
  if (entry) return entry;
  entry = {
    threads: new Map(),
    toggles: new Map(),
    // Whether the tool catalog is loaded (set by the provider), and why it failed if it did.
    meta: { toolsReady: false, toolsError: null },
  };
  registry.set(runtime, entry);
  // One listener per runtime, dispatching to the stores.
  runtime.subscribe((event) => {
    switch (event.type) {
      case "messages":
      case "round_started":
      case "run_finished":
        entry.threads.get(event.threadId)?.handle(event);
        break;
      case "toggles_changed":
      case "tools_changed":
        // A change of the default toggles (threadId null) shows in every thread without saved
        // toggles, and a catalog change in all: refresh every toggle store (they keep their
        // snapshot when nothing they show changed).
        for (const store of entry.toggles.values()) store.refresh();
        break;
      default:
        break;
    }
  });
  return entry;
}

/** Marks the runtime's catalog as loaded (or failed) for `useToolToggles(...).ready`. */
function setToolsStatus(runtime, ready, error) {
  const entry = entryFor(runtime);
  entry.meta = { toolsReady: ready, toolsError: error ?? null };
  for (const store of entry.toggles.values()) store.refresh();
}

function sameJson(a, b) {
  if (a === b) return true;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

function newId() {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === "function") return c.randomUUID();
  return `msg-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/** Merges changed messages into `prev` by id; untouched (and unchanged) messages keep identity. */
function mergeMessages(prev, index, changed) {
  let next = null;
  for (const message of changed) {
    const at = index.get(message.id);
    if (at === undefined) {
      next ??= prev.slice();
      index.set(message.id, next.length);
      next.push(message);
    } else if (!sameJson((next ?? prev)[at], message)) {
      next ??= prev.slice();
      next[at] = message;
    }
  }
  return next ?? prev;
}

/** Rebuilds the list from the runtime's full thread, reusing every equal message object. */
function reconcileMessages(prev, full) {
  const byId = new Map(prev.map((m) => [m.id, m]));
  let same = prev.length === full.length;
  const next = full.map((message, i) => {
    const old = byId.get(message.id);
    const kept = old !== undefined && sameJson(old, message) ? old : message;
    if (kept !== prev[i]) same = false;
    return kept;
  });
  return same ? prev : next;
}

function indexOf(messages) {
  return new Map(messages.map((m, i) => [m.id, i]));
}

class ThreadStore {
  constructor(runtime, threadId) {
    this.runtime = runtime;
    this.threadId = threadId;
    this.listeners = new Set();
    let messages = [];
    try {
      messages = runtime.messages(threadId);
    } catch {
      // A thread the runtime does not know yet has no messages.
    }
    this.index = indexOf(messages);
    this.snapshot = { messages, running: false, error: null, result: null };
    this.subscribe = this.subscribe.bind(this);
    this.getSnapshot = this.getSnapshot.bind(this);
    this.run = this.run.bind(this);
    this.abort = this.abort.bind(this);
  }

  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  getSnapshot() {
    return this.snapshot;
  }

  set(patch) {
    const next = { ...this.snapshot, ...patch };
    const prev = this.snapshot;
    if (
      next.messages === prev.messages &&
      next.running === prev.running &&
      next.error === prev.error &&
      next.result === prev.result
    ) {
      return;
    }
    this.snapshot = next;
    for (const listener of [...this.listeners]) listener();
  }

  /** The full thread from the runtime (after a run, or when a snapshot may have removed messages). */
  resync() {
    let full;
    try {
      full = this.runtime.messages(this.threadId);
    } catch {
      return this.snapshot.messages;
    }
    const messages = reconcileMessages(this.snapshot.messages, full);
    if (messages !== this.snapshot.messages) this.index = indexOf(messages);
    return messages;
  }

  handle(event) {
    if (event.type === "messages") {
      this.set({ messages: mergeMessages(this.snapshot.messages, this.index, event.messages) });
    } else if (event.type === "round_started") {
      if (!this.snapshot.running) this.set({ running: true });
    } else if (event.type === "run_finished") {
      this.set({ running: false, messages: this.resync() });
    }
  }

  run(input, options) {
    let request;
    if (typeof input === "string") {
      request = { threadId: this.threadId, messages: [{ id: newId(), role: "user", content: input }] };
    } else if (Array.isArray(input)) {
      request = { threadId: this.threadId, messages: input };
    } else {
      request = { ...input, threadId: this.threadId };
    }
    const busy = this.snapshot.running;
    if (!busy) this.set({ running: true, error: null });
    let promise;
    try {
      promise = this.runtime.run(request, options);
    } catch (error) {
      promise = Promise.reject(error);
    }
    return promise.then(
      (result) => {
        this.set({ running: false, result, error: result.error ?? null, messages: this.resync() });
        return result;
      },
      (error) => {
        // `run/busy`: another run of this thread is going on; it keeps `running`.
        const stillRunning = error?.code === "run/busy" ? this.snapshot.running : false;
        this.set({ running: stillRunning, error });
        throw error;
      },
    );
  }

  abort() {
    this.runtime.abort(this.threadId);
  }
}

function threadStore(runtime, threadId) {
  const entry = entryFor(runtime);
  let store = entry.threads.get(threadId);
  if (!store) {
    store = new ThreadStore(runtime, threadId);
    entry.threads.set(threadId, store);
  }
  return store;
}

class ToggleStore {
  constructor(runtime, threadId, entry) {
    this.runtime = runtime;
    this.threadId = threadId;
    this.entry = entry;
    this.listeners = new Set();
    // Bound before the first snapshot, which hands `setEnabled` out (a store created after the
    // catalog loaded keeps that snapshot until something changes).
    this.subscribe = this.subscribe.bind(this);
    this.getSnapshot = this.getSnapshot.bind(this);
    this.setEnabled = this.setEnabled.bind(this);
    this.snapshot = this.compute(null);
  }

  compute(prev) {
    let tools = [];
    try {
      tools = this.runtime.listTools(this.threadId);
    } catch {
      // A freed runtime lists nothing.
    }
    if (prev && sameJson(prev.tools, tools)) tools = prev.tools;
    const { toolsReady, toolsError } = this.entry.meta;
    const activeCount = tools.filter((t) => t.enabled && !t.locked).length;
    if (prev && prev.tools === tools && prev.ready === toolsReady && prev.error === toolsError) return prev;
    return { tools, activeCount, ready: toolsReady, error: toolsError, setEnabled: this.setEnabled };
  }

  refresh() {
    const next = this.compute(this.snapshot);
    if (next === this.snapshot) return;
    this.snapshot = next;
    for (const listener of [...this.listeners]) listener();
  }

  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  getSnapshot() {
    return this.snapshot;
  }

  setEnabled(name, enabled) {
    this.runtime.setToolEnabled(this.threadId, name, enabled);
  }
}

function toggleStore(runtime, threadId) {
  const entry = entryFor(runtime);
  const key = threadId === null || threadId === undefined ? "\u0000default" : `t:${threadId}`;
  let store = entry.toggles.get(key);
  if (!store) {
    store = new ToggleStore(runtime, threadId ?? null, entry);
    entry.toggles.set(key, store);
  }
  return store;
}

// ---- components and hooks --------------------------------------------------------------------------

const RuntimeContext = createContext(null);
RuntimeContext.displayName = "ChatRuntimeContext";

/**
 * Creates one ChatRuntime for its subtree. `options` are read once (remount with a new `key` to
 * change them). With `loadTools` (default true) it loads tools.json once. Until the wasm module is
 * ready it renders `fallback` when one is given, else its children (whose hooks report not ready).
 */
export function ChatRuntimeProvider({ options, loadTools = true, wasm, fallback, children }) {
  const holder = useRef(null);
  const [runtime, setRuntime] = useState(null);
  const [initError, setInitError] = useState(null);
  const latest = useRef({ options, loadTools, wasm });
  latest.current = { options, loadTools, wasm };

  useEffect(() => {
    let live = true;
    const h = (holder.current ??= { runtime: null, freeTimer: null });
    // StrictMode's simulated unmount scheduled a free: this is the remount, keep the runtime.
    if (h.freeTimer !== null) {
      clearTimeout(h.freeTimer);
      h.freeTimer = null;
    }
    if (h.runtime) {
      setRuntime(h.runtime);
    } else {
      initChatRuntime(latest.current.wasm).then(
        () => {
          if (!h.runtime) {
            const { options: opts, loadTools: load } = latest.current;
            let rt;
            try {
              rt = new ChatRuntime(opts);
            } catch (error) {
              // Bad options (`options/invalid`, `tools/bad-prefix`): thrown from render, for an error boundary.
              if (live) setInitError(error);
              return;
            }
            h.runtime = rt;
            if (load) {
              const done = (error) => {
                if (h.runtime === rt) setToolsStatus(rt, true, error);
              };
              rt.loadTools().then(() => done(null), done);
            } else {
              setToolsStatus(rt, true, null);
            }
          }
          if (live) setRuntime(h.runtime);
        },
        (error) => {
          if (live) setInitError(error);
        },
      );
    }
    return () => {
      live = false;
      // Deferred so that a StrictMode remount (synchronous) can cancel it.
      h.freeTimer = setTimeout(() => {
        h.freeTimer = null;
        const rt = h.runtime;
        h.runtime = null;
        if (rt) {
          registry.delete(rt);
          try {
            rt.free();
          } catch {
            // Already freed.
          }
        }
      }, 0);
    };
  }, []);

  if (initError) throw initError;
  if (runtime === null && fallback !== undefined) return fallback;
  return createElement(RuntimeContext.Provider, { value: runtime }, children);
}

/** The provider's runtime, or `null` while the wasm module is loading. */
export function useChatRuntime() {
  return useContext(RuntimeContext);
}

const noSubscribe = () => () => {};
const EMPTY_THREAD = Object.freeze({ messages: Object.freeze([]), running: false, error: null, result: null });

function notReady() {
  return Promise.reject(new ChatRuntimeError("react/not-ready", "chat-runtime is not ready yet"));
}

/**
 * One thread: its messages (stable identities), whether a run is going on, the last run's result and
 * error, `run(textOrMessages)` and `abort()`.
 */
export function useThread(threadId) {
  const runtime = useChatRuntime();
  const store = runtime ? threadStore(runtime, threadId) : null;
  const snapshot = useSyncExternalStore(
    store ? store.subscribe : noSubscribe,
    store ? store.getSnapshot : () => EMPTY_THREAD,
    store ? store.getSnapshot : () => EMPTY_THREAD,
  );
  const run = useCallback((input, options) => (store ? store.run(input, options) : notReady()), [store]);
  const abort = useCallback(() => store?.abort(), [store]);
  return {
    messages: snapshot.messages,
    running: snapshot.running,
    error: snapshot.error,
    result: snapshot.result,
    ready: store !== null,
    run,
    abort,
  };
}

const EMPTY_TOGGLES = Object.freeze({
  tools: Object.freeze([]),
  activeCount: 0,
  ready: false,
  error: null,
  setEnabled() {
    throw new ChatRuntimeError("react/not-ready", "chat-runtime is not ready yet");
  },
});

/**
 * The tool selector of a thread (`null`: the default toggles of new threads): the tools, how many
 * frontend tools are on, `setEnabled(name, on)`; re-renders on toggle and catalog changes, including
 * changes made in other tabs.
 */
export function useToolToggles(threadId) {
  const runtime = useChatRuntime();
  const store = runtime ? toggleStore(runtime, threadId ?? null) : null;
  const snapshot = useSyncExternalStore(
    store ? store.subscribe : noSubscribe,
    store ? store.getSnapshot : () => EMPTY_TOGGLES,
    store ? store.getSnapshot : () => EMPTY_TOGGLES,
  );
  return {
    tools: snapshot.tools,
    activeCount: snapshot.activeCount,
    ready: snapshot.ready,
    error: snapshot.error,
    setEnabled: snapshot.setEnabled,
  };
}
