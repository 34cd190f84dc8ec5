// Feeding an app's own message store (a react-query cache, a Zustand store, ...) from the runtime's
// `messages` events: `syncMessages(runtime, { write, map })`, and the provider's `syncMessages` prop
// in chat-runtime/react, which does the same from the provider's one subscription. No import of the
// wasm glue's values: the main entry re-exports this module.
import type { ChatRuntime, Message } from "./chat_runtime.js";
import { mergeMessages, reconcileMessages, type HasId } from "./apply-messages.js";

/**
 * A thread's list as the app's store holds it (`prev`: `undefined` before it has one, `null` for a
 * query that answers "no thread yet" so), returned with a `messages` event's messages merged in by
 * id ({@link applyMessages}'s rules: unchanged objects and `prev` itself kept). Generic in the
 * store's element type, so it is react-query's updater as it is, also on a nullable query:
 * `client.setQueryData(key, update)`.
 */
export type MessagesUpdate<M extends HasId> = <P extends HasId>(prev: readonly P[] | null | undefined) => (P | M)[];

/** Where a thread's messages go: {@link syncMessages} and `<ChatRuntimeProvider syncMessages>`. */
export interface SyncMessages<M extends HasId = Message> {
  /**
   * Called once per `messages` event (at most one per frame and thread) with the thread and the
   * updater of its list. react-query: `(threadId, update) => client.setQueryData(key(threadId), update)`.
   */
  write(threadId: string, update: MessagesUpdate<M>): void;
  /** Maps each message before the merge, e.g. `toAguiV0Message` for a store typed by `@ag-ui/core` 0.0.x. */
  map?: ((message: Message) => M) | undefined;
}

/**
 * Writes every `messages` event of `runtime` into the app's store through `sync.write`; returns
 * the unsubscribe. Changes travel: a message is added or replaced by id; an event with
 * `replace: true` (the thread's list replaced wholesale: a `MESSAGES_SNAPSHOT`, a Coder chat's
 * committed copies in place of its previews) replaces the store's list, so what it drops is gone.
 *
 * ```ts
 * const stop = syncMessages(runtime, {
 *   map: toAguiV0Message, // the store holds @ag-ui/core 0.0.x messages
 *   write: (threadId, update) => client.setQueryData(["thread", threadId], update),
 * });
 * ```
 */
export function syncMessages<M extends HasId = Message>(runtime: ChatRuntime, sync: SyncMessages<M>): () => void {
  return runtime.subscribe((event) => writeMessages(sync, event.threadId, event.messages, event.replace), {
    events: ["messages"],
  });
}

/**
 * One `messages` event into `sync` (also the provider's); `replace`: `messages` is the thread's
 * whole list and replaces the store's. @internal
 */
export function writeMessages<M extends HasId>(
  sync: SyncMessages<M>,
  threadId: string,
  messages: readonly Message[],
  replace?: boolean,
): void {
  const changed: readonly HasId[] = sync.map ? messages.map(sync.map) : messages;
  const update = <P extends HasId>(prev: readonly P[] | null | undefined): (P | M)[] =>
    // The list holds `prev`'s objects and `changed`'s (of type M when `map` is given, else the
    // runtime's messages, which M then is); the app's array is handed back when nothing changed.
    (replace
      ? reconcileMessages<HasId>(prev ?? [], changed)
      : mergeMessages<HasId>(prev ?? [], changed, null)) as (P | M)[];
  sync.write(threadId, update);
}
