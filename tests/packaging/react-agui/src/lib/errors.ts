import { ChatRuntimeError } from "chat-runtime";

import { FetchError } from "../auth";

/** What kind of failure, for the copy the user sees. */
export type ErrorCategory = "auth" | "network" | "server" | "unknown";

/** An error as the app shows it. */
export type ClassifiedError = {
  readonly category: ErrorCategory;
  readonly message: string;
};

const COPY: Record<ErrorCategory, string> = {
  auth: "Authentication error. Sign in again.",
  network: "Connection lost. Check your network and try again.",
  server: "Something went wrong. Try again shortly.",
  unknown: "An unexpected error occurred.",
};

/**
 * Classifies a failed run. chat-runtime keeps what the app's `fetch` threw as `cause` (a
 * `FetchError` here), so the app's own error class decides, as it does for the app's other requests.
 */
export function classifyError(error: unknown): ClassifiedError {
  const category = categorize(error);
  return { category, message: COPY[category] };
}

function categorize(error: unknown): ErrorCategory {
  if (error instanceof ChatRuntimeError && error.cause !== undefined) {
    return categorize(error.cause);
  }
  if (error instanceof FetchError) {
    if (error.status === 401 || error.status === 403) return "auth";
    return error.status >= 500 ? "server" : "unknown";
  }
  if (error instanceof ChatRuntimeError) {
    if (error.code === "run/http" && (error.status === 401 || error.status === 403)) return "auth";
    if (error.code === "run/network") return "network";
    return "server";
  }
  return error instanceof TypeError ? "network" : "unknown";
}
