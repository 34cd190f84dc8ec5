// What the end-to-end test reads (tests/packaging/react-agui.test.mjs): every `prepareRequest`
// call, every tool execution, every approval card shown. Not part of what the app does.

/** The trace's shape. */
export type Trace = {
  prepared: { threadId: string; round: number }[];
  toolRuns: { toolCallId: string; toolName: string }[];
  approvals: string[];
};

declare global {
  interface Window {
    __chatTrace?: Trace;
  }
}

/** The page's trace. */
export const trace: Trace = (window.__chatTrace ??= { prepared: [], toolRuns: [], approvals: [] });
