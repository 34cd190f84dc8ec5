// chat-runtime/react, the external stores' base: one store per thread, per toggle key and per
// thread's agent state, read with useSyncExternalStore.
import type { Host } from "./host.js";

/**
 * One external store for useSyncExternalStore: a snapshot, listeners, and its place in the host's
 * map (`key`). With no listener left it is dropped from the map a task later, unless it is busy or
 * was read again; a dropped store that is subscribed again goes back into the map.
 */
export abstract class Store<S> {
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
