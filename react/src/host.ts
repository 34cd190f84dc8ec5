// chat-runtime/react, the host: one per provider. It starts the runtime (once, lazily), subscribes
// to it, dispatches its events to the stores, registers the code-defined tools, and tears it all
// down when the provider really unmounts.
import { ChatRuntimeError, type ChatRuntime, type ChatRuntimeOptions, type FrontendTool, type InitInput, type RuntimeEventOf, type ToolHandler, type BackendTools } from "./chat_runtime.js";
import type { HasId } from "./apply-messages.js";
import { asError, deferred, type Deferred } from "./errors.js";
import { loadBuild, type ChatRuntimeBuild } from "./init.js";
import { StateStore } from "./state-store.js";
import type { ChatCreated, Forgettable, Store, StoreHost } from "./store.js";
import { ThreadStore } from "./thread-store.js";
import { ToggleStore } from "./toggle-store.js";
import { writeMessages, type SyncMessages } from "./sync-messages.js";

// ---- the events the adapter listens to --------------------------------------------------------------

/**
 * Never `agui` (one JS object per streamed token): the hooks render from these. `thread_created`:
 * a Coder chat got its id, and the stores of the id its first run went by read the chat's (they
 * take its id from the event; the chat's id leads to them).
 */
const EVENTS = ["activity", "messages", "round_started", "run_finished", "state", "thread_created", "toggles_changed", "tool_finished", "tool_started", "tools_changed"] as const;
export type AdapterEvent = RuntimeEventOf<(typeof EVENTS)[number]>;

/** A tool a provider's `tools` or a `useFrontendTool` holds; the last claim of a name is registered. */
export interface Claim {
  definition: FrontendTool<any, unknown>;
  /** The handler the runtime gets: calls the claim's latest handler. */
  call: ToolHandler<any, unknown>;
}

/**
 * Where the provider's runtime is: not asked for yet, loading (the build, its wasm, tools.json),
 * there, or failed to start (the hooks report `error`; the next start tries again).
 */
export type RuntimeStatus = "idle" | "loading" | "ready" | "failed";

export interface HostSnapshot {
  runtime: ChatRuntime | null;
  status: RuntimeStatus;
  /**
   * Why the last start failed (bad options, a build or wasm that cannot load), kept while a retry
   * loads; `null` once the runtime is there.
   */
  failure: ChatRuntimeError | null;
}

export interface HostConfig {
  options?: ChatRuntimeOptions | undefined;
  runtime?: ChatRuntime | undefined;
  loadTools: boolean;
  wasm?: InitInput | Promise<InitInput> | undefined;
  build?: (() => Promise<ChatRuntimeBuild>) | undefined;
  /** `"mount"`: the first hook that needs the runtime starts it; `"demand"`: the first `run` or `load()`. */
  load: "mount" | "demand";
}

export class Host implements StoreHost {
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
  /** The last tool the runtime refused to register (`tool/invalid`, ...). */
  toolError: ChatRuntimeError | null = null;
  private teardownTimer: ReturnType<typeof setTimeout> | null = null;
  /** The provider's `syncMessages` of the latest commit: each `messages` event is written there. */
  syncMessages: SyncMessages<HasId> | undefined = undefined;
  /** Tools released while the teardown was pending: synced if the provider is mounted again. */
  private readonly deferredSync = new Set<string>();
  private readonly claims = new Map<string, Claim[]>();
  /** What this host registered in the runtime, by name. */
  private readonly registered = new Map<string, Claim>();
  /** Threads to forget at their `run_finished`: no hook reads them, and they were running. */
  private readonly forgetting = new Map<string, Forgettable>();
  /**
   * The id a new Coder chat's first run went by -> the chat's id (`thread_created`), and back. The
   * chat's stores stay under the first id (their key; they read the chat, told by the event), and
   * the chat's id is an alias of it: a hook or an app holding either id, and the runtime's events
   * naming the chat, reach the same stores. One pair per chat created from this provider.
   */
  private readonly chats = new Map<string, string>();
  private readonly firsts = new Map<string, string>();

