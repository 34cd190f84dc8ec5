import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";

import { threadMessagesQuery } from "../queries/threads";

/** The thread's title bar: another reader of the same cached messages. */
export function ChatHeader(props: ChatHeader.Props): ReactNode {
	const messages = useQuery(threadMessagesQuery(props.threadId)).data ?? [];
	return (
		<header className="chat-header">
			<h2 id="thread-title" data-thread={props.threadId ?? ""}>
				{props.threadId === null ? "New chat" : `Thread ${props.threadId}`}
			</h2>
			<span id="message-count">{messages.length}</span>
		</header>
	);
}

export namespace ChatHeader {
	export type Props = {
		readonly threadId: string | null;
	};
}
