import type { ReactNode } from "react";

import type { PendingApproval } from "./tools/requestapproval";

/** The approval cards of one thread. */
export function ApprovalPrompts(props: ApprovalPrompts.Props): ReactNode {
	const pending = props.pending.filter(
		(request) => request.threadId === props.threadId,
	);
	if (pending.length === 0) {
		return null;
	}
	return (
		<div className="approvals">
			{pending.map((request) => (
				<div className="approval" key={request.id} data-call={request.id}>
					<span className="approval-title">Approval requested</span>
					<p className="approval-action">{request.action}</p>
					<button
						type="button"
						className="approval-deny"
						onClick={() => request.decide(false)}
					>
						Reject
					</button>
					<button
						type="button"
						className="approval-approve"
						onClick={() => request.decide(true)}
					>
						Approve
					</button>
				</div>
			))}
		</div>
	);
}

export namespace ApprovalPrompts {
	export type Props = {
		readonly threadId: string | null;
		readonly pending: readonly PendingApproval[];
	};
}
