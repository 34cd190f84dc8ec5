import type * as agui from "@ag-ui/core";

/** What a content part shows as: its text, or `[image]` for media. */
type Part = { readonly type: string; readonly text?: string };

/** The text of a message of the app's model, for display. */
export function messageText(message: agui.Message): string {
	switch (message.role) {
		case "activity":
			return `[${message.activityType}]`;
		default:
			return contentText(message.content);
	}
}

/** A string, or content parts (a user message's; a tool message's too under @ag-ui/core 1.0). */
function contentText(content: string | readonly Part[] | undefined): string {
	if (content === undefined || typeof content === "string")
		return content ?? "";
	return content
		.map((part) =>
			part.type === "text" ? (part.text ?? "") : `[${part.type}]`,
		)
		.join(" ");
}
