// chat-runtime/react, a thread's AG-UI state as a store.
import { sameValue } from "./apply-messages.js";
import { Store, type ChatCreated, type StoreHost } from "./store.js";

export class StateStore extends Store<unknown> {
  protected snapshot: unknown;

  /** `threadId`: the thread whose state the store reads, as in {@link ThreadStore}. */
  constructor(host: StoreHost, map: Map<string, StateStore>, key: string, public threadId: string = key) {
    super(host, map as Map<string, Store<unknown>>, key);
    this.snapshot = this.read();
  }

  /**
   * A Coder chat was created for this thread's id (`thread_created`): the store reads the chat's.
   * (A chat has no AG-UI state: a retired state store's readers, which {@link renderAgain} does not
   * re-render, show the same `undefined` as the store they would find.)
   */
  handle(event: ChatCreated): void {
    this.threadId = event.threadId;
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
