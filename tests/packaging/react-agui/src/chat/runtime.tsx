// The glue: everything that wires chat-runtime into this app, and nothing else. Its lines of code
// as Biome formats them (80 columns), with every other module that adapts to chat-runtime, are
// counted by tests/packaging/react-agui.test.mjs: at most 30. The same file type-checks and builds
// against @ag-ui/core 0.0.57 and 1.0.0.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import * as chat from "chat-runtime/react";
import type { ReactNode } from "react";

import * as auth from "../auth";
import { stalledAfter, testOptions } from "../lib/trace";
import { agentsQuery, threadMessagesQuery } from "../queries/threads";

const runUrl = "/api/threads/{threadId}/runs";
// The server names runs itself and keeps no client state.
const omitRequestFields = ["runId", "parentRunId", "state"] as const;

/** The runtime for the app, lazy (nothing loads before a chat), feeding the react-query cache. */
export function ChatRuntimeRoot(props: { readonly children: ReactNode }) {
	const client = useQueryClient();
	const { data: agents } = useQuery(agentsQuery);
	return (
		<chat.ChatRuntimeProvider
			options={{ runUrl, fetch: auth.fetch, omitRequestFields, ...testOptions }}
			// The agent's own tools (`capabilities.tools`): listed, locked, always on.
			backendTools={agents?.[0]?.capabilities?.tools}
			syncMessages={{
				map: chat.toAguiV0Message,
				write: (id, update) =>
					client.setQueryData(threadMessagesQuery(id).queryKey, update),
			}}
		>
			{props.children}
		</chat.ChatRuntimeProvider>
	);
}

/** Loads the wasm ahead of the first chat, on intent (hover or focus of "New chat"). */
export const preloadChat = () => void chat.initChatRuntime().catch(() => {});

/** A thread (or a new chat: null) with its server history, a call cut by a reload run again. */
export function useChat(id: string | null) {
	const history = useQuery(threadMessagesQuery(id)).data;
	return chat.useThread(id, { history, pending: "run", stalledAfter });
}
