import type * as agui from "@ag-ui/core";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent, type ReactNode } from "react";

import { threadMessagesQuery } from "../queries/threads";
import { navigate, threadPath } from "../router";
import { ApprovalPrompts } from "./approvalprompts";
import { useApprovals } from "./approvals";
import { ChatOutput } from "./chatoutput";
import { ErrorNotice } from "./errornotice";
import { ChatHeader } from "./header";
import { useChat } from "./runtime";
import { ToolsPanel } from "./toolspanel";
import { ToolTrace } from "./tooltrace";

/**
 * The chat: a thread, or a new chat (`threadId: null`) that becomes a thread at its first message
 * and moves to that thread's URL.
 */
export function ChatPage(props: ChatPage.Props): ReactNode {
	// A thread opened by its URL continues its history (a call cut by a reload runs again).
	const thread = useChat(props.threadId);
	// The handle's id once a new chat has started its thread.
	const threadId = thread.threadId ?? props.threadId;
	const client = useQueryClient();
	const [prompt, setPrompt] = useState("");
	// How many runs sent from this page have settled (the end-to-end test waits on it).
	const [settled, setSettled] = useState(0);
	// The approval tool lives above the router (./approvals): its cards survive leaving this page.
	const { askFirst, setAskFirst, pending } = useApprovals();

	// A new chat whose first run started: show the thread at its own URL.
	useEffect(() => {
		if (props.threadId === null && thread.threadId !== null) {
			navigate(threadPath(thread.threadId));
		}
	}, [props.threadId, thread.threadId]);

	const onSubmit = (event: FormEvent) => {
		event.preventDefault();
		const text = prompt.trim();
		if (!text || thread.running) return;
		setPrompt("");
		// The new chat's thread id is the app's, so its cache entry exists before the first event.
		const tid = threadId ?? crypto.randomUUID();
		const message: agui.UserMessage = {
			id: crypto.randomUUID(),
			role: "user",
			content: [{ type: "text", text }],
		};
		client.setQueryData(threadMessagesQuery(tid).queryKey, (prev) => [
			...(prev ?? []),
			message,
		]);
		// Waits for the runtime when it is not there yet; failures show through `thread.error`.
		thread
			.run(
				{ messages: [message] },
				thread.threadId === null ? { threadId: tid } : undefined,
			)
			.catch(() => {})
			.finally(() => setSettled((n) => n + 1));
	};

	return (
		<div className="chat" data-ready={thread.ready ? "true" : "false"}>
			<ChatHeader threadId={threadId} />
			<aside>
				<ToolsPanel threadId={threadId} />
				<label>
					<input
						id="ask-first"
						type="checkbox"
						checked={askFirst}
						onChange={(e) => setAskFirst(e.target.checked)}
					/>
					Ask before acting
				</label>
			</aside>
			<main>
				<ChatOutput threadId={threadId} />
				<ApprovalPrompts threadId={threadId} pending={pending} />
				<ToolTrace threadId={threadId} />
				<p
					id="status"
					data-ready={thread.ready ? "true" : "false"}
					data-running={thread.running ? "true" : "false"}
					data-status={thread.result?.status ?? ""}
					data-settled={settled}
				>
					{thread.running
						? "Working…"
						: thread.result
							? `Last run: ${thread.result.status} (${thread.result.rounds} rounds)`
							: "Ready"}
				</p>
				{thread.stalled && <p id="stalled">The agent seems stuck.</p>}
				{thread.error && <ErrorNotice error={thread.error} />}
				<form onSubmit={onSubmit}>
					<input
						id="input"
						value={prompt}
						onChange={(e) => setPrompt(e.target.value)}
						placeholder="Ask the agent…"
					/>
					<button
						id="send"
						type="submit"
						disabled={thread.running || thread.loading}
					>
						Send
					</button>
					<button
						id="stop"
						type="button"
						onClick={thread.abort}
						disabled={!thread.running}
					>
						Stop
					</button>
				</form>
			</main>
		</div>
	);
}

export namespace ChatPage {
	export type Props = {
		readonly threadId: string | null;
	};
}
