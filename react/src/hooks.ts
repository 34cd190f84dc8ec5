// chat-runtime/react, the hooks: a thread, its tool toggles, its agent state, the runtime, and
// tools defined in components.
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";
import type { ChatRuntime, ChatRuntimeError, FrontendTool, Message, MessageInput, RunResult, ToolEntry } from "./chat_runtime.js";
import { newId, noProvider } from "./errors.js";
import { definitionKey, noSubscribe, slotFor, useHost, useIsomorphicLayoutEffect, useStart, type ToolSlot } from "./provider.js";
import type { Host } from "./host.js";
import type { ThreadInput, ThreadRunOptions, ThreadSnapshot, ThreadStore } from "./thread-store.js";
import type { ToggleSnapshot } from "./toggle-store.js";

export function useChatRuntime(): ChatRuntime | null {
  const host = useHost();
  return useSyncExternalStore(
    host ? host.subscribe : noSubscribe,
    () => host?.runtime ?? null,
    () => host?.runtime ?? null,
  );
}

const noFailure = (): null => null;

/** Why the provider's runtime could not start (`null` while it starts, is there, or was not asked for). */
function useFailure(host: Host | null): ChatRuntimeError | null {
  const read = host ? () => host.getSnapshot().failure : noFailure;
  return useSyncExternalStore(host ? host.subscribe : noSubscribe, read, read);
}

/** What {@link useThread} returns. */
export interface ThreadHandle {
  /**
   * The thread shown: the hook's `threadId`, or for `useThread(null)` the thread its first `run`
   * started (`null` until then). Coder: a new chat's first id until the chat has its own (the
   * runtime's `thread_created`), then the chat's id; also when the app passed the first id back.
   */
  threadId: string | null;
  /**
   * The thread's messages. A message object keeps its identity until it changes, so `React.memo`
   * message components re-render only for the messages that changed.
   */
  messages: readonly Message[];
  /** Whether a run of this thread is going on (also while a `run` waits for the runtime). */
  running: boolean;
  /**
   * The last run's error, one shape: a failed run's `RunResult.error` (`code`, `message`, `status`,
   * `cause`) as a `ChatRuntimeError`, or what `run` rejected with (`run/busy`, ...); or, when the
   * runtime could not start (a `.wasm` answering 404), that failure (`react/start-failed` with the
   * `cause`) until a later start succeeds.
   */
  error: ChatRuntimeError | null;
  /** The last finished run's result. */
  result: RunResult | null;
  /** Whether the runtime exists (the wasm module is loaded). */
  ready: boolean;
  /**
   * Whether the hook was given a `history` that is still `undefined` (the app's query loads it):
   * a message sent now would go before the thread's history is in, so Send waits for it.
   */
  loading: boolean;
  /**
   * Sends a run (a string becomes one user message); resolves with the run's result. Before the
   * runtime exists it starts it and waits (also for tools.json). Stable across renders.
   */
  run(input: ThreadInput, options?: ThreadRunOptions): Promise<RunResult>;
  /** Stops the thread's run (`status: "aborted"`), also one still waiting for the runtime. Stable across renders. */
  abort(): void;
  /**
   * Whether the thread runs and its stream showed no life (no byte: no event, not even a
   * `STATE_DELTA`, `STEP_*` or keep-alive comment) for `stalledAfter` ms (the option); always
   * `false` without that option. Flips back at the next sign of life. Stream silence only: the
   * clock pauses while the thread waits on the page (one of its browser tools runs, e.g. an
   * approval card waiting for a person, a `timeoutMs: null` tool, a permission prompt) and starts
   * again when the tool ends; a run that ends on an interrupt is not running.
   */
  stalled: boolean;
}

/** Options of {@link useThread}. */
export interface UseThreadOptions {
  /**
   * After how many ms without a sign of life of a running thread's stream `stalled` becomes true
   * (the runtime's `activity` events, at most one per frame). Default: never.
   */
  stalledAfter?: number;
  /**
   * The thread's history as the app has it (its server's GET, e.g. from react-query), given to
   * the runtime (`setMessages`) once it is there, when the runtime has no message of the thread
   * and no run of it was started from this page (`undefined` while it loads; `null`, as a query
   * answering "no such thread yet" gives it, is an empty history). A server that keeps its threads
   * (`history: "new"`) then gets only new messages from the next run.
   */
  history?: readonly MessageInput[] | null | undefined;
  /**
   * Tool calls of the history's last assistant message that have no result (a reload while a
   * browser tool ran): `"settle"` (the default) lets the next run answer them `INTERRUPTED`;
   * `"run"` runs them as soon as the history is in (a run with `pending: "run"`, whose results go
   * to the agent).
   */
  pending?: "settle" | "run";
}

