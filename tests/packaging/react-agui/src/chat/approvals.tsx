import {
	createContext,
	type ReactNode,
	useContext,
	useMemo,
	useState,
} from "react";

import {
	type PendingApproval,
	useRequestApprovalTool,
} from "./tools/requestapproval";

/**
 * The approval tool, registered above the router: a call that waits for the user keeps waiting
 * when the user leaves the chat page, and its card is there again when they come back (the chat
 * page renders the cards of its thread). Registered in the chat page instead, the tool would go
 * when the page unmounts, and the runtime would answer the waiting call `INTERRUPTED`.
 */
export function ApprovalsRoot(props: {
	readonly children: ReactNode;
}): ReactNode {
	const [askFirst, setAskFirst] = useState(true);
	const pending = useRequestApprovalTool({ askFirst });
	const value = useMemo(
		() => ({ askFirst, setAskFirst, pending }),
		[askFirst, pending],
	);
	return (
		<Approvals.Provider value={value}>{props.children}</Approvals.Provider>
	);
}

/** The waiting approvals, and the "Ask before acting" choice the tool's handler reads. */
export type Approvals = {
	readonly askFirst: boolean;
	readonly setAskFirst: (askFirst: boolean) => void;
	readonly pending: readonly PendingApproval[];
};

const Approvals = createContext<Approvals | null>(null);

/** The approvals of {@link ApprovalsRoot} above. */
export function useApprovals(): Approvals {
	const approvals = useContext(Approvals);
	if (approvals === null) {
		throw new Error("useApprovals needs an <ApprovalsRoot> above it");
	}
	return approvals;
}
