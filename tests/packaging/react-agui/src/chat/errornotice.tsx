import type { ChatRuntimeError } from "chat-runtime";
import { errorKind, type ErrorKind } from "chat-runtime/react";
import type { ReactNode } from "react";

import * as auth from "../auth";

/** The copy the user sees for each kind of failure (chat-runtime's `errorKind`). */
export const ERROR_COPY: Record<ErrorKind, string> = {
	auth: "Authentication error. Sign in again.",
	network: "Connection lost. Check your network and try again.",
	server: "Something went wrong. Try again shortly.",
	unavailable: "The chat could not load. Try again.",
	app: "An unexpected error occurred.",
};

/** Why the last run failed (or the chat could not start), with what the user can do about it. */
export function ErrorNotice(props: ErrorNotice.Props): ReactNode {
	const { error } = props;
	const kind = errorKind(error);
	const cause = error.cause;
	return (
		<div
			id="run-error"
			data-category={kind}
			data-code={error.code}
			data-status={error.status ?? ""}
			data-cause={
				cause instanceof auth.FetchError
					? "FetchError"
					: cause === undefined
						? ""
						: typeof cause
			}
			data-cause-status={cause instanceof auth.FetchError ? cause.status : ""}
		>
			<span className="error">{ERROR_COPY[kind]}</span>{" "}
			<small>
				({error.code}
				{error.status !== undefined ? ` ${error.status}` : ""})
			</small>
			{kind === "auth" && (
				<button type="button" id="sign-in-again" onClick={auth.signIn}>
					Sign in
				</button>
			)}
		</div>
	);
}

export namespace ErrorNotice {
	export type Props = {
		readonly error: ChatRuntimeError;
	};
}
