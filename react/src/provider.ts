// chat-runtime/react, the provider: one host per provider, handed down by context; and the
// plumbing the hooks share (the host of the context, the lazy start, tool slots).
import { createContext, createElement, useContext, useEffect, useLayoutEffect, useRef, useSyncExternalStore, type ReactNode } from "react";
import type { BackendTools, ChatRuntime, ChatRuntimeError, ChatRuntimeOptions, FrontendTool, InitInput, Message } from "./chat_runtime.js";
import type { HasId } from "./apply-messages.js";
import { noProvider } from "./errors.js";
import { Host, type Claim, type HostConfig, type RuntimeStatus } from "./host.js";
import type { ChatRuntimeBuild } from "./init.js";
import type { SyncMessages } from "./sync-messages.js";

const HostContext = createContext<Host | null>(null);
HostContext.displayName = "ChatRuntimeContext";

interface ProviderCommonProps<M extends HasId> {
  /**
   * Tools defined in code, registered once the runtime exists; a tool removed from the array (or
   * all of them, when the provider unmounts) is unregistered. The handler called is always the
   * latest one given for that name, so an inline array does not re-register on every render.
   */
  tools?: readonly FrontendTool<any, any>[];
  /**
   * Load tools.json when the runtime is created: default `true` with `options`, `false` with
   * `runtime` (the app's runtime is the app's to load). `run` waits for it to settle.
   */
  loadTools?: boolean;
  /**
   * Rendered instead of the children until the runtime exists. Giving one starts the runtime when
   * the provider mounts (there is no lazy start for children that are not rendered yet). When
   * the start fails the children are rendered (their hooks report the error), not the fallback.
   */
  fallback?: ReactNode;
  /**
   * When the runtime starts: `"mount"` (the default), when the first `useThread`, `useToolToggles`
   * or `useAgentState` mounts; `"demand"`, only at the first `run(...)` or `useRuntimeStatus().load()`
   * (nothing is fetched before). A `fallback` starts it at mount either way (the children it stands
   * for cannot ask).
   */
  load?: "mount" | "demand";
  /**
   * The agent's own tools (its `capabilities.tools`, an array or `{ items }`, absent while the
   * app's agents query loads): set in the runtime (`setBackendTools`) once it exists and whenever
   * the value changes (compared by identity). Not given: the provider leaves them to the app.
   */
  backendTools?: BackendTools;
  /**
   * Called with every failure the provider meets outside a run: the runtime could not start (bad
   * options, a build or `.wasm` that cannot load: `react/start-failed` with the `cause`, or the
   * options' own code), or a tool could not be registered (`tool/invalid`, ...). The provider
   * renders its children whatever happens; the hooks report the failure too. The latest one given
   * is called.
   */
  onError?: ((error: ChatRuntimeError) => void) | undefined;
  /**
   * The app's own message store, fed from every `messages` event (the latest value given is used):
   * `write(threadId, update)` gets the updater of the thread's list, `map` maps each message first.
   * react-query: `{ write: (threadId, update) => client.setQueryData(key(threadId), update) }`,
   * with `map: toAguiV0Message` for a cache typed by `@ag-ui/core` 0.0.x.
   */
  syncMessages?: SyncMessages<M> | undefined;
  children?: ReactNode;
}

/** Props of {@link ChatRuntimeProvider}: `options` (it creates the runtime) or `runtime` (yours). */
export type ChatRuntimeProviderProps<M extends HasId = Message> = ProviderCommonProps<M> &
  (
    | {
        /** Read once, when the runtime is created (remount with a new `key` to change them). */
        options: ChatRuntimeOptions;
        runtime?: never;
        /** Where the `.wasm` is, when the default URL next to the package's JS does not work. */
        wasm?: InitInput | Promise<InitInput>;
        /**
         * Which chat-runtime build to load: default the AG-UI build (`chat-runtime`, imported
         * when the runtime starts). A Coder app: `build={() => import("chat-runtime/coder")}`.
         */
        build?: () => Promise<ChatRuntimeBuild>;
      }
    | {
        /**
         * Your own `ChatRuntime` (created after `initChatRuntime()`): the provider subscribes to
         * it and registers `tools` in it, and never frees it. Read once, like `options`.
         */
        runtime: ChatRuntime;
        options?: never;
        wasm?: never;
        build?: never;
      }
  );

/**
 * Gives its subtree one `ChatRuntime` (also under StrictMode's double mounting): one it creates
 * from `options` (freed when the provider unmounts) or the app's `runtime` (never freed).
 *
 * The start is lazy: nothing is fetched at mount. The first `useThread`, `useToolToggles` or
 * `useAgentState` to mount (or the first `run`) initialises the wasm, creates the runtime and loads
 * tools.json; `initChatRuntime()` preloads the wasm. A `run` before then waits for all of it.
 * With `load="demand"`, only a `run` or `useRuntimeStatus().load()` starts it.
 *
 * A failure never throws from render: bad options or a build or `.wasm` that cannot load (a 404
 * during a rolling deploy) leave the children rendered, and show as `useThread(...).error`,
 * `useToolToggles(...).error`, `useRuntimeStatus()` and `onError`. The next start (a hook that
 * mounts, a `run`, `useRuntimeStatus().load()`) tries again and recovers when the wasm is back.
 */
