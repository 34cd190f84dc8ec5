import { queryOptions, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { applyMessages, type ChatRuntime } from "chat-runtime";
import { useChatRuntime } from "chat-runtime/react";
import { useEffect } from "react";

import * as api from "../api";
import { toAppMessage } from "../lib/messages";

/**
 * A thread's messages: loaded from the server's history once, then kept up to date by the
 * runtime's `messages` events (`feedMessages`). Every component that shows the thread reads this.
 */
export const threadMessagesQuery = (threadId: string | null) =>
  queryOptions({
    queryKey: ["thread", "messages", threadId],
    queryFn: (): Promise<api.ThreadMessages> => (threadId === null ? Promise.resolve([]) : api.getThreadMessages(threadId)),
    staleTime: Number.POSITIVE_INFINITY,
  });

/** The agents (`GET /api/agents`). */
export const agentsQuery = queryOptions({
  queryKey: ["agents"],
  queryFn: () => api.getAgents(),
  staleTime: Number.POSITIVE_INFINITY,
});

/**
 * Feeds the query cache from the runtime: each `messages` event carries only the messages that
 * changed (at most once per frame); `applyMessages` merges them by id into the cached list, so
 * unchanged message objects keep their identity and memoised rows do not re-render.
 */
export function feedMessages(runtime: ChatRuntime, client: QueryClient): () => void {
  return runtime.subscribe(
    (event) => {
      client.setQueryData(threadMessagesQuery(event.threadId).queryKey, (prev) =>
        applyMessages(prev ?? [], event.messages.map(toAppMessage)),
      );
    },
    { events: ["messages"] },
  );
}

/** Feeds the cache for as long as the component is mounted (once the runtime exists). */
export function MessagesFeed(): null {
  const runtime = useChatRuntime();
  const client = useQueryClient();
  useEffect(() => (runtime === null ? undefined : feedMessages(runtime, client)), [runtime, client]);
  return null;
}
