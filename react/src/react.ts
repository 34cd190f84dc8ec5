// chat-runtime/react: React bindings for ChatRuntime (React >= 18, an optional peer dependency).
// Compiled by `tsc -p react` into pkg/react.js + pkg/react.d.ts (scripts/merge-package.mjs).
//
// Design:
// - The wasm module is initialised once per page (one module-level promise), whatever the number
//   of providers and however often StrictMode mounts them.
// - A provider owns one `Host`, created in a ref (no side effect in render). The host starts
//   lazily: the first hook that needs the runtime (`useThread`, `useToolToggles`, `useAgentState`,
//   from an effect) or the first `run` initialises the wasm, creates the runtime (or takes the
//   app's), subscribes with an explicit `events` list (never `agui`), registers the code-defined
//   tools and loads tools.json. A provider with `fallback` or `runtime` starts at mount.
// - Teardown is deferred by a task, so StrictMode's simulated unmount/remount keeps everything;
//   a real unmount unsubscribes, unregisters the tools it registered and frees a runtime it made.
// - State lives in external stores (one per thread, per toggle key, per thread's agent state) read
//   with useSyncExternalStore. A store nothing reads any more is dropped a task later (so a
//   StrictMode remount finds it again); the runtime keeps the data, a new store reads it back.
//   A thread whose hooks were given a `history` is the app's to seed again: the runtime forgets
//   it (`forgetThread`, once it is not running) when its store goes.
// - Effects only subscribe and register: nothing in an effect executes a tool, and the one run an
//   effect may send (`useThread`'s `history` with `pending: "run"`) goes out only while the runtime
//   has no message of the thread, so double-invoked effects never double-send.
// - Messages keep their object identity while they do not change (`applyMessages`), so React.memo
//   message rows render only for the message that streams.
// - Coder (`runtime.backend`): a thread is a chat whose id the server makes. `useThread(null)`'s
//   first run goes by an id of the hook's with `newChat`; at `thread_created` the stores of that id
//   move to the chat's (`Host.chatCreated`): the same objects, so readers keep their subscriptions,
//   and the old id stays an alias of the new one for whoever still holds it.
import {
  createContext,
  createElement,
  useCallback,
  useContext,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  useSyncExternalStore,
  type ReactNode,
} from "react";
import init, {
  ChatRuntime,
  ChatRuntimeError,
  type ChatRuntimeOptions,
  type FrontendTool,
  type InitInput,
  type Message,
  type MessageInput,
  type RunOptions,
  type RunRequest,
  type RunError,
  type RunResult,
  type RuntimeEventOf,
  type ToolEntry,
  type ToolHandler,
} from "./chat_runtime.js";
import { indexMessages, mergeMessages, reconcileMessages, sameValue, type HasId } from "./apply-messages.js";
import { writeMessages, type SyncMessages } from "./sync-messages.js";

export { applyMessages, type HasId } from "./apply-messages.js";
export { toAguiV0Message, type AguiV0ContentPart, type AguiV0Message } from "./agui-v0.js";
export { syncMessages, type MessagesUpdate, type SyncMessages } from "./sync-messages.js";

// ---- the events the adapter listens to --------------------------------------------------------------

/**
 * Never `agui` (one JS object per streamed token): the hooks render from these. `thread_created`:
 * a Coder chat got its id, and the stores of the id its first run went by become the chat's.
 */
const EVENTS = ["activity", "messages", "round_started", "run_finished", "state", "thread_created", "toggles_changed", "tools_changed"] as const;
type AdapterEvent = RuntimeEventOf<(typeof EVENTS)[number]>;

// ---- wasm initialisation, once per page ---------------------------------------------------------

let initPromise: Promise<void> | null = null;

/**
 * Initialises the wasm module once per page; later calls return the same promise. `input` is what
 * wasm-pack's `init` takes (a URL, a Response, bytes or a WebAssembly.Module), used by the first
 * call. Providers call it when they start; call it yourself to preload the wasm (e.g. when the
 * user opens the chat menu) so that the first hook finds it ready.
 */
export function initChatRuntime(input?: InitInput | Promise<InitInput>): Promise<void> {
  if (initPromise === null) {
    const promise = (input === undefined ? init() : init({ module_or_path: input })).then(() => undefined);
    initPromise = promise;
    // A failed init may be retried (e.g. the wasm URL was wrong and the app fixes it).
    promise.catch(() => {
      if (initPromise === promise) initPromise = null;
    });
  }
  return initPromise;
}

// ---- errors ----------------------------------------------------------------------------------------

/** Whether `runtime` runs the thread; a freed runtime (its methods throw `runtime/freed`) runs none. */
function isRunning(runtime: ChatRuntime | null | undefined, threadId: string): boolean {
  try {
    return runtime?.isRunning(threadId) ?? false;
  } catch {
    return false;
  }
}

/** A failed run's error: the runtime hands it over as the one error shape, a `ChatRuntimeError`. */
function runError(error: RunError): ChatRuntimeError {
  return error;
}

/** Anything thrown, as a `ChatRuntimeError` (itself when it is one; else `code` with `cause`). */
function asError(thrown: unknown, code: string): ChatRuntimeError {
  if (thrown instanceof ChatRuntimeError) return thrown;
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return new ChatRuntimeError(code, message, { cause: thrown });
}

function notReady(): ChatRuntimeError {
  return new ChatRuntimeError("react/not-ready", "chat-runtime is not ready yet (the runtime is starting)");
}

function noProvider(): ChatRuntimeError {
  return new ChatRuntimeError("react/no-provider", "chat-runtime/react hooks need a <ChatRuntimeProvider> above them");
}

