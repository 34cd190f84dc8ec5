// chat-runtime/react: React bindings for ChatRuntime (React >= 18, an optional peer dependency).
// Compiled by `tsc -p react` into pkg/*.js + pkg/*.d.ts (scripts/merge-package.mjs). This file is
// the barrel: it re-exports the public API; each job has its module:
//   init.ts          the wasm module's initialisation, once per page
//   errors.ts        error shaping (every error is a ChatRuntimeError)
//   store.ts         the external stores' base; thread-store.ts, toggle-store.ts, state-store.ts
//   host.ts          one per provider: starts the runtime, dispatches its events, registers tools
//   provider.ts      <ChatRuntimeProvider>; hooks.ts: useThread, useToolToggles, ...
//
// Design:
// - The wasm module is initialised once per page (one module-level promise), whatever the number
//   of providers and however often StrictMode mounts them.
// - A provider owns one `Host`, created in a ref (no side effect in render). The host starts
//   lazily: the first hook that needs the runtime (`useThread`, `useToolToggles`, `useAgentState`,
//   from an effect) or the first `run` initialises the wasm, creates the runtime (or takes the
//   app's), subscribes with an explicit `events` list (never `agui`), registers the code-defined
//   tools and loads tools.json. A provider with `fallback` or `runtime` starts at mount.
// - Teardown is deferred by a task, so StrictMode's simulated unmount/remount keeps everything;
//   a real unmount unsubscribes, unregisters the tools it registered and frees a runtime it made.
// - State lives in external stores (one per thread, per toggle key, per thread's agent state) read
//   with useSyncExternalStore. A store nothing reads any more is dropped a task later (so a
//   StrictMode remount finds it again); the runtime keeps the data, a new store reads it back.
//   A thread whose hooks were given a `history` is the app's to seed again: the runtime forgets
//   it (`forgetThread`, once it is not running) when its store goes.
// - Effects only subscribe and register: nothing in an effect executes a tool, and the one run an
//   effect may send (`useThread`'s `history` with `pending: "run"`) goes out only while the runtime
//   has no message of the thread, so double-invoked effects never double-send.
// - Messages keep their object identity while they do not change (`applyMessages`), so React.memo
//   message rows render only for the message that streams.
// - Coder (`runtime.backend`): a thread is a chat whose id the server makes. `useThread(null)`'s
//   first run goes by an id of the hook's with `newChat`; at `thread_created` the stores of that id
//   read the chat's (`Host.chatCreated` hands them the event) and stay under the first id, which
//   the chat's id leads to: the same objects, so readers keep their subscriptions, whichever id
//   they hold. Nothing is renamed in the adapter.

export { applyMessages, type HasId } from "./apply-messages.js";
export { toAguiV0Message, type AguiV0ContentPart, type AguiV0Message } from "./agui-v0.js";
export { syncMessages, type MessagesUpdate, type SyncMessages } from "./sync-messages.js";
export { initChatRuntime, type ChatRuntimeBuild } from "./init.js";
export { errorKind, type ErrorKind } from "./errors.js";
export type { ThreadInput, ThreadRunOptions } from "./thread-store.js";
export { ChatRuntimeProvider, useRuntimeStatus, type ChatRuntimeProviderProps, type RuntimeStatusHandle } from "./provider.js";
export type { RuntimeStatus } from "./host.js";
export {
  useAgentState,
  useChatRuntime,
  useFrontendTool,
  useThread,
  useToolToggles,
  type ThreadHandle,
  type ToolToggles,
  type UseThreadOptions,
} from "./hooks.js";
