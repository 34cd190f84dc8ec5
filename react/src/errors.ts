// chat-runtime/react, error shaping: everything the adapter reports is a `ChatRuntimeError`; and
// the small helpers the stores and the host share.
import { ChatRuntimeError, type ChatRuntime, type RunError } from "./chat_runtime.js";

/** Whether `runtime` runs the thread; a freed runtime (its methods throw `runtime/freed`) runs none. */
export function isRunning(runtime: ChatRuntime | null | undefined, threadId: string): boolean {
  try {
    return runtime?.isRunning(threadId) ?? false;
  } catch {
    return false;
  }
}

/** A failed run's error: the runtime hands it over as the one error shape, a `ChatRuntimeError`. */
export function runError(error: RunError): ChatRuntimeError {
  return error;
}

/** Anything thrown, as a `ChatRuntimeError` (itself when it is one; else `code` with `cause`). */
export function asError(thrown: unknown, code: string): ChatRuntimeError {
  if (thrown instanceof ChatRuntimeError) return thrown;
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return new ChatRuntimeError(code, message, { cause: thrown });
}

export function notReady(): ChatRuntimeError {
  return new ChatRuntimeError("react/not-ready", "chat-runtime is not ready yet (the runtime is starting)");
}

export function noProvider(): ChatRuntimeError {
  return new ChatRuntimeError("react/no-provider", "chat-runtime/react hooks need a <ChatRuntimeProvider> above them");
}

export function newId(): string {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === "function") return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}-${Math.random().toString(36).slice(2, 10)}`;
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Nobody may be waiting: a rejection is not "unhandled".
  promise.catch(() => {});
  return { promise, resolve, reject };
}

/**
 * What kind of failure an error is, for the copy a user sees: `"auth"` (an HTTP 401 or 403, also
 * one the app's own `fetch` threw with that `status`), `"network"` (no answer: `run/network`, a
 * tools.json fetch that got none), `"unavailable"` (the runtime could not start: the build or its
 * `.wasm` did not load), `"app"` (the app's own mistake: bad options, a bad tool, a run while one
 * runs, a hook outside the provider) or `"server"` (anything the server did: an HTTP error, a
 * broken stream, the agent's `RUN_ERROR`).
 */
export type ErrorKind = "auth" | "network" | "server" | "unavailable" | "app";

const APP_CODES = /^(options|tool|input|react|runtime)\/|^run\/(busy|bad-request|prepare-request|unanswered-interrupts|unknown-pending-call)$/;

/** The {@link ErrorKind} of a `ChatRuntimeError` (what `useThread().error` and `useToolToggles().error` hold). */
export function errorKind(error: ChatRuntimeError): ErrorKind {
  if (error.status === 401 || error.status === 403) return "auth";
  if (error.code === "react/start-failed") return "unavailable";
  if (error.code === "run/network" || (error.code === "tools/fetch" && error.status === undefined)) return "network";
  return APP_CODES.test(error.code) ? "app" : "server";
}
