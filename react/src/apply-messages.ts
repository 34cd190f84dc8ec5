// Merge-by-id of message lists, shared by `chat-runtime/react` (its thread stores) and the package's
// main entry (`import { applyMessages } from "chat-runtime"`, for apps that keep their own store,
// e.g. a react-query cache fed from `messages` events). No import of the wasm glue: the main entry
// re-exports this module, so it must not import the entry back.

/** Anything with a string `id`: chat-runtime's `Message`, `@ag-ui/core`'s, an app's own. */
export interface HasId {
  readonly id: string;
}

/**
 * Merges `changed` into `prev` by id and returns the new list:
 *
 * - a changed message replaces the message with its id, in that message's place;
 * - a message whose id `prev` does not have is appended (in `changed`'s order);
 * - a changed message equal in content to the one it replaces (same JSON value) is not taken: the
 *   old object stays, so `React.memo` rows and selectors see no change;
 * - when nothing changed, `prev` itself is returned (`===`), so a store update can be skipped.
 *
 * Every message that `changed` does not name keeps its object identity.
 *
 * With `replace` (a `messages` event's `replace: true`: the thread's list was replaced wholesale,
 * e.g. a `MESSAGES_SNAPSHOT` or a Coder chat's committed copies in place of its streamed
 * previews), `changed` is the whole list: the result is `changed` in its order, a message of
 * `prev` that it does not name is dropped, and each message equal to its old object keeps the old
 * object (`prev` itself when nothing changed).
 *
 * ```ts
 * runtime.subscribe((e) => queryClient.setQueryData<Message[]>(["messages", e.threadId],
 *   (old) => applyMessages(old ?? [], e.messages, e.replace)), { events: ["messages"] });
 * ```
 */
export function applyMessages<M extends HasId>(prev: M[], changed: readonly M[], replace?: boolean): M[];
export function applyMessages<M extends HasId>(
  prev: readonly M[],
  changed: readonly M[],
  replace?: boolean,
): readonly M[];
export function applyMessages<M extends HasId>(
  prev: readonly M[],
  changed: readonly M[],
  replace?: boolean,
): readonly M[] {
  return replace ? reconcileMessages(prev, changed) : mergeMessages(prev, changed, null);
}

/**
 * {@link applyMessages} with a kept `index` (id -> position in `prev`), updated in place when the
 * result is a new array, so a long thread is not indexed again for every streamed frame.
 * @internal
 */
export function mergeMessages<M extends HasId>(
  prev: readonly M[],
  changed: readonly M[],
  index: Map<string, number> | null,
): readonly M[] {
  if (changed.length === 0) return prev;
  let positions = index;
  let next: M[] | null = null;
  for (const message of changed) {
    positions ??= indexMessages(prev);
    const at = positions.get(message.id);
    const current = next ?? prev;
    if (at === undefined) {
      next ??= prev.slice();
      positions.set(message.id, next.length);
      next.push(message);
    } else if (!sameValue(current[at], message)) {
      next ??= prev.slice();
      next[at] = message;
    }
  }
  return next ?? prev;
}

/**
 * Rebuilds a list from the runtime's whole thread (`full`), reusing every object of `prev` that is
 * equal to its counterpart; `prev` itself when the lists are equal. Used for a `messages` event
 * with `replace: true` and after a run, when a `MESSAGES_SNAPSHOT` may have removed messages.
 * @internal
 */
export function reconcileMessages<M extends HasId>(prev: readonly M[], full: readonly M[]): readonly M[] {
  const byId = new Map<string, M>();
  for (const message of prev) byId.set(message.id, message);
  let same = prev.length === full.length;
  const next = full.map((message, i) => {
    const old = byId.get(message.id);
    const kept = old !== undefined && sameValue(old, message) ? old : message;
    if (kept !== prev[i]) same = false;
    return kept;
  });
  return same ? prev : next;
}

/** id -> position (the first one, should ids repeat). @internal */
export function indexMessages(messages: readonly HasId[]): Map<string, number> {
  const index = new Map<string, number>();
  messages.forEach((message, i) => {
    if (!index.has(message.id)) index.set(message.id, i);
  });
  return index;
}

/**
 * Whether two JSON-like values are equal (objects by their own enumerable keys, arrays by their
 * items); stops at the first difference, so a streaming message (its text grew) is told apart
 * at once.
 * @internal
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    // NaN is no JSON value; two NaNs count as equal all the same.
    return typeof a === "number" && typeof b === "number" && Number.isNaN(a) && Number.isNaN(b);
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(right, key) || !sameValue(left[key], right[key])) return false;
  }
  return true;
}
