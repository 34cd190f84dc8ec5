// The demo's traces (the gateway's search_traces names the same ids).
export interface Span {
  id: string;
  service: string;
  operation: string;
  startMs: number;
  durationMs: number;
  depth: number;
  error?: boolean;
}

export interface Trace {
  id: string;
  rootService: string;
  spans: readonly Span[];
}

export const TRACES: readonly Trace[] = [
  {
    id: "checkout-7f3a",
    rootService: "frontend",
    spans: [
      { id: "s-root", service: "frontend", operation: "POST /checkout", startMs: 0, durationMs: 842, depth: 0 },
      { id: "s-cart", service: "cart", operation: "GetCart", startMs: 12, durationMs: 64, depth: 1 },
      { id: "s-price", service: "pricing", operation: "Quote", startMs: 80, durationMs: 118, depth: 1 },
      { id: "s-pay", service: "payments", operation: "Charge", startMs: 205, durationMs: 590, depth: 1, error: true },
      { id: "s-fraud", service: "fraud", operation: "Score", startMs: 220, durationMs: 402, depth: 2 },
      { id: "s-mail", service: "email", operation: "SendReceipt", startMs: 800, durationMs: 30, depth: 1 },
    ],
  },
  {
    id: "login-19bc",
    rootService: "auth",
    spans: [
      { id: "s-login", service: "auth", operation: "POST /login", startMs: 0, durationMs: 121, depth: 0 },
      { id: "s-user", service: "users", operation: "FindUser", startMs: 8, durationMs: 40, depth: 1 },
      { id: "s-hash", service: "auth", operation: "VerifyHash", startMs: 50, durationMs: 61, depth: 1 },
      { id: "s-session", service: "sessions", operation: "Create", startMs: 112, durationMs: 7, depth: 1 },
    ],
  },
];

export const SERVICES: readonly string[] = [...new Set(TRACES.flatMap((t) => t.spans.map((s) => s.service)))].sort();

export const durationOf = (t: Trace): number => Math.max(...t.spans.map((s) => s.startMs + s.durationMs));