const EMPTY_THREAD: ThreadSnapshot = Object.freeze({
  threadId: null,
  messages: Object.freeze([]) as readonly Message[],
  running: false,
  error: null,
  result: null,
  ready: false,
});
const emptyThread = (): ThreadSnapshot => EMPTY_THREAD;

/**
 * One thread of the provider's runtime. `threadId: null` is a new chat: no messages until its first
 * `run`, which starts a thread (`options.threadId`, else a random UUID); from then on the handle
 * shows that thread (`threadId` in the result). Pass the id back (router, app state) or keep
 * passing `null`: both show the same thread; a change from an id to `null` is a new chat again.
 *
 * On a Coder runtime (`runtime.backend === "coder"`) that first id is not a chat's: the first run
 * is sent with `newChat: true` and creates the chat, and when it has its id (`thread_created`) the
 * handle's store reads the chat's (no remount, the messages stay): `threadId` is then the chat's,
 * and later runs post to the chat. The first id, passed back, still leads to the chat.
 */
export function useThread(threadId: string | null, options: UseThreadOptions = {}): ThreadHandle {
  const { stalledAfter, history, pending = "settle" } = options;
  const host = useHost();
  // The thread a new chat started (threadId null); forgotten once the app passes an id.
  const [own, setOwn] = useState<string | null>(null);
  const ownRef = useRef<string | null>(null);
  if (threadId !== null && own !== null) setOwn(null);
  const shown = threadId ?? own;
  const store = host && shown !== null ? host.thread(shown) : null;
  const snapshot = useSyncExternalStore(
    store ? store.subscribe : noSubscribe,
    store ? store.getSnapshot : emptyThread,
    store ? store.getSnapshot : emptyThread,
  );
  // The thread the store reads: `shown`, or once a Coder chat was created for a new chat's first
  // id, the chat's. The hook takes it as its own (no remount: the store is the same object).
  const current = store ? snapshot.threadId : shown;
  if (threadId === null && own !== null && current !== own) setOwn(current);
  const hostReady = useSyncExternalStore(
    host ? host.subscribe : noSubscribe,
    () => host?.runtime != null,
    () => host?.runtime != null,
  );
  const failure = useFailure(host);
  useStart(host);
  useEffect(() => {
    if (threadId !== null) ownRef.current = null;
    else if (ownRef.current !== null && current !== null) ownRef.current = current;
  }, [threadId, current]);
  // The history goes in once the runtime is there (an effect: StrictMode's second run finds the
  // thread's messages in the runtime and does nothing).
  useEffect(() => {
    if (store !== null && hostReady && history != null) store.seed(history, pending);
  }, [store, hostReady, history, pending]);
  const stalled = useStalled(store, snapshot.running, stalledAfter);

  const run = useCallback(
    (input: ThreadInput, options?: ThreadRunOptions): Promise<RunResult> => {
      if (host === null) return Promise.reject(noProvider());
      const target = threadId ?? ownRef.current;
      if (target !== null) return host.thread(target).run(input, options);
      // A new chat: on a Coder runtime this id is not a chat's, and the run creates the chat.
      const first = options?.threadId ?? newId();
      ownRef.current = first;
      setOwn(first);
      return host.startChat(first).run(input, options);
    },
    [host, threadId],
  );
  const abort = useCallback((): void => {
    const target = threadId ?? ownRef.current;
    if (host !== null && target !== null) host.thread(target).abort();
  }, [host, threadId]);

  return {
    threadId: current,
    messages: snapshot.messages,
    running: snapshot.running,
    error: snapshot.error ?? failure,
    result: snapshot.result,
    ready: store ? snapshot.ready : hostReady,
    loading: "history" in options && history === undefined,
    run,
    abort,
    stalled,
  };
}

/**
 * `true` while `running` and the store saw no sign of life for `after` ms. One timer per silent
 * period; an `activity` event re-renders nothing unless it ends a stall.
 */
