// What the end-to-end test reads (tests/packaging/react-agui.test.mjs): every tool
// execution, every approval card shown; and the one option it sets. Not part of
// what the app does.

/** The trace's shape. */
export type Trace = {
	toolRuns: { toolCallId: string; toolName: string }[];
	approvals: string[];
};

declare global {
	interface Window {
		__chatTrace?: Trace;
	}
}

/** The page's trace. */
export const trace: Trace = (window.__chatTrace ??= {
	toolRuns: [],
	approvals: [],
});

const query = new URLSearchParams(location.search);

/**
 * `?toolTimeoutMs=`: the end-to-end test shortens the default tool deadline (the approval tool has
 * none), so that a tool that had one would run out while the approval card waits.
 */
export const testOptions = {
	toolTimeoutMs: Number(query.get("toolTimeoutMs") ?? "30000"),
};

/** `?stalledAfter=`: the test shortens the stall notice's delay (30 s) below the card's wait. */
export const stalledAfter = Number(query.get("stalledAfter") ?? "30000");
