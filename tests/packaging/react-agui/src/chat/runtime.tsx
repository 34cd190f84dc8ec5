// The glue: everything that wires chat-runtime into this app, and nothing else. Its lines of code
// (not blank, not comments) are counted by tests/packaging/react-agui.test.mjs: at most 30. The same
// file type-checks and builds against @ag-ui/core 0.0.57 and 1.0.0.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { toAguiV0Message, type ChatRuntimeOptions } from "chat-runtime";
import { ChatRuntimeProvider, initChatRuntime, useChatRuntime, useThread } from "chat-runtime/react";
import { useEffect, type ReactNode } from "react";

import { prepareRequest } from "../api";
import * as auth from "../auth";
import { agentsQuery, threadMessagesQuery } from "../queries/threads";

// `?toolTimeoutMs=`: the end-to-end test shortens the default tool deadline (the approval tool has none).
const toolTimeoutMs = Number(new URLSearchParams(location.search).get("toolTimeoutMs") ?? "30000");
const options: ChatRuntimeOptions = { runUrl: "/api/threads/{threadId}/runs", toolsUrl: "/tools.json", fetch: auth.fetch, prepareRequest, toolTimeoutMs };

/** The runtime for the app, lazy (nothing loads before a chat), feeding the react-query cache. */
export function ChatRuntimeRoot(props: { readonly children: ReactNode }): ReactNode {
  const client = useQueryClient();
  return (
    <ChatRuntimeProvider
      options={options}
      syncMessages={{ map: toAguiV0Message, write: (threadId, update) => client.setQueryData(threadMessagesQuery(threadId).queryKey, update) }}
    >
      {props.children}
    </ChatRuntimeProvider>
  );
}

/** Loads the wasm ahead of the first chat, on intent (hover or focus of "New chat"). */
export const preloadChat = (): void => void initChatRuntime().catch(() => {});

/** A thread (or a new chat: null) with its server history, reload-pending calls run again, a stall flag. */
export function useChat(threadId: string | null) {
  const history = useQuery(threadMessagesQuery(threadId));
  const runtime = useChatRuntime();
  const { data: agents } = useQuery(agentsQuery);
  // The agent's own tools (`capabilities.tools`, absent or `{ items?: Tool[] }`): listed, locked, always on.
  useEffect(() => runtime?.setBackendTools(agents?.[0]?.capabilities?.tools), [runtime, agents]);
  return { ...useThread(threadId, { history: history.data, pending: "run", stalledAfter: 30_000 }), loaded: history.data !== undefined };
}