function newId(): string {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === "function") return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}-${Math.random().toString(36).slice(2, 10)}`;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Nobody may be waiting: a rejection is not "unhandled".
  promise.catch(() => {});
  return { promise, resolve, reject };
}

// ---- external stores -------------------------------------------------------------------------------

/**
 * One external store for useSyncExternalStore: a snapshot, listeners, and its place in the host's
 * map (`key`). With no listener left it is dropped from the map a task later, unless it is busy or
 * was read again; a dropped store that is subscribed again goes back into the map.
 */
abstract class Store<S> {
  protected readonly listeners = new Set<() => void>();
  protected abstract snapshot: S;

  constructor(
    protected readonly host: Host,
    private readonly map: Map<string, Store<S>>,
    private key: string,
  ) {}

  /**
   * The store answers under `key` from now on (a Coder chat got its id), keeping its snapshot and
   * its listeners. `false`, and nothing moves, when another store holds `key` already.
   */
  protected move(key: string): boolean {
    const occupant = this.map.get(key);
    if (occupant !== undefined && occupant !== this) return false;
    if (this.map.get(this.key) === this) this.map.delete(this.key);
    this.map.set(key, this);
    this.key = key;
    return true;
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    const current = this.map.get(this.key);
    if (current === undefined) {
      // Dropped while a render held it (a render that committed late): back in, and up to date.
      this.map.set(this.key, this);
      this.refresh();
    } else if (current !== this) {
      // Another store took the key meanwhile: re-render, the hook then reads that one.
      queueMicrotask(listener);
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) setTimeout(() => this.dropIfUnread(), 0);
    };
  };

  readonly getSnapshot = (): S => this.snapshot;

  protected dropIfUnread(): void {
    if (this.listeners.size === 0 && !this.busy() && this.map.get(this.key) === this) {
      this.map.delete(this.key);
      this.dropped();
    }
  }

  /** The store left the host's map: nothing reads it any more. */
  protected dropped(): void {}

  /** Whether the store must stay although nothing reads it (a run it started is going on). */
  protected busy(): boolean {
    return false;
  }

  /** Reads its data from the runtime again (the runtime appeared, or the store was away). */
  abstract refresh(): void;

  protected emit(next: S): void {
    if (Object.is(next, this.snapshot)) return;
    this.snapshot = next;
    for (const listener of [...this.listeners]) listener();
  }
}

interface ThreadSnapshot {
  /** The thread the store reads: its key, until a Coder chat created for it gives it the chat's. */
  threadId: string | null;
  messages: readonly Message[];
  running: boolean;
  error: ChatRuntimeError | null;
  result: RunResult | null;
  ready: boolean;
}

/** What `run` of {@link useThread} takes: a user's text, messages, or a request without `threadId`. */
export type ThreadInput = string | NonNullable<RunRequest["messages"]> | Omit<RunRequest, "threadId">;

/** Options of `run` of {@link useThread}. */
export interface ThreadRunOptions extends RunOptions {
  /**
   * For a new chat (`useThread(null)` before its first run): the id of the thread to start;
   * default `crypto.randomUUID()`. Ignored when the handle already shows a thread. On a Coder
   * runtime it is the id the run goes by until the chat it creates has its own (the handle's
   * `threadId` then becomes the chat's).
   */
  threadId?: string;
}

/** Whether the last assistant message has tool calls that no later tool message answers. */
function unansweredCalls(messages: readonly Message[]): boolean {
  let at = messages.length - 1;
  while (at >= 0 && messages[at]?.role !== "assistant") at--;
  const last = messages[at];
  if (last === undefined || last.role !== "assistant" || !last.toolCalls?.length) return false;
  const answered = new Set(messages.slice(at + 1).flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])));
  return last.toolCalls.some((call) => !answered.has(call.id));
}

class ThreadStore extends Store<ThreadSnapshot> {
  protected snapshot: ThreadSnapshot;
  private index: Map<string, number>;
  /** Runs started through this store that have not settled. */
  private pending = 0;
  /** Runs waiting for the runtime: `abort()` aborts them (the runtime ends them `aborted`). */
  private readonly waiting = new Set<AbortController>();
  /**
   * `Date.now()` when the thread's stream last showed life (a run started, a round, an `activity`
   * event): outside the snapshot, so a stream's activity re-renders nothing by itself.
   */
  lastActivityAt = 0;
  /** Called on each `activity` (and round start): the hooks that wait for a stalled stream. */
  private readonly pulses = new Set<() => void>();
  /** Whether this store gave the thread a history (`useThread`'s `history`): at most once. */
  private seeded = false;
  /**
   * Whether a hook gave the thread a `history`: the app keeps the thread and can seed it again, so
   * the runtime forgets it once no hook reads it ({@link Host.forget}).
   */
  private owned = false;
  /**
   * Whether the id is a new chat's first one (`useThread(null)`'s first run): on a Coder runtime
   * its runs are sent with `newChat` (the runtime creates the chat) until `thread_created` gives
   * the store the chat's id. A run that failed before the chat existed leaves it set, so the next
   * one creates the chat; on AG-UI the id is the thread's, and the first send clears it.
   */
  startsChat = false;

  constructor(host: Host, map: Map<string, ThreadStore>, public threadId: string) {
    super(host, map as Map<string, Store<ThreadSnapshot>>, threadId);
    const runtime = host.runtime;
    const messages = runtime ? this.read(runtime) : [];
    this.index = indexMessages(messages);
    this.snapshot = {
      threadId,
      messages,
      running: isRunning(runtime, threadId),
      error: null,
      result: null,
      ready: runtime !== null,
    };
  }

  protected override busy(): boolean {
    return this.pending > 0;
  }

  private read(runtime: ChatRuntime): readonly Message[] {
    try {
      return runtime.messages(this.threadId);
    } catch {
      // A freed runtime has no threads.
      return [];
    }
  }

  private set(patch: Partial<ThreadSnapshot>): void {
    const prev = this.snapshot;
    const next = { ...prev, ...patch };
    if (
      next.threadId === prev.threadId &&
      next.messages === prev.messages &&
      next.running === prev.running &&
      next.error === prev.error &&
      next.result === prev.result &&
      next.ready === prev.ready
    ) {
      return;
    }
    this.emit(next);
  }

  /** The whole thread (after a run: a `MESSAGES_SNAPSHOT` may have removed messages). */
  private resync(full: readonly Message[]): readonly Message[] {
    const messages = reconcileMessages(this.snapshot.messages, full);
    if (messages !== this.snapshot.messages) this.index = indexMessages(messages);
    return messages;
  }

  refresh(): void {
    const runtime = this.host.runtime;
    if (runtime === null) {
      this.set({ ready: false, running: this.pending > 0 && this.snapshot.running });
      return;
    }
    const running = isRunning(runtime, this.threadId) || (this.pending > 0 && this.snapshot.running);
    this.set({ ready: true, running, messages: this.resync(this.read(runtime)) });
  }

  /** Calls `listener` on each sign of life of the thread's stream; returns the unsubscribe. */
  readonly onActivity = (listener: () => void): (() => void) => {
    this.pulses.add(listener);
    return () => this.pulses.delete(listener);
  };

  private pulse(at: number): void {
    this.lastActivityAt = Math.max(this.lastActivityAt, at);
    for (const listener of [...this.pulses]) listener();
  }

  /**
   * Gives the runtime the thread's history (`useThread`'s `history`) once: only when the runtime
   * has no message of the thread and no run of it was started here (a run's own messages are not
   * loaded back from the app's copy). With `pending: "run"`, calls of its last assistant message
   * that have no result then run (`run({ messages: [], pending: "run" })`); by default the next
   * run settles them `INTERRUPTED`.
   */
  seed(history: readonly MessageInput[], pending: "settle" | "run"): void {
    this.owned = true;
    const runtime = this.host.runtime;
    if (runtime === null || this.seeded || this.pending > 0 || history.length === 0) return;
    try {
      if (runtime.isRunning(this.threadId) || runtime.messages(this.threadId).length > 0) return;
      this.seeded = true;
      runtime.setMessages(this.threadId, history);
    } catch (error) {
      this.set({ error: asError(error, "react/history") });
      return;
    }
    this.refresh();
    if (pending === "run" && unansweredCalls(this.snapshot.messages)) {
      this.run({ messages: [], pending: "run" }).catch(() => {
        // Shown through `error`.
      });
    }
  }

  protected override dropped(): void {
    if (this.owned) this.host.forget(this);
  }

  /** The runtime forgot the thread: a later `useThread(id, { history })` seeds it again. */
  forgotten(): void {
    this.seeded = false;
  }

  /**
   * The Coder chat created for this store's id has `chatId`: the store is the chat's from now on
   * (its messages are the chat's: the runtime moved them, and its later events name the chat), and
   * its readers re-render with the new `threadId`. Another store of `chatId` (a hook that named
   * the chat first) wins: this one's readers are sent there.
   */
  rename(chatId: string): void {
    if (!this.move(chatId)) {
      // An equal but new snapshot: the readers render again and look the store up again (the
      // host's alias leads them to the chat's).
      this.emit({ ...this.snapshot });
      return;
    }
    this.threadId = chatId;
    this.startsChat = false;
    this.set({ threadId: chatId });
  }

  handle(event: AdapterEvent): void {
    if (event.type === "activity") {
      this.pulse(event.at);
    } else if (event.type === "messages") {
      const messages = mergeMessages(this.snapshot.messages, event.messages, this.index);
      if (messages !== this.snapshot.messages) this.set({ messages });
    } else if (event.type === "round_started") {
      this.pulse(Date.now());
      if (!this.snapshot.running) this.set({ running: true });
    } else if (event.type === "run_finished") {
      const patch: Partial<ThreadSnapshot> = { running: false };
      // A run this store did not start (the app called `runtime.run`): its messages are read back
      // and its error shows too. Our own runs do both from the result (which carries the `cause`).
      const runtime = this.host.runtime;
      if (this.pending === 0) {
        if (runtime) patch.messages = this.resync(this.read(runtime));
        patch.error = event.error ? runError(event.error) : null;
      }
      this.set(patch);
    }
  }

  readonly run = (input: ThreadInput, options?: ThreadRunOptions): Promise<RunResult> => {
    let request: RunRequest;
    if (typeof input === "string") {
      request = { threadId: this.threadId, messages: [{ id: newId(), role: "user", content: input }] };
    } else if (Array.isArray(input)) {
      request = { threadId: this.threadId, messages: input };
    } else {
      request = { ...(input as Omit<RunRequest, "threadId">), threadId: this.threadId };
    }
    const runOptions: RunOptions = {};
    if (options?.signal !== undefined) runOptions.signal = options.signal;

    this.pending++;
    this.seeded = true;
    this.pulse(Date.now());
    if (!this.snapshot.running) this.set({ running: true, error: null });
    else if (this.snapshot.error !== null) this.set({ error: null });

    let started: Promise<RunResult>;
    const runtime = this.host.runtime;
    if (runtime !== null && this.host.catalogSettled) {
      started = this.send(runtime, request, runOptions);
    } else {
      // Before the runtime exists (or while tools.json loads): wait, then send. `abort()` meanwhile
      // aborts the signal it will be sent with, so the runtime ends the run `aborted` at once.
      const controller = new AbortController();
      const signal = runOptions.signal;
      if (signal) {
        if (signal.aborted) controller.abort(signal.reason);
        else signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
      }
      this.waiting.add(controller);
      started = this.host.ready().then(
        (rt) => {
          this.waiting.delete(controller);
          return this.send(rt, request, { ...runOptions, signal: controller.signal });
        },
        (error: unknown) => {
          this.waiting.delete(controller);
          throw asError(error, "react/start-failed");
        },
      );
    }
    return started.then(
      (result) => {
        this.pending--;
        this.dropIfIdle();
        const running = isRunning(this.host.runtime, this.threadId);
        this.set({
          running,
          result,
          error: result.error ? runError(result.error) : null,
          messages: this.resync(result.messages),
        });
        return result;
      },
      (thrown: unknown) => {
        this.pending--;
        this.dropIfIdle();
        const error = asError(thrown, "react/run-failed");
        // `run/busy`: another run of this thread is going on; it keeps `running`.
        const running = isRunning(this.host.runtime, this.threadId);
        this.set({ running, error });
        throw error;
      },
    );
  };

  /** A run of this store settled: with no hook reading it, the store goes a task later. */
  private dropIfIdle(): void {
    if (this.pending === 0 && this.listeners.size === 0) setTimeout(() => this.dropIfUnread(), 0);
  }

  private send(runtime: ChatRuntime, request: RunRequest, options: RunOptions): Promise<RunResult> {
    // The id now: a run that waited for the runtime goes to the chat a run before it created.
    request = { ...request, threadId: this.threadId };
    if (this.startsChat) {
      // Known only now: the runtime may not have existed when `run` was called.
      if (runtime.backend === "coder") request.newChat = true;
      else this.startsChat = false;
    }
    try {
      return runtime.run(request, options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  readonly abort = (): void => {
    for (const controller of this.waiting) controller.abort(new ChatRuntimeError("run/aborted", "the run was stopped"));
    try {
      this.host.runtime?.abort(this.threadId);
    } catch {
      // A freed runtime runs nothing (its runs ended `aborted` when it was freed).
    }
  };
}

interface ToggleSnapshot {
  tools: readonly ToolEntry[];
  activeCount: number;
  ready: boolean;
  error: ChatRuntimeError | null;
}

class ToggleStore extends Store<ToggleSnapshot> {
  protected snapshot: ToggleSnapshot;

  constructor(host: Host, map: Map<string, ToggleStore>, key: string, public threadId: string | null) {
    super(host, map as Map<string, Store<ToggleSnapshot>>, key);
    this.snapshot = this.compute(null);
  }

  /** A Coder chat was created for this thread's id: the chat's toggles (it adopted these). */
  rename(chatId: string): void {
    if (!this.move(chatId)) return this.emit({ ...this.snapshot });
    this.threadId = chatId;
    this.refresh();
  }

  private compute(prev: ToggleSnapshot | null): ToggleSnapshot {
    const runtime = this.host.runtime;
    let tools: readonly ToolEntry[] = [];
    if (runtime) {
      try {
        tools = runtime.listTools(this.threadId);
      } catch {
        // A freed runtime lists nothing.
      }
    }
    if (prev && sameValue(prev.tools, tools)) tools = prev.tools;
    const ready = runtime !== null && this.host.catalogSettled;
    const error = this.host.toolsError;
    if (prev && prev.tools === tools && prev.ready === ready && prev.error === error) return prev;
    const activeCount = tools.filter((t) => t.enabled && !t.locked).length;
    return { tools, activeCount, ready, error };
  }

  refresh(): void {
    this.emit(this.compute(this.snapshot));
  }

  // An arrow property: bound when the store is made, before any snapshot hands it out.
  readonly setEnabled = (name: string, enabled: boolean): void => {
    const runtime = this.host.runtime;
    if (runtime === null) throw notReady();
    runtime.setToolEnabled(this.threadId, name, enabled);
  };
}

class StateStore extends Store<unknown> {
  protected snapshot: unknown;

  constructor(host: Host, map: Map<string, StateStore>, public threadId: string) {
    super(host, map as Map<string, Store<unknown>>, threadId);
    this.snapshot = this.read();
  }

  /**
   * A Coder chat was created for this thread's id: the store reads the chat's. (A chat has no
   * AG-UI state: nothing to send readers elsewhere when another store has the chat's id.)
   */
  rename(chatId: string): void {
    if (!this.move(chatId)) return;
    this.threadId = chatId;
    this.refresh();
  }

  private read(): unknown {
    const runtime = this.host.runtime;
    if (runtime === null) return undefined;
    try {
      return runtime.state(this.threadId);
    } catch {
      return undefined;
    }
  }

  /** A new state: kept out when equal to the current one, so readers do not re-render. */
  set(state: unknown): void {
    if (!sameValue(state, this.snapshot)) this.emit(state);
  }

  refresh(): void {
    this.set(this.read());
  }
}

// ---- the host: one per provider ---------------------------------------------------------------------

/** A tool a provider's `tools` or a `useFrontendTool` holds; the last claim of a name is registered. */
interface Claim {
  definition: FrontendTool<any, unknown>;
  /** The handler the runtime gets: calls the claim's latest handler. */
  call: ToolHandler<any, unknown>;
}

interface HostSnapshot {
  runtime: ChatRuntime | null;
  /** What the provider throws from render (bad options, a wasm that cannot load, a bad tool). */
  failure: ChatRuntimeError | null;
  /** Whether the runtime was asked for (`start`) and is not there yet, or there. */
  loading: boolean;
}

interface HostConfig {
  load: "mount" | "demand";
  options?: ChatRuntimeOptions | undefined;
  runtime?: ChatRuntime | undefined;
  loadTools: boolean;
  wasm?: InitInput | Promise<InitInput> | undefined;
}

class Host {
  readonly threads = new Map<string, ThreadStore>();
  readonly toggleStores = new Map<string, ToggleStore>();
  readonly states = new Map<string, StateStore>();
  private readonly listeners = new Set<() => void>();
  private snapshot: HostSnapshot;
  /** Bumped by every teardown: a start of an older generation finds itself stale. */
  private generation = 0;
  private started = false;
  private gate: Deferred<ChatRuntime> = deferred();
  private unsubscribe: (() => void) | null = null;
  /** Whether tools.json is loaded (or failed, or is not to be loaded) for the current runtime. */
  catalogSettled = false;
  toolsError: ChatRuntimeError | null = null;
  private teardownTimer: ReturnType<typeof setTimeout> | null = null;
  /** The provider's `syncMessages` of the latest commit: each `messages` event is written there. */
  syncMessages: SyncMessages<HasId> | undefined = undefined;
  /** Tools released while the teardown was pending: synced if the provider is mounted again. */
  private readonly deferredSync = new Set<string>();
  private readonly claims = new Map<string, Claim[]>();
  /** What this host registered in the runtime, by name. */
  private readonly registered = new Map<string, Claim>();
  /** Threads to forget at their `run_finished`: no hook reads them, and they were running. */
  private readonly forgetting = new Map<string, ThreadStore>();
  /**
   * The id a new Coder chat's first run went by -> the chat's id (`thread_created`): a hook or an
   * app still holding the first (it was the handle's `threadId` until then) reaches the chat. One
   * pair per chat created from this provider.
   */
  private readonly aliases = new Map<string, string>();

  constructor(public config: HostConfig) {
    // An app's runtime is there from the first render (reading it has no side effect); the host
    // subscribes and registers when it starts (an effect).
    this.snapshot = { runtime: config.runtime ?? null, failure: null, loading: false };
  }

  get runtime(): ChatRuntime | null {
    return this.snapshot.runtime;
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): HostSnapshot => this.snapshot;

  private setSnapshot(patch: Partial<HostSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...patch };
    for (const listener of [...this.listeners]) listener();
  }

  thread(threadId: string): ThreadStore {
    threadId = this.aliases.get(threadId) ?? threadId;
    let store = this.threads.get(threadId);
    if (!store) {
      store = new ThreadStore(this, this.threads, threadId);
      this.threads.set(threadId, store);
    }
    return store;
  }

  toggles(threadId: string | null): ToggleStore {
    if (threadId !== null) threadId = this.aliases.get(threadId) ?? threadId;
    // Thread ids never hold U+10FFFF (README, "Thread ids"): no thread's key is the default's.
    const key = threadId === null ? "\u{10FFFF}default" : threadId;
    let store = this.toggleStores.get(key);
    if (!store) {
      store = new ToggleStore(this, this.toggleStores, key, threadId);
      this.toggleStores.set(key, store);
    }
    return store;
  }

  state(threadId: string): StateStore {
    threadId = this.aliases.get(threadId) ?? threadId;
    let store = this.states.get(threadId);
    if (!store) {
      store = new StateStore(this, this.states, threadId);
      this.states.set(threadId, store);
    }
    return store;
  }

  /**
   * The store of a new chat's first run (`useThread(null)`): on a Coder runtime the id is the one
   * the run goes by until its chat is created. An id used so before (an app's fixed
   * `options.threadId`) is a new chat again, not the chat it led to.
   */
  startChat(threadId: string): ThreadStore {
    this.aliases.delete(threadId);
    const store = this.thread(threadId);
    store.startsChat = true;
    return store;
  }

  /** Starts the runtime once (no-op when it is starting or there). Never rejects. */
  start(): void {
    if (this.started) return;
    this.started = true;
    if (!this.snapshot.loading) this.setSnapshot({ loading: true });
    const generation = this.generation;
    const { runtime: external, options, wasm } = this.config;
    const created: Promise<ChatRuntime> = external
      ? Promise.resolve(external)
      : initChatRuntime(wasm).then(() => new ChatRuntime(options as ChatRuntimeOptions));
    created.then(
      (runtime) => {
        if (generation !== this.generation) {
          // The provider went away while the wasm loaded.
          if (!external) runtime.free();
          return;
        }
        this.attach(runtime);
      },
      (error: unknown) => {
        if (generation !== this.generation) return;
        const failure = asError(error, "react/start-failed");
        this.gate.reject(failure);
        this.setSnapshot({ failure });
      },
    );
  }

  /** Starts the runtime and resolves with it once tools.json settled (when the provider loads it). */
  ready(): Promise<ChatRuntime> {
    this.start();
    return this.gate.promise;
  }

  private attach(runtime: ChatRuntime): void {
    const generation = this.generation;
    this.unsubscribe = runtime.subscribe((event) => this.dispatch(event), { events: EVENTS });
    this.snapshot = { ...this.snapshot, runtime };
    for (const name of this.claims.keys()) this.sync(name);
    for (const store of this.allStores()) store.refresh();
    for (const listener of [...this.listeners]) listener();
    const settle = (error: ChatRuntimeError | null): void => {
      if (generation !== this.generation) return;
      this.catalogSettled = true;
      this.toolsError = error;
      for (const store of this.toggleStores.values()) store.refresh();
      this.gate.resolve(runtime);
    };
    if (this.config.loadTools) {
      runtime.loadTools().then(
        () => settle(null),
        (error: unknown) => settle(asError(error, "tools/fetch")),
      );
    } else {
      settle(null);
    }
  }

  private *allStores(): Iterable<Store<unknown>> {
    yield* this.threads.values();
    yield* this.toggleStores.values();
    yield* this.states.values();
  }

  private dispatch(event: AdapterEvent): void {
    switch (event.type) {
      case "messages":
        this.threads.get(event.threadId)?.handle(event);
        if (this.syncMessages) writeMessages(this.syncMessages, event.threadId, event.messages);
        break;
      case "activity":
      case "round_started":
        this.threads.get(event.threadId)?.handle(event);
        break;
      case "run_finished": {
        this.threads.get(event.threadId)?.handle(event);
        // Before the runtime had `state` events this was the only moment to read the state; now
        // it finds the state unchanged and re-renders nothing.
        this.states.get(event.threadId)?.refresh();
        const waiting = this.forgetting.get(event.threadId);
        if (waiting) {
          this.forgetting.delete(event.threadId);
          this.forget(waiting);
        }
        break;
      }
      case "state":
        this.states.get(event.threadId)?.set(event.state);
        break;
      case "toggles_changed":
        // The defaults (threadId null) show in every thread without saved toggles.
        if (event.threadId === null) {
          for (const store of this.toggleStores.values()) store.refresh();
        } else {
          this.toggleStores.get(event.threadId)?.refresh();
        }
        break;
      case "tools_changed":
        for (const store of this.toggleStores.values()) store.refresh();
        break;
      case "thread_created":
        this.chatCreated(event.previousThreadId, event.threadId);
        break;
      default:
        break;
    }
  }

  /**
   * A Coder chat was created for a run that went by `previous`: the stores of that id become the
   * chat's (the same objects, so the hooks keep their subscriptions and the messages flow on), and
   * the app's store (`syncMessages`) gets the chat's messages under its id: the runtime's later
   * `messages` events name the chat and carry only what changes.
   */
  private chatCreated(previous: string, chatId: string): void {
    this.aliases.set(previous, chatId);
    this.threads.get(previous)?.rename(chatId);
    this.toggleStores.get(previous)?.rename(chatId);
    this.states.get(previous)?.rename(chatId);
    const runtime = this.snapshot.runtime;
    if (this.syncMessages && runtime) {
      try {
        writeMessages(this.syncMessages, chatId, runtime.messages(chatId));
      } catch {
        // A freed runtime has no threads.
      }
    }
  }

  /**
   * The last hook of a thread given a `history` went away: the runtime forgets the thread (its
   * toggles stay), now or, while it runs, at its `run_finished`, unless a hook reads it again by
   * then. The app has the history and a later `useThread(id, { history })` seeds it again.
   */
  forget(store: ThreadStore): void {
    const runtime = this.unsubscribe !== null ? this.snapshot.runtime : null;
    if (runtime === null || this.threads.has(store.threadId)) return;
    try {
      if (runtime.isRunning(store.threadId)) {
        this.forgetting.set(store.threadId, store);
        return;
      }
      runtime.forgetThread(store.threadId);
    } catch {
      // A freed runtime holds nothing.
      return;
    }
    store.forgotten();
    this.states.get(store.threadId)?.refresh();
  }

  // ---- code-defined tools ----

  claim(name: string, claim: Claim): void {
    const list = this.claims.get(name) ?? [];
    list.push(claim);
    this.claims.set(name, list);
    this.sync(name);
  }

  release(name: string, claim: Claim): void {
    const list = this.claims.get(name);
    if (!list) return;
    const at = list.lastIndexOf(claim);
    if (at >= 0) list.splice(at, 1);
    if (list.length === 0) this.claims.delete(name);
    // After the commit: when the provider unmounts in the same commit (its teardown pending), the
    // runtime it made is freed instead, so the tool's running call is stopped with the run, not
    // answered "removed" with a restart sent first. A tool released alone is unregistered then.
    queueMicrotask(() => {
      if (this.teardownTimer !== null) this.deferredSync.add(name);
      else this.sync(name);
    });
  }

  /** Registers the last claim of `name` in the runtime, or unregisters the name when none is left. */
  private sync(name: string): void {
    const runtime = this.unsubscribe !== null ? this.snapshot.runtime : null;
    if (runtime === null) return;
    const top = this.claims.get(name)?.at(-1);
    if (top === this.registered.get(name)) return;
    if (top === undefined) {
      this.registered.delete(name);
      runtime.unregisterTool(name);
      return;
    }
    const { handler: _latest, ...definition } = top.definition;
    const tool: FrontendTool = { ...definition, handler: top.call };
    try {
      runtime.registerTool(tool);
      this.registered.set(name, top);
    } catch (error) {
      this.registered.delete(name);
      this.setSnapshot({ failure: asError(error, "tool/invalid") });
    }
  }

  // ---- lifetime ----

  mount(): void {
    if (this.teardownTimer !== null) {
      clearTimeout(this.teardownTimer);
      this.teardownTimer = null;
      for (const name of this.deferredSync) this.sync(name);
      this.deferredSync.clear();
    }
  }

  /** Deferred by a task, so that StrictMode's simulated remount (synchronous) cancels it. */
  unmount(): void {
    if (this.teardownTimer !== null) clearTimeout(this.teardownTimer);
    this.teardownTimer = setTimeout(() => {
      this.teardownTimer = null;
      this.teardown();
    }, 0);
  }

  private teardown(): void {
    this.generation++;
    this.deferredSync.clear();
    this.forgetting.clear();
    this.unsubscribe?.();
    this.unsubscribe = null;
    const runtime = this.started ? this.snapshot.runtime : null;
    const external = this.config.runtime;
    if (runtime !== null) {
      if (runtime === external) {
        for (const name of this.registered.keys()) {
          try {
            runtime.unregisterTool(name);
          } catch {
            // Freed by the app.
          }
        }
      } else {
        try {
          runtime.free();
        } catch {
          // Already freed.
        }
      }
    }
    this.registered.clear();
    this.started = false;
    this.catalogSettled = false;
    this.toolsError = null;
    this.gate.reject(new ChatRuntimeError("react/unmounted", "the ChatRuntimeProvider was unmounted before the runtime was ready"));
    this.gate = deferred();
    // Mounted again later (an <Activity> shown again): it starts anew, lazily.
    this.snapshot = { runtime: external ?? null, failure: null, loading: false };
    for (const store of this.allStores()) store.refresh();
    for (const listener of [...this.listeners]) listener();
  }
}

// ---- components and hooks -----------------------------------------------------------------------------

const HostContext = createContext<Host | null>(null);
HostContext.displayName = "ChatRuntimeContext";

interface ProviderCommonProps<M extends HasId> {
  /**
   * Tools defined in code, registered once the runtime exists; a tool removed from the array (or
   * all of them, when the provider unmounts) is unregistered. The handler called is always the
   * latest one given for that name, so an inline array does not re-register on every render.
   */
  tools?: readonly FrontendTool<any, any>[];
  /**
   * Load tools.json when the runtime is created: default `true` with `options`, `false` with
   * `runtime` (the app's runtime is the app's to load). `run` waits for it to settle.
   */
  loadTools?: boolean;
  /**
   * When the runtime starts: `"mount"` (the default) when the first hook that needs it mounts;
   * `"demand"` only at the first `run` or `useRuntimeStatus().load()`: a page whose user never
   * asks fetches no wasm.
   */
  load?: "mount" | "demand";
  /**
   * Rendered instead of the children until the runtime exists. Giving one starts the runtime when
   * the provider mounts (there is no lazy start for children that are not rendered yet).
   */
  fallback?: ReactNode;
  /**
   * The app's own message store, fed from every `messages` event (the latest value given is used):
   * `write(threadId, update)` gets the updater of the thread's list, `map` maps each message first.
   * react-query: `{ write: (threadId, update) => client.setQueryData(key(threadId), update) }`,
   * with `map: toAguiV0Message` for a cache typed by `@ag-ui/core` 0.0.x.
   */
  syncMessages?: SyncMessages<M> | undefined;
  children?: ReactNode;
}

/** Props of {@link ChatRuntimeProvider}: `options` (it creates the runtime) or `runtime` (yours). */
export type ChatRuntimeProviderProps<M extends HasId = Message> = ProviderCommonProps<M> &
  (
    | {
        /** Read once, when the runtime is created (remount with a new `key` to change them). */
        options: ChatRuntimeOptions;
        runtime?: never;
        /** Where the `.wasm` is, when the default URL next to the package's JS does not work. */
        wasm?: InitInput | Promise<InitInput>;
      }
    | {
        /**
         * Your own `ChatRuntime` (created after `initChatRuntime()`): the provider subscribes to
         * it and registers `tools` in it, and never frees it. Read once, like `options`.
         */
        runtime: ChatRuntime;
        options?: never;
        wasm?: never;
      }
  );

/**
 * Gives its subtree one `ChatRuntime` (also under StrictMode's double mounting): one it creates
 * from `options` (freed when the provider unmounts) or the app's `runtime` (never freed).
 *
 * The start is lazy: nothing is fetched at mount. The first `useThread`, `useToolToggles` or
 * `useAgentState` to mount (or the first `run`) initialises the wasm, creates the runtime and loads
 * tools.json; `initChatRuntime()` preloads the wasm. A `run` before then waits for all of it.
 * Bad options, a wasm that cannot load or a tool that cannot be registered are thrown from the
 * provider's render, for an error boundary.
 */
export function ChatRuntimeProvider<M extends HasId = Message>(props: ChatRuntimeProviderProps<M>): ReactNode {
  const ref = useRef<Host | null>(null);
  const config: HostConfig = {
    options: props.options,
    runtime: props.runtime,
    loadTools: props.loadTools ?? props.runtime === undefined,
    load: props.load ?? "mount",
    wasm: props.wasm,
  };
  const host = (ref.current ??= new Host(config));
  // Read when the host starts, which may be in a child's effect (before this provider's effects).
  if (!host.runtime) host.config = config;
  const snapshot = useSyncExternalStore(host.subscribe, host.getSnapshot, host.getSnapshot);
  const eager = props.fallback !== undefined || props.runtime !== undefined;

  useEffect(() => {
    host.mount();
    return () => host.unmount();
  }, [host]);
  useEffect(() => {
    if (eager) host.start();
  }, [host, eager]);
  useProviderTools(host, props.tools);
  const { syncMessages } = props;
  useIsomorphicLayoutEffect(() => {
    host.syncMessages = syncMessages;
  }, [host, syncMessages]);

  // On demand, a runtime that could not start is `useRuntimeStatus()`'s `failed` (and the run's error).
  if (snapshot.failure && !(host.config.load === "demand" && snapshot.runtime === null)) throw snapshot.failure;
  if (snapshot.runtime === null && props.fallback !== undefined) return props.fallback;
  return createElement(HostContext.Provider, { value: host }, props.children);
}

const useIsomorphicLayoutEffect = typeof document !== "undefined" ? useLayoutEffect : useEffect;

/** The definition without its handler, as a key: a change of it registers the tool again. */
function definitionKey(tool: FrontendTool<any, unknown>): string {
  const { handler: _handler, ...definition } = tool;
  return JSON.stringify(definition);
}

interface ToolSlot {
  key: string;
  claim: Claim;
  latest: FrontendTool<any, unknown>;
}

function slotFor(tool: FrontendTool<any, unknown>): ToolSlot {
  const slot: ToolSlot = {
    key: definitionKey(tool),
    latest: tool,
    claim: { definition: tool, call: (args, ctx) => slot.latest.handler(args, ctx) },
  };
  return slot;
}

function useProviderTools(host: Host, tools: readonly FrontendTool<any, any>[] | undefined): void {
  const slots = useRef(new Map<string, ToolSlot>());
  useIsomorphicLayoutEffect(() => {
    const seen = new Set<string>();
    for (const tool of tools ?? []) {
      seen.add(tool.name);
      const slot = slots.current.get(tool.name);
      const key = definitionKey(tool);
      if (slot && slot.key === key) {
        slot.latest = tool;
        continue;
      }
      if (slot) host.release(tool.name, slot.claim);
      const fresh = slotFor(tool);
      slots.current.set(tool.name, fresh);
      host.claim(tool.name, fresh.claim);
    }
    for (const [name, slot] of [...slots.current]) {
      if (!seen.has(name)) {
        slots.current.delete(name);
        host.release(name, slot.claim);
      }
    }
  }, [host, tools]);
  useEffect(
    () => () => {
      for (const [name, slot] of slots.current) host.release(name, slot.claim);
      slots.current.clear();
    },
    [host],
  );
}

function useHost(): Host | null {
  return useContext(HostContext);
}

const noSubscribe = (): (() => void) => () => {};

/** Starts the provider's runtime from an effect (after the first commit, never in render). */
function useStart(host: Host | null): void {
  useEffect(() => {
    if (host?.config.load !== "demand") host?.start();
  }, [host]);
}

/** What {@link useRuntimeStatus} returns. */
export interface RuntimeStatus {
  /** `idle`: not asked for yet; `loading`: the wasm is on its way; `ready`: the runtime exists (a `run` still waits for tools.json). */
  status: "idle" | "loading" | "ready" | "failed";
  error: ChatRuntimeError | null;
  /** Starts the runtime (the wasm, tools.json) now; resolves once it is ready. */
  load(): Promise<void>;
}

const idleStatus = (): null => null;

/** The provider's runtime: whether it started, is ready or failed, and `load()` to start it (e.g. when a chat panel opens). */
export function useRuntimeStatus(): RuntimeStatus {
  const host = useHost();
  const snapshot = useSyncExternalStore(host ? host.subscribe : noSubscribe, host ? host.getSnapshot : idleStatus, host ? host.getSnapshot : idleStatus);
  const load = useCallback((): Promise<void> => (host === null ? Promise.reject(noProvider()) : host.ready().then(() => undefined)), [host]);
  if (snapshot === null) return { status: "idle", error: noProvider(), load };
  const status = snapshot.failure !== null ? "failed" : snapshot.runtime !== null ? "ready" : snapshot.loading ? "loading" : "idle";
  return { status, error: snapshot.failure, load };
}

/** The provider's runtime; `null` until it is created (or outside a provider). Does not start it. */
export function useChatRuntime(): ChatRuntime | null {
  const host = useHost();
  return useSyncExternalStore(
    host ? host.subscribe : noSubscribe,
    () => host?.runtime ?? null,
    () => host?.runtime ?? null,
  );
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
   * `cause`) as a `ChatRuntimeError`, or what `run` rejected with (`run/busy`, ...).
   */
  error: ChatRuntimeError | null;
  /** The last finished run's result. */
  result: RunResult | null;
  /** Whether the runtime exists (the wasm module is loaded). */
  ready: boolean;
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
   * `false` without that option. Flips back at the next sign of life.
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
   * and no run of it was started from this page (`undefined` while it loads). A server that keeps
   * its threads (`history: "new"`) then gets only new messages from the next run.
   */
  history?: readonly MessageInput[] | undefined;
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
 * handle's store becomes the chat's (no remount, the messages stay): `threadId` is then the chat's,
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
  useStart(host);
  useEffect(() => {
    if (threadId !== null) ownRef.current = null;
    else if (ownRef.current !== null && current !== null) ownRef.current = current;
  }, [threadId, current]);
  // The history goes in once the runtime is there (an effect: StrictMode's second run finds the
  // thread's messages in the runtime and does nothing).
  useEffect(() => {
    if (store !== null && hostReady && history !== undefined) store.seed(history, pending);
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
    error: snapshot.error,
    result: snapshot.result,
    ready: store ? snapshot.ready : hostReady,
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
      if (silent >= after) {
        setStalled(true);
      } else {
        setStalled(false);
        timer = setTimeout(check, after - silent);
      }
    };
    check();
    const off = store.onActivity(() => {
      if (timer === undefined) check();
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
  useStart(host);
  return {
    tools: snapshot.tools,
    activeCount: snapshot.activeCount,
    ready: snapshot.ready,
    error: snapshot.error,
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
