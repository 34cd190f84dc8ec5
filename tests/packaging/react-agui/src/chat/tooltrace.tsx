import { useChatRuntime } from "chat-runtime/react";
import { useEffect, useState, type ReactNode } from "react";

import { trace } from "../lib/trace";

type Row = {
	readonly toolCallId: string;
	readonly toolName: string;
	readonly state: string;
};

/** The thread's tool executions, as the runtime reports them. */
export function ToolTrace(props: ToolTrace.Props): ReactNode {
	const runtime = useChatRuntime();
	const [rows, setRows] = useState<readonly Row[]>([]);
	const { threadId } = props;

	useEffect(() => {
		if (runtime === null) return undefined;
		return runtime.subscribe(
			(event) => {
				if (event.threadId !== threadId) return;
				if (event.type === "tool_started") {
					trace.toolRuns.push({
						toolCallId: event.toolCallId,
						toolName: event.toolName,
					});
					setRows((list) => [
						...list,
						{
							toolCallId: event.toolCallId,
							toolName: event.toolName,
							state: "running",
						},
					]);
				} else {
					const state = event.error ? `failed: ${event.error.code}` : "done";
					setRows((list) =>
						list.map((row) =>
							row.toolCallId === event.toolCallId ? { ...row, state } : row,
						),
					);
				}
			},
			{ events: ["tool_started", "tool_finished"] },
		);
	}, [runtime, threadId]);

	return (
		<ul id="tool-trace">
			{rows.map((row) => (
				<li
					key={row.toolCallId}
					data-tool={row.toolName}
					data-state={row.state}
				>
					{row.toolName}: {row.state}
				</li>
			))}
		</ul>
	);
}

export namespace ToolTrace {
	export type Props = {
		readonly threadId: string | null;
	};
}
