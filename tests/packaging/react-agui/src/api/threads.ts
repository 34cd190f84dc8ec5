import type * as agui from "@ag-ui/core";

import * as auth from "../auth";
import { trace } from "../lib/trace";
import { parseMessages } from "./schemas";

/** The app's message list. */
export type ThreadMessages = agui.Message[];

/**
 * A thread's history (`GET /history/{threadId}.json` here; a real server has
 * `GET /api/threads/{threadId}/messages`). A thread the server has no history for is empty.
 */
export async function getThreadMessages(
	threadId: string,
): Promise<ThreadMessages> {
	try {
		const resp = await auth.fetch(
			`/history/${encodeURIComponent(threadId)}.json`,
		);
		return parseMessages(await resp.json());
	} catch (error) {
		if (error instanceof auth.FetchError && error.status === 404) {
			return [];
		}
		throw error;
	}
}

/**
 * What the server's run endpoint declares: it takes the thread id from the URL and the body, and
 * names runs itself, so the request carries no `runId`, `parentRunId` or `state` (chat-runtime's
 * `prepareRequest`).
 */
export function prepareRequest<
	B extends { runId?: unknown; parentRunId?: unknown; state?: unknown },
>(
	{ runId: _runId, parentRunId: _parentRunId, state: _state, ...declared }: B,
	info: { readonly threadId: string; readonly round: number },
): Omit<B, "runId" | "parentRunId" | "state"> {
	trace.prepared.push({ threadId: info.threadId, round: info.round });
	return declared;
}
