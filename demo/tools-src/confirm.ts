// confirm_action: human in the loop. Asks the person in front of the page to confirm an action and
// waits for the answer: { confirmed: true | false }.
//
// The tool knows nothing about the page. It talks to it through one documented hook: it dispatches
//
//   window.dispatchEvent(new CustomEvent("chat-runtime:confirm", { cancelable: true, detail }))
//
// with `detail: ConfirmRequest` (below). A page that shows confirmations calls
// `event.preventDefault()` to claim the request, renders it, and calls `detail.resolve(true | false)`
// once the user has decided. It should also listen to `detail.signal`: when the run is stopped the
// tool settles at once (rejects with the abort reason) and the page removes its card.
// If no page claims the request, the tool fails with a clear error instead of waiting forever.
import type { ToolHandler } from "chat-runtime";

export const CONFIRM_EVENT = "chat-runtime:confirm";

export interface ConfirmArgs {
  action: string;
}

export interface ConfirmRequest {
  /** What the agent wants to do, in its own words (plain text: render it with textContent). */
  action: string;
  toolCallId: string;
  threadId: string;
  /** Call once with the user's decision; later calls are ignored. */
  resolve: (confirmed: boolean) => void;
  /** Fires when the run is stopped (or the tool times out). */
  signal: AbortSignal;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The confirmation was interrupted.", "AbortError");
}

export const confirmAction: ToolHandler<ConfirmArgs, { confirmed: boolean }> = ({ action }, ctx) =>
  new Promise((resolve, reject) => {
    const { signal } = ctx;
    if (signal.aborted) {
      reject(abortError(signal));
      return;
    }
    let settled = false;
    const onAbort = () => {
      if (settled) return;
      settled = true;
      reject(abortError(signal));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    const detail: ConfirmRequest = {
      action: String(action ?? ""),
      toolCallId: ctx.toolCallId,
      threadId: ctx.threadId,
      signal,
      resolve: (confirmed) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener("abort", onAbort);
        resolve({ confirmed: confirmed === true });
      },
    };
    const event = new CustomEvent<ConfirmRequest>(CONFIRM_EVENT, { cancelable: true, detail });
    const unclaimed = window.dispatchEvent(event);
    if (unclaimed && !settled) {
      settled = true;
      signal.removeEventListener("abort", onAbort);
      reject(new Error(`No confirmation UI on this page: nothing handled the "${CONFIRM_EVENT}" event.`));
    }
  });
