import type * as agui from "@ag-ui/core";

import * as auth from "../auth";
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
