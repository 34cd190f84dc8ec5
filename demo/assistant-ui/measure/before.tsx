// Before: the Jaeger panel's provider on @assistant-ui/react-ag-ui + @ag-ui/client's HttpAgent (react-ag-ui.mjs).
import { useMemo, type ReactNode } from "react";
import { createRoot } from "react-dom/client";
import { HttpAgent } from "@ag-ui/client";
import { useAgUiRuntime } from "@assistant-ui/react-ag-ui";
import { AssistantRuntimeProvider } from "@assistant-ui/react";
import { Panel } from "./panel";

function Provider({ children }: { children: ReactNode }) {
  const agent = useMemo(() => new HttpAgent({ url: "/api/ai/chat", fetch: (input, init) => fetch(input, init) }), []);
  const runtime = useAgUiRuntime({ agent, showThinking: true, onError: (e) => console.error(e) });
  return <AssistantRuntimeProvider runtime={runtime}>{children}</AssistantRuntimeProvider>;
}
createRoot(document.getElementById("root")!).render(<Provider><Panel /></Provider>);
