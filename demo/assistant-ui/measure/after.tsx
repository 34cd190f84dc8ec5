// After: the same panel on chat-runtime (docs/assistant-ui.md, "The switch"; react-ag-ui.mjs).
import { useMemo, type ReactNode } from "react";
import { createRoot } from "react-dom/client";
import { ChatRuntimeAssistantProvider } from "chat-runtime/assistant-ui";
import { Panel } from "./panel";

function Provider({ children }: { children: ReactNode }) {
  const options = useMemo(() => ({ runUrl: "/api/ai/chat", toolsUrl: null }), []);
  return <ChatRuntimeAssistantProvider options={options} showThinking onError={(e) => console.error(e)}>{children}</ChatRuntimeAssistantProvider>;
}
createRoot(document.getElementById("root")!).render(<Provider><Panel /></Provider>);
