// chat-runtime/react, the wasm module's initialisation: once per page and build, whatever the
// number of providers and however often StrictMode mounts them. A build is a module namespace:
// `chat-runtime` (AG-UI, the default, imported only when first needed) or `chat-runtime/coder`.
import type { ChatRuntime, ChatRuntimeOptions, InitInput } from "./chat_runtime.js";

/**
 * What the provider's `build` resolves with: the module namespace of a chat-runtime build
 * (`import("chat-runtime")`, `import("chat-runtime/coder")`), of which the adapter uses the
 * default export (wasm-pack's `init`) and the `ChatRuntime` class.
 */
export interface ChatRuntimeBuild {
  default(input?: { module_or_path: InitInput | Promise<InitInput> }): Promise<unknown>;
  ChatRuntime: new (options: ChatRuntimeOptions) => ChatRuntime;
}

/** The AG-UI build, by dynamic `import()`: an app that passes its own `build` bundles this one's loader only. */
const defaultBuild = (): Promise<ChatRuntimeBuild> => import("./chat_runtime.js");

/** One initialisation per build module; a failed one is forgotten, so the next attempt fetches again. */
const inits = new WeakMap<ChatRuntimeBuild, Promise<void>>();

/**
 * Loads `build` (default: the AG-UI build) and initialises its wasm once; resolves with the build.
 * A failure (a 404 on the `.wasm` during a rolling deploy) is not kept: the next call tries again.
 * @internal
 */
export async function loadBuild(
  build: (() => Promise<ChatRuntimeBuild>) | undefined,
  input: InitInput | Promise<InitInput> | undefined,
): Promise<ChatRuntimeBuild> {
  const module = await (build ?? defaultBuild)();
  let promise = inits.get(module);
  if (promise === undefined) {
    const started = (input === undefined ? module.default() : module.default({ module_or_path: input })).then(() => undefined);
    promise = started;
    inits.set(module, started);
    started.catch(() => {
      if (inits.get(module) === started) inits.delete(module);
    });
  }
  await promise;
  return module;
}

/**
 * Initialises the wasm module once per page; later calls return the same promise. `input` is what
 * wasm-pack's `init` takes (a URL, a Response, bytes or a WebAssembly.Module), used by the first
 * call; `build` is the provider's `build` (default: the AG-UI build). Providers call it when they
 * start; call it yourself to preload the wasm (e.g. when the user opens the chat menu) so that the
 * first hook finds it ready. A failed call may be retried: nothing of it is kept.
 */
export function initChatRuntime(input?: InitInput | Promise<InitInput>, build?: () => Promise<ChatRuntimeBuild>): Promise<void> {
  return loadBuild(build, input).then(() => undefined);
}
