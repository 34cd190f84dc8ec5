// chat-runtime/react, a thread's AG-UI state as a store.
import { sameValue } from "./apply-messages.js";
import type { Host } from "./host.js";
import { Store } from "./store.js";

export class StateStore extends Store<unknown> {
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
