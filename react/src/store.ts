// chat-runtime/react, the external stores' base: one store per thread, per toggle key and per
// thread's agent state, read with useSyncExternalStore; and what the stores need of their host
// (an interface here, so that the stores never import the host, which imports them).
import type { ChatRuntime, ChatRuntimeError, RuntimeEventOf } from "./chat_runtime.js";

/** A Coder chat got its id: the stores of the id its first run went by read the chat's from then on. */
export type ChatCreated = RuntimeEventOf<"thread_created">;

/** A thread's store as the host forgets it ({@link StoreHost.forget}). */
export interface Forgettable {
  /** The store's key in the host's map. */
  readonly key: string;
  /** The thread the store reads in the runtime. */
  readonly threadId: string;
  /** The runtime forgot the thread. */
  forgotten(): void;
}

/** What a store reads of its provider's host (`Host`, host.ts). */
export interface StoreHost {
  readonly runtime: ChatRuntime | null;
  /** Whether tools.json is loaded (or failed, or is not to be loaded) for the current runtime. */
  readonly catalogSettled: boolean;
  readonly toolsError: ChatRuntimeError | null;
  readonly toolError: ChatRuntimeError | null;
  /** Starts the runtime and resolves with it once tools.json settled. */
  ready(): Promise<ChatRuntime>;
  /** No hook reads the thread of a store given a `history` any more: the runtime may forget it. */
  forget(store: Forgettable): void;
}

/**
 * One external store for useSyncExternalStore: a snapshot, listeners, and its place in the host's
 * map (`key`, for good: a store never moves). With no listener left it is dropped from the map a
 * task later, unless it is busy or was read again; a dropped store that is subscribed again goes
 * back into the map, unless it was retired.
 */
export abstract class Store<S> {
  protected readonly listeners = new Set<() => void>();
  protected abstract snapshot: S;
  /** Put out of the map for good ({@link retire}): its readers look the store up again. */
  private retired = false;

  constructor(
    protected readonly host: StoreHost,
    private readonly map: Map<string, Store<S>>,
    readonly key: string,
  ) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    const current = this.map.get(this.key);
    if (current === undefined && !this.retired) {
      // Dropped while a render held it (a render that committed late): back in, and up to date.
      this.map.set(this.key, this);
      this.refresh();
    } else if (current !== this) {
      // Another store took the key meanwhile, or none may: re-render, the hook then looks it up.
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

  /**
   * The store leaves the map for good: its key now leads elsewhere (a Coder chat's id to the
   * stores of the id its first run went by, or a first id reused by a new chat). Its readers
   * render again (an equal, new snapshot) and look the store up again.
   */
  retire(): void {
    this.retired = true;
    if (this.map.get(this.key) === this) this.map.delete(this.key);
    this.renderAgain();
  }

  /** The readers render again (and look the store up again); a snapshot that can be copied is. */
  protected renderAgain(): void {
    for (const listener of [...this.listeners]) listener();
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