export function ChatRuntimeProvider<M extends HasId = Message>(props: ChatRuntimeProviderProps<M>): ReactNode {
  const ref = useRef<Host | null>(null);
  const config: HostConfig = {
    options: props.options,
    runtime: props.runtime,
    loadTools: props.loadTools ?? props.runtime === undefined,
    wasm: props.wasm,
    build: props.build,
    load: props.load ?? "mount",
  };
  const host = (ref.current ??= new Host(config));
  // Read when the host starts, which may be in a child's effect (before this provider's effects).
  if (!host.runtime) host.config = config;
  const snapshot = useSyncExternalStore(host.subscribe, host.getSnapshot, host.getSnapshot);
  const eager = props.fallback !== undefined || props.runtime !== undefined;

  useEffect(() => {
    host.mount();
    return () => host.unmount();
  }, [host]);
  useEffect(() => {
    if (eager) host.start();
  }, [host, eager]);
  useProviderTools(host, props.tools);
  const { syncMessages, onError, backendTools } = props;
  const hasBackendTools = "backendTools" in props;
  useIsomorphicLayoutEffect(() => {
    host.syncMessages = syncMessages;
    host.onError = onError;
  }, [host, syncMessages, onError]);
  useEffect(() => {
    // `backendTools={undefined}` (the query is loading) is "none yet", not "not the provider's".
    if (hasBackendTools) host.setBackendTools(backendTools ?? null);
  }, [host, hasBackendTools, backendTools]);

  if (snapshot.runtime === null && snapshot.failure === null && props.fallback !== undefined) return props.fallback;
  return createElement(HostContext.Provider, { value: host }, props.children);
}

export const useIsomorphicLayoutEffect = typeof document !== "undefined" ? useLayoutEffect : useEffect;

/** The definition without its handler, as a key: a change of it registers the tool again. */
export function definitionKey(tool: FrontendTool<any, unknown>): string {
  const { handler: _handler, ...definition } = tool;
  return JSON.stringify(definition);
}

export interface ToolSlot {
  key: string;
  claim: Claim;
  latest: FrontendTool<any, unknown>;
}

export function slotFor(tool: FrontendTool<any, unknown>): ToolSlot {
  const slot: ToolSlot = {
    key: definitionKey(tool),
    latest: tool,
    claim: { definition: tool, call: (args, ctx) => slot.latest.handler(args, ctx) },
  };
  return slot;
}

function useProviderTools(host: Host, tools: readonly FrontendTool<any, any>[] | undefined): void {
  const slots = useRef(new Map<string, ToolSlot>());
  useIsomorphicLayoutEffect(() => {
    const seen = new Set<string>();
    for (const tool of tools ?? []) {
      seen.add(tool.name);
      const slot = slots.current.get(tool.name);
      const key = definitionKey(tool);
      if (slot && slot.key === key) {
        slot.latest = tool;
        continue;
      }
      if (slot) host.release(tool.name, slot.claim);
      const fresh = slotFor(tool);
      slots.current.set(tool.name, fresh);
      host.claim(tool.name, fresh.claim);
    }
    for (const [name, slot] of [...slots.current]) {
      if (!seen.has(name)) {
        slots.current.delete(name);
        host.release(name, slot.claim);
      }
    }
  }, [host, tools]);
  useEffect(
    () => () => {
      for (const [name, slot] of slots.current) host.release(name, slot.claim);
      slots.current.clear();
    },
    [host],
  );
}

export function useHost(): Host | null {
  return useContext(HostContext);
}

export const noSubscribe = (): (() => void) => () => {};

/**
 * Starts the provider's runtime from an effect (after the first commit, never in render), unless
 * the provider loads on demand.
 */
export function useStart(host: Host | null): void {
  useEffect(() => {
    if (host?.config.load === "mount") host.start();
  }, [host]);
}

/** What {@link useRuntimeStatus} returns. */
export interface RuntimeStatusHandle {
  /**
   * `"idle"`: nothing asked for the runtime yet (`load="demand"`, or no hook mounted);
   * `"loading"`: the build, its `.wasm` and tools.json are on their way; `"ready"`: the runtime
   * exists; `"failed"`: the last start failed (`error` says why).
   */
  status: RuntimeStatus;
  /** Why the last start failed; kept while `load()` retries, `null` once the runtime is there. */
  error: ChatRuntimeError | null;
  /**
   * Starts the runtime now (a preload on intent, or the retry after a failure); resolves once it
   * is ready (tools.json settled) or the attempt failed. Never rejects: `status` and `error` say
   * which. Stable across renders.
   */
  load(): Promise<void>;
}

const noLoad = (): Promise<void> => Promise.resolve();
const IDLE = { runtime: null, status: "idle", failure: null } as const;
const idle = () => IDLE;

/**
 * Where the provider's runtime is (`status`, `error`) and `load()`, which starts it or retries a
 * failed start. Outside a provider: `failed` with `react/no-provider`.
 */
export function useRuntimeStatus(): RuntimeStatusHandle {
  const host = useHost();
  const snapshot = useSyncExternalStore(host ? host.subscribe : noSubscribe, host ? host.getSnapshot : idle, host ? host.getSnapshot : idle);
  if (host === null) return { status: "failed", error: noProvider(), load: noLoad };
  return { status: snapshot.status, error: snapshot.failure, load: host.load };
}

