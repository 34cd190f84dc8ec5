// chat-runtime/react: React bindings for ChatRuntime. React >= 18 is a peer dependency.
import type { ReactNode } from "react";
import type {
  ChatRuntime,
  ChatRuntimeOptions,
  InitInput,
  Message,
  RunOptions,
  RunRequest,
  RunResult,
  ToolEntry,
} from "./chat_runtime.js";

/**
 * Initialises the wasm module once per page (later calls return the same promise). `input` is what
 * `init` takes; the default loads `chat_runtime_bg.wasm` next to the package's JS.
 */
export function initChatRuntime(input?: InitInput | Promise<InitInput>): Promise<void>;

/** Props of {@link ChatRuntimeProvider}. */
export interface ChatRuntimeProviderProps {
  /** Read once, when the runtime is created (remount with a new `key` to change them). */
  options: ChatRuntimeOptions;
  /** Load `tools.json` once the runtime exists (default `true`). */
  loadTools?: boolean;
  /** Where the `.wasm` is, when the default URL next to the package's JS does not work. */
  wasm?: InitInput | Promise<InitInput>;
  /** Rendered until the wasm module is ready; without it the children render and hooks report `ready: false`. */
  fallback?: ReactNode;
  children?: ReactNode;
}

/**
 * Creates ONE `ChatRuntime` for its subtree (also under StrictMode's double mounting) and frees it
 * when it unmounts. The wasm module is initialised once per page, whatever the number of providers.
 */
export function ChatRuntimeProvider(props: ChatRuntimeProviderProps): ReactNode;

/** The nearest provider's runtime; `null` while the wasm module loads (or outside a provider). */
export function useChatRuntime(): ChatRuntime | null;

/** What `run` of {@link useThread} takes: a user's text, messages, or a request without `threadId`. */
export type ThreadInput = string | Message[] | Omit<RunRequest, "threadId">;

/** What {@link useThread} returns. */
export interface ThreadHandle {
  /**
   * The thread's messages. A message object keeps its identity until it changes, so `React.memo`
   * message components re-render only for the messages that changed.
   */
  messages: readonly Message[];
  /** Whether a run of this thread is going on. */
  running: boolean;
  /** The last run's error: `RunResult.error`, or what `run` rejected with (`run/busy`, ...). */
  error: RunResult["error"] | Error | null;
  /** The last finished run's result. */
  result: RunResult | null;
  /** Whether the runtime exists (the wasm module is loaded). */
  ready: boolean;
  /** Sends a run (a string becomes one user message); resolves with the run's result. Stable across renders. */
  run(input: ThreadInput, options?: RunOptions): Promise<RunResult>;
  /** Stops the thread's run (`status: "aborted"`). Stable across renders. */
  abort(): void;
}

/** One thread of the provider's runtime. */
export function useThread(threadId: string): ThreadHandle;

/** What {@link useToolToggles} returns. */
export interface ToolToggles {
  /** The tool selector's rows: frontend tools (toggleable) and backend tools (`locked`). */
  tools: readonly ToolEntry[];
  /** How many frontend tools are on in this thread. */
  activeCount: number;
  /** Whether the catalog is loaded (`loadTools` settled, or the provider was told not to load). */
  ready: boolean;
  /** Why `loadTools` failed (a `ChatRuntimeError`: `tools/fetch`, `tools/not-json`, ...). */
  error: Error | null;
  /** Turns a frontend tool on or off in this thread (throws `tools/locked` for backend tools). */
  setEnabled(name: string, enabled: boolean): void;
}

/**
 * The tool toggles of a thread (`null`: the defaults of new threads). Re-renders on `toggles_changed`
 * and `tools_changed`, including toggles changed in other tabs.
 */
export function useToolToggles(threadId: string | null): ToolToggles;