  constructor(public config: HostConfig) {
    // An app's runtime is there from the first render (reading it has no side effect); the host
    // subscribes and registers when it starts (an effect).
    this.snapshot = { runtime: config.runtime ?? null, status: "idle", failure: null };
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

  /** The key of a thread's stores: a chat's first id for the chat's id, else the id itself. */
  private keyOf(threadId: string): string {
    return this.firsts.get(threadId) ?? threadId;
  }

  /** The thread the stores under `key` read: the chat's id for a chat's first id, else the key. */
  private idOf(key: string): string {
    return this.chats.get(key) ?? key;
  }

  thread(threadId: string): ThreadStore {
    const key = this.keyOf(threadId);
    let store = this.threads.get(key);
    if (!store) {
      store = new ThreadStore(this, this.threads, key, this.idOf(key));
      this.threads.set(key, store);
    }
    return store;
  }

  toggles(threadId: string | null): ToggleStore {
    // Thread ids never hold U+10FFFF (README, "Thread ids"): no thread's key is the default's.
    const key = threadId === null ? "\u{10FFFF}default" : this.keyOf(threadId);
    let store = this.toggleStores.get(key);
    if (!store) {
      store = new ToggleStore(this, this.toggleStores, key, threadId === null ? null : this.idOf(key));
      this.toggleStores.set(key, store);
    }
    return store;
  }

  state(threadId: string): StateStore {
    const key = this.keyOf(threadId);
    let store = this.states.get(key);
    if (!store) {
      store = new StateStore(this, this.states, key, this.idOf(key));
      this.states.set(key, store);
    }
    return store;
  }

  /**
   * The store of a new chat's first run (`useThread(null)`): on a Coder runtime the id is the one
   * the run goes by until its chat is created. An id used so before (an app's fixed
   * `options.threadId`) is a new chat again, not the chat it led to: that chat's stores are retired
   * (whoever reads the chat by its id gets new ones).
   */
  startChat(threadId: string): ThreadStore {
    const chat = this.chats.get(threadId);
    if (chat !== undefined) {
      this.chats.delete(threadId);
      this.firsts.delete(chat);
      this.threads.get(threadId)?.retire();
      this.toggleStores.get(threadId)?.retire();
      this.states.get(threadId)?.retire();
    }
    const store = this.thread(threadId);
    store.startsChat = true;
    return store;
  }

  /**
   * Starts the runtime once (no-op when it is starting or there). Never rejects: a failure is the
   * host's state (`failed`, with the error), reported to `onError`, and the next `start` (a hook
   * that mounts, a `run`, `load()`) tries again.
   */
  start(): void {
    if (this.started) return;
    this.started = true;
    const generation = this.generation;
    const { runtime: external, options, wasm, build } = this.config;
    const created: Promise<ChatRuntime> = external
      ? Promise.resolve(external)
      : loadBuild(build, wasm).then((module) => new module.ChatRuntime(options as ChatRuntimeOptions));
    // The last failure stays until the runtime is there: a retry does not blank what shows it.
    if (!external) this.setSnapshot({ status: "loading" });
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
        // The runs that waited for this start fail with it; the next start is a new attempt.
        this.started = false;
        this.gate.reject(failure);
        this.gate = deferred();
        this.failed = failure;
        this.setSnapshot({ status: "failed", failure });
        this.report(failure);
      },
    );
  }

  /** The last start's failure: a thread whose run it failed shows it until the runtime is there. */
  private failed: ChatRuntimeError | null = null;

  /** The provider's `onError` of the latest commit. */
  onError: ((error: ChatRuntimeError) => void) | undefined = undefined;

  /** Hands a failure to the provider's `onError` (a throwing callback is the app's bug: logged). */
  report(error: ChatRuntimeError): void {
    try {
      this.onError?.(error);
    } catch (thrown) {
      console.error(thrown);
    }
  }

  /**
   * Starts the runtime (again, after a failure); resolves once it is there and tools.json settled,
   * or once the attempt failed (never rejects: the status and error say which).
   */
  readonly load = (): Promise<void> => {
    return this.ready().then(
      () => undefined,
      () => undefined,
    );
  };

  /** Starts the runtime and resolves with it once tools.json settled (when the provider loads it). */
  ready(): Promise<ChatRuntime> {
    this.start();
    return this.gate.promise;
  }

  /** The provider's `backendTools` of the latest commit; `undefined`: the provider does not set them. */
  private backendTools: BackendTools | undefined = undefined;

  /** Sets the agent's own tools in the runtime (now, or when it is there), when the provider has them. */
  setBackendTools(tools: BackendTools | undefined): void {
    if (tools === this.backendTools) return;
    this.backendTools = tools;
    this.applyBackendTools();
  }

  private applyBackendTools(): void {
    const runtime = this.unsubscribe !== null ? this.snapshot.runtime : null;
    if (runtime === null || this.backendTools === undefined) return;
    try {
      runtime.setBackendTools(this.backendTools);
    } catch (error) {
      this.report(asError(error, "tool/invalid"));
    }
  }

  private attach(runtime: ChatRuntime): void {
    const generation = this.generation;
    this.unsubscribe = runtime.subscribe((event) => this.dispatch(event), { events: EVENTS });
    this.snapshot = { ...this.snapshot, runtime, status: "ready", failure: null };
    if (this.failed !== null) {
      // Recovered: the runs the failed start refused are not the thread's errors any more.
      for (const store of this.threads.values()) store.clearError(this.failed);
      this.failed = null;
    }
    for (const name of this.claims.keys()) this.sync(name);
    this.applyBackendTools();
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
        this.threads.get(this.keyOf(event.threadId))?.handle(event);
        if (this.syncMessages) writeMessages(this.syncMessages, event.threadId, event.messages, event.replace);
        break;
      case "activity":
      case "round_started":
      case "tool_started":
      case "tool_finished":
        this.threads.get(this.keyOf(event.threadId))?.handle(event);
        break;
      case "run_finished": {
        const key = this.keyOf(event.threadId);
        this.threads.get(key)?.handle(event);
        // Before the runtime had `state` events this was the only moment to read the state; now
        // it finds the state unchanged and re-renders nothing.
        this.states.get(key)?.refresh();
        const waiting = this.forgetting.get(event.threadId);
        if (waiting) {
          this.forgetting.delete(event.threadId);
          this.forget(waiting);
        }
        break;
      }
      case "state":
        this.states.get(this.keyOf(event.threadId))?.set(event.state);
        break;
      case "toggles_changed":
        // The defaults (threadId null) show in every thread without saved toggles.
        if (event.threadId === null) {
          for (const store of this.toggleStores.values()) store.refresh();
        } else {
          this.toggleStores.get(this.keyOf(event.threadId))?.refresh();
        }
        break;
      case "tools_changed":
        for (const store of this.toggleStores.values()) store.refresh();
        break;
      case "thread_created":
        this.chatCreated(event);
        break;
      default:
        break;
    }
  }

  /**
   * A Coder chat was created for a run that went by `previous`: the stores of that id read the
   * chat's from now on (the event tells them its id) and stay under `previous`, which the chat's
   * id now leads to (the same objects, so the hooks keep their subscriptions and the messages flow
   * on); a store a hook made for the chat's id before is retired (its readers find these). The
   * app's store (`syncMessages`) gets the chat's whole list under its id: the runtime's later
   * `messages` events name the chat and carry what changes (or, with `replace`, the whole list).
   */
  private chatCreated(event: ChatCreated): void {
    const { previousThreadId: previous, threadId: chatId } = event;
    this.chats.set(previous, chatId);
    this.firsts.set(chatId, previous);
    this.threads.get(chatId)?.retire();
    this.toggleStores.get(chatId)?.retire();
    this.states.get(chatId)?.retire();
    this.threads.get(previous)?.handle(event);
    this.toggleStores.get(previous)?.handle(event);
    this.states.get(previous)?.handle(event);
    const runtime = this.snapshot.runtime;
    if (this.syncMessages && runtime) {
      try {
        writeMessages(this.syncMessages, chatId, runtime.messages(chatId), true);
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
  forget(store: Forgettable): void {
    const runtime = this.unsubscribe !== null ? this.snapshot.runtime : null;
    if (runtime === null || this.threads.has(store.key)) return;
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
    this.states.get(store.key)?.refresh();
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
      // A tool the runtime refuses is the app's bug, not a reason to take the page down: it shows
      // in `useToolToggles().error` and goes to `onError`.
      const failure = asError(error, "tool/invalid");
      this.toolError = failure;
      for (const store of this.toggleStores.values()) store.refresh();
      this.report(failure);
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
    this.toolError = null;
    this.failed = null;
    this.gate.reject(new ChatRuntimeError("react/unmounted", "the ChatRuntimeProvider was unmounted before the runtime was ready"));
    this.gate = deferred();
    // Mounted again later (an <Activity> shown again): it starts anew, lazily.
    this.snapshot = { runtime: external ?? null, status: "idle", failure: null };
    for (const store of this.allStores()) store.refresh();
    for (const listener of [...this.listeners]) listener();
  }
}