function useStalled(store: ThreadStore | null, running: boolean, after: number | undefined): boolean {
  const [stalled, setStalled] = useState(false);
  useEffect(() => {
    if (store === null || !running || after === undefined) {
      setStalled(false);
      return undefined;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = (): void => {
      const silent = Date.now() - store.lastActivityAt;
      timer = undefined;
      if (store.toolsRunning > 0) {
        // The thread waits on the page (a browser tool, a person deciding): the clock is paused
        // until the tool's end, which counts as life.
        setStalled(false);
      } else if (silent >= after) {
        setStalled(true);
      } else {
        setStalled(false);
        timer = setTimeout(check, after - silent);
      }
    };
    check();
    const off = store.onActivity(() => {
      if (timer === undefined || store.toolsRunning > 0) {
        clearTimeout(timer);
        check();
      }
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, [store, running, after]);
  return stalled;
}

/** What {@link useToolToggles} returns. */
export interface ToolToggles {
  /** The tool selector's rows: frontend tools (toggleable) and backend tools (`locked`). */
  tools: readonly ToolEntry[];
  /** How many frontend tools are on in this thread. */
  activeCount: number;
  /** Whether the catalog is loaded (`loadTools` settled, or the provider was told not to load). */
  ready: boolean;
  /** Why `loadTools` failed (`tools/fetch` with `status` and `cause`, `tools/not-json`, ...). */
  error: ChatRuntimeError | null;
  /**
   * Turns a frontend tool on or off in this thread (throws `tools/locked` for backend tools,
   * `react/not-ready` before the runtime exists). Stable for a thread.
   */
  setEnabled(name: string, enabled: boolean): void;
}

const EMPTY_TOGGLES: ToggleSnapshot = Object.freeze({
  tools: Object.freeze([]) as readonly ToolEntry[],
  activeCount: 0,
  ready: false,
  error: null,
});
const emptyToggles = (): ToggleSnapshot => EMPTY_TOGGLES;
const setEnabledWithoutProvider = (): void => {
  throw noProvider();
};

/**
 * The tool toggles of a thread (`null`: a new chat, i.e. the defaults `chat:tools:default`, which a
 * thread starts from at its first run). Re-renders on `toggles_changed` and `tools_changed`,
 * including toggles changed in other tabs.
 */
export function useToolToggles(threadId: string | null): ToolToggles {
  const host = useHost();
  const store = host ? host.toggles(threadId) : null;
  const snapshot = useSyncExternalStore(
    store ? store.subscribe : noSubscribe,
    store ? store.getSnapshot : emptyToggles,
    store ? store.getSnapshot : emptyToggles,
  );
  const failure = useFailure(host);
  useStart(host);
  return {
    tools: snapshot.tools,
    activeCount: snapshot.activeCount,
    ready: snapshot.ready,
    error: snapshot.error ?? failure,
    setEnabled: store ? store.setEnabled : setEnabledWithoutProvider,
  };
}

const noState = (): unknown => undefined;

/**
 * The thread's AG-UI state (`STATE_SNAPSHOT` / `STATE_DELTA`, or a run request's `state`):
 * `undefined` for a thread without one (and for `null`). Re-renders on the runtime's `state` events;
 * a state equal to the previous one keeps the previous object.
 */
export function useAgentState(threadId: string | null): unknown {
  const host = useHost();
  const store = host && threadId !== null ? host.state(threadId) : null;
  const state = useSyncExternalStore(
    store ? store.subscribe : noSubscribe,
    store ? store.getSnapshot : noState,
    store ? store.getSnapshot : noState,
  );
  useStart(host);
  return state;
}

/**
 * Registers a frontend tool while the component is mounted (as soon as the runtime exists; it does
 * not start the runtime itself) and unregisters it on unmount. The runtime calls the LATEST
 * `handler` given, so the handler sees the component's current props and state. A change of
 * `name`, `description`, `parameters`, `followUp`, `timeoutMs` or `defaultEnabled` registers the
 * tool again; a new handler does not. Like CopilotKit's `useFrontendTool`.
 */
export function useFrontendTool<Args = Record<string, unknown>, Result = unknown>(
  tool: FrontendTool<Args, Result>,
): void {
  const host = useHost();
  const slot = useRef<ToolSlot | null>(null);
  const key = definitionKey(tool as FrontendTool<any, unknown>);
  useIsomorphicLayoutEffect(() => {
    if (slot.current) slot.current.latest = tool as FrontendTool<any, unknown>;
  });
  useEffect(() => {
    if (host === null) return undefined;
    const current = slotFor(tool as FrontendTool<any, unknown>);
    slot.current = current;
    host.claim(current.latest.name, current.claim);
    return () => host.release(current.latest.name, current.claim);
    // `key` stands for the definition; the handler is read through the slot.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [host, key]);
}
