// chat-runtime/react, the wasm module's initialisation: once per page, whatever the number of
// providers and however often StrictMode mounts them.
import init, { type InitInput } from "./chat_runtime.js";

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
