import type { ToolContext } from "chat-runtime";
import { useFrontendTool } from "chat-runtime/react";
import { useState } from "react";

import { trace } from "../../lib/trace";

/** An approval the agent is waiting for. */
export type PendingApproval = {
	/** The tool call's id. */
	readonly id: string;

	/** The thread it belongs to (the card shows on that thread only). */
	readonly threadId: string;

	/** What the agent wants to do. */
	readonly action: string;

	/** Answers it. */
	readonly decide: (approved: boolean) => void;
};

/** The tool's arguments (checked against `parameters` before the handler runs). */
type Args = { readonly action: string };

/** What the agent gets back. */
type Decision = { readonly confirmed: boolean };

/**
 * The `confirm_action` tool, defined in code: the agent calls it before doing something that
 * cannot be undone, and the run waits for the user's answer on an approval card, for as long as it
 * takes (`timeoutMs: null`; Stop still cancels, and the card goes away). On by default.
 *
 * `askFirst: false` approves at once: the handler reads the option of the latest render.
 */
export function useRequestApprovalTool(options: {
	readonly askFirst: boolean;
}): readonly PendingApproval[] {
	const [pending, setPending] = useState<readonly PendingApproval[]>([]);

	useFrontendTool({
		name: "confirm_action",
		description:
			"Ask the user to confirm an action before doing it; returns whether they confirmed.",
		parameters: {
			type: "object",
			properties: {
				action: {
					type: "string",
					description: "What will be done, in one sentence",
					minLength: 1,
				},
			},
			required: ["action"],
			additionalProperties: false,
		},
		timeoutMs: null,
		defaultEnabled: true,
		handler: (args: Args, ctx: ToolContext): Decision | Promise<Decision> => {
			if (!options.askFirst) {
				return { confirmed: true };
			}
			return new Promise<Decision>((resolve) => {
				const remove = () =>
					setPending((list) =>
						list.filter((request) => request.id !== ctx.toolCallId),
					);
				const decide = (approved: boolean) => {
					remove();
					resolve({ confirmed: approved });
				};
				ctx.signal.addEventListener("abort", remove, { once: true });
				trace.approvals.push(ctx.toolCallId);
				setPending((list) => [
					...list,
					{
						id: ctx.toolCallId,
						threadId: ctx.threadId,
						action: args.action,
						decide,
					},
				]);
			});
		},
	});

	return pending;
}
