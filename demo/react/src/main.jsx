import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { ChatRuntimeProvider } from "chat-runtime/react";
import { App } from "./App.jsx";

// Read once by the provider; everything else goes through the hooks.
const options = { runUrl: "/api/threads/{threadId}/runs", toolsUrl: "/tools/tools.json" };

// One thread per page unless ?thread= names one (the tests give each case its own).
const threadId = new URLSearchParams(location.search).get("thread") ?? `react-${crypto.randomUUID()}`;

createRoot(document.getElementById("root")).render(
  <StrictMode>
    <ChatRuntimeProvider options={options} fallback={<p className="loading">Loading chat-runtime…</p>}>
      <App initialThreadId={threadId} />
    </ChatRuntimeProvider>
  </StrictMode>,
);
