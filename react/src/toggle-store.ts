// chat-runtime/react, a thread's tool toggles (or the defaults of new chats) as a store.
import type { ChatRuntimeError, ToolEntry } from "./chat_runtime.js";
import { sameValue } from "./apply-messages.js";
import { notReady } from "./errors.js";
import { Store, type ChatCreated, type StoreHost } from "./store.js";

export interface ToggleSnapshot {
  tools: readonly ToolEntry[];
  activeCount: number;
  ready: boolean;
  error: ChatRuntimeError | null;
}

export class ToggleStore extends Store<ToggleSnapshot> {
  protected snapshot: ToggleSnapshot;

  /** `threadId`: the thread whose toggles the store reads (`null`: the defaults), as in {@link ThreadStore}. */
  constructor(host: StoreHost, map: Map<string, ToggleStore>, key: string, public threadId: string | null) {
    super(host, map as Map<string, Store<ToggleSnapshot>>, key);
    this.snapshot = this.compute(null);
  }

  /** A Coder chat was created for this thread's id (`thread_created`): the chat's toggles (it adopted these). */
  handle(event: ChatCreated): void {
    this.threadId = event.threadId;
    this.refresh();
  }

  protected override renderAgain(): void {
    this.emit({ ...this.snapshot });
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
    const error = this.host.toolsError ?? this.host.toolError;
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
