// The two views, each with the contextual tools of RFC 0002 it offers while it is shown
// (`useFrontendTool`: registered while mounted, fire-and-forget with `followUp: false`, on by
// default). Their schemas name what the view shows (`enum`), so the agent can only pick that.
import { useMemo } from "react";
import { useAssistantTool } from "@assistant-ui/react";
import { useFrontendTool } from "chat-runtime/react";

import { SERVICES, TRACES, durationOf, type Trace } from "./data";

/** How often each view tool's handler ran (window.toolRuns): the tests check "once". */
const toolRuns = new Map<string, number>();
Object.assign(window, { toolRuns });
const ran = (name: string): void => void toolRuns.set(name, (toolRuns.get(name) ?? 0) + 1);

export type View =
  | { kind: "list"; filter: string | null }
  | { kind: "trace"; traceId: string; mode: "timeline" | "flamegraph"; highlight: string | null };

interface ViewProps<V> {
  view: V;
  setView: (view: View) => void;
}

export function TraceList({ view, setView }: ViewProps<Extract<View, { kind: "list" }>>) {
  const shown = TRACES.filter((t) => view.filter === null || t.spans.some((s) => s.service === view.filter));
  useFrontendTool<{ service: string }>({
    name: "set_filter",
    description: "Show only the traces that have spans of a service.",
    parameters: { type: "object", properties: { service: { type: "string", enum: [...SERVICES] } }, required: ["service"] },
    followUp: false,
    defaultEnabled: true,
    handler: ({ service }) => {
      ran("set_filter");
      setView({ kind: "list", filter: service });
      return { filter: service };
    },
  });
  useFrontendTool<{ trace_id: string }>({
    name: "show_flamegraph",
    description: "Open a trace as a flame graph.",
    parameters: { type: "object", properties: { trace_id: { type: "string", enum: TRACES.map((t) => t.id) } }, required: ["trace_id"] },
    followUp: false,
    defaultEnabled: true,
    handler: ({ trace_id }) => {
      ran("show_flamegraph");
      setView({ kind: "trace", traceId: trace_id, mode: "flamegraph", highlight: null });
      return { shown: trace_id };
    },
  });
  // The same kind of view tool registered the assistant-ui way (model context, `execute`), made
  // fire-and-forget by the provider's `fireAndForget` (App.tsx).
  const openTrace = useMemo(
    () => ({
      toolName: "open_trace",
      type: "frontend" as const,
      description: "Open a trace's timeline.",
      parameters: { type: "object" as const, properties: { trace_id: { type: "string" as const, enum: TRACES.map((t) => t.id) } }, required: ["trace_id"] },
      execute: async ({ trace_id }: { trace_id: string }) => {
        ran("open_trace");
        setView({ kind: "trace", traceId: trace_id, mode: "timeline", highlight: null });
        return { opened: trace_id };
      },
    }),
    [setView],
  );
  useAssistantTool(openTrace);
  return (
    <section id="trace-list">
      <p className="filter">
        {view.filter === null ? "All services" : `Service: ${view.filter}`}
        {view.filter !== null && <button onClick={() => setView({ kind: "list", filter: null })}>clear</button>}
      </p>
      <ul>
        {shown.map((t) => (
          <li key={t.id} data-trace={t.id}>
            <button onClick={() => setView({ kind: "trace", traceId: t.id, mode: "timeline", highlight: null })}>
              {t.id}
            </button>{" "}
            {t.rootService} · {t.spans.length} spans · {durationOf(t)} ms{t.spans.some((s) => s.error) ? " · error" : ""}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function TraceView({ view, setView }: ViewProps<Extract<View, { kind: "trace" }>>) {
  const trace: Trace | undefined = TRACES.find((t) => t.id === view.traceId);
  const spans = trace?.spans ?? [];
  useFrontendTool<{ span_id: string }>({
    name: "highlight_span",
    description: `Highlight a span of trace ${view.traceId} on its timeline: ${spans.map((s) => `${s.id} (${s.service} ${s.operation}, ${s.durationMs} ms)`).join(", ")}.`,
    parameters: { type: "object", properties: { span_id: { type: "string", enum: spans.map((s) => s.id) } }, required: ["span_id"] },
    followUp: false,
    defaultEnabled: true,
    handler: ({ span_id }) => {
      ran("highlight_span");
      setView({ ...view, mode: "timeline", highlight: span_id });
      return { highlighted: span_id };
    },
  });
  useFrontendTool<{ trace_id: string }>({
    name: "show_flamegraph",
    description: "Show this trace as a flame graph.",
    parameters: { type: "object", properties: { trace_id: { type: "string", enum: [view.traceId] } }, required: ["trace_id"] },
    followUp: false,
    defaultEnabled: true,
    handler: ({ trace_id }) => {
      ran("show_flamegraph");
      setView({ ...view, traceId: trace_id, mode: "flamegraph" });
      return { shown: trace_id };
    },
  });
  if (trace === undefined) return <p>No trace {view.traceId}</p>;
  const total = durationOf(trace);
  return (
    <section id="trace-view" data-trace={trace.id} data-mode={view.mode}>
      <h2>
        {trace.id} <small>{total} ms</small>
      </h2>
      <div className={view.mode === "flamegraph" ? "flamegraph" : "timeline"}>
        {spans.map((s) => (
          <div
            key={s.id}
            className={`span${s.id === view.highlight ? " highlighted" : ""}${s.error ? " error" : ""}`}
            data-span={s.id}
            style={{ paddingLeft: `${s.depth}em` }}
          >
            <span className="label">
              {s.service} {s.operation}
            </span>
            <span className="track">
              <span className="bar" style={{ left: `${(100 * s.startMs) / total}%`, width: `${Math.max(0.5, (100 * s.durationMs) / total)}%` }} />
            </span>
            <span className="duration">{s.durationMs} ms</span>
          </div>
        ))}
      </div>
    </section>
  );
}
