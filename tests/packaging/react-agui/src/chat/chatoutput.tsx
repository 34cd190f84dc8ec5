import type * as agui from "@ag-ui/core";
import { useQuery } from "@tanstack/react-query";
import { memo, type ReactNode } from "react";

import { messageText } from "../lib/messages";
import { threadMessagesQuery } from "../queries/threads";

/** The thread's messages, from the query cache. */
export function ChatOutput(props: ChatOutput.Props): ReactNode {
	const messages = useQuery(threadMessagesQuery(props.threadId)).data ?? [];
	return (
		<ol id="messages">
			{messages.map((message) => (
				<MessageRow key={message.id} message={message} />
			))}
		</ol>
	);
}

export namespace ChatOutput {
	export type Props = {
		readonly threadId: string | null;
	};
}

/** One message; renders again only when its own object changes. */
const MessageRow = memo(function MessageRow(props: {
	readonly message: agui.Message;
}): ReactNode {
	const { message } = props;
	return (
		<li
			className={`msg ${message.role}`}
			data-id={message.id}
			data-role={message.role}
		>
			<span className="text">{messageText(message)}</span>
			{message.role === "assistant" &&
				(message.toolCalls ?? []).map((call) => (
					<code key={call.id} className="call" data-call={call.function.name}>
						{call.function.name}({call.function.arguments})
					</code>
				))}
			{message.role === "tool" && message.error !== undefined && (
				<small className="error"> (error)</small>
			)}
		</li>
	);
});
