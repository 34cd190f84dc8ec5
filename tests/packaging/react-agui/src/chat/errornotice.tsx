import type { ChatRuntimeError } from "chat-runtime";
import type { ReactNode } from "react";

import * as auth from "../auth";
import { classifyError } from "../lib/errors";

/** Why the last run failed, with what the app can do about it. */
export function ErrorNotice(props: ErrorNotice.Props): ReactNode {
  const { error } = props;
  const { category, message } = classifyError(error);
  const cause = error.cause;
  return (
    <div
      id="run-error"
      data-category={category}
      data-code={error.code}
      data-status={error.status ?? ""}
      data-cause={cause instanceof auth.FetchError ? "FetchError" : cause === undefined ? "" : typeof cause}
      data-cause-status={cause instanceof auth.FetchError ? cause.status : ""}
    >
      <span className="error">{message}</span> <small>({error.code}{error.status !== undefined ? ` ${error.status}` : ""})</small>
      {category === "auth" && (
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
