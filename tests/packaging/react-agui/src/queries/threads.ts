import { queryOptions } from "@tanstack/react-query";

import * as api from "../api";

/**
 * A thread's messages: loaded from the server's history once, then kept up to date by the
 * runtime's `messages` events (`syncMessages` in chat/runtime.tsx). Every component that shows the
 * thread reads this.
 */
export const threadMessagesQuery = (threadId: string | null) =>
	queryOptions({
		queryKey: ["thread", "messages", threadId],
		// `null`: a new chat has no thread yet (chat-runtime takes the nullable cache as it is).
		queryFn: (): Promise<api.ThreadMessages | null> =>
			threadId === null
				? Promise.resolve(null)
				: api.getThreadMessages(threadId),
		staleTime: Number.POSITIVE_INFINITY,
	});

/** The agents (`GET /api/agents`). */
export const agentsQuery = queryOptions({
	queryKey: ["agents"],
	queryFn: () => api.getAgents(),
	staleTime: Number.POSITIVE_INFINITY,
});
