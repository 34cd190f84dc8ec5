import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { ChatRuntimeOptions } from "chat-runtime";
import { ChatRuntimeProvider } from "chat-runtime/react";
import { StrictMode, type ReactNode } from "react";
import { createRoot } from "react-dom/client";

import { prepareRequest } from "./api";
import * as auth from "./auth";
import { ChatPage } from "./chat";
import { HomePage, UserMenu } from "./home";
import { MessagesFeed } from "./queries/threads";
import { useRoute } from "./router";

import "./main.css";

// The singleton query client.
const client = new QueryClient();

// `?toolTimeoutMs=` shortens the deadline of tools that keep the default (the end-to-end test
// shows that the approval tool has none).
const toolTimeoutMs = Number(new URLSearchParams(location.search).get("toolTimeoutMs") ?? "30000");

// Read once, when the first chat needs the runtime.
const options: ChatRuntimeOptions = {
  runUrl: "/api/threads/{threadId}/runs",
  toolsUrl: "/tools.json",
  fetch: auth.fetch,
  prepareRequest,
  toolTimeoutMs,
};

// The login flow (a real app redirects to its identity provider when there is no session).
if (auth.getToken() === null) {
  auth.signIn();
}

function App(): ReactNode {
  const route = useRoute();
  return (
    <div className="app">
      <nav>
        <a href="#/">Home</a> <UserMenu />
      </nav>
      {route.page === "chat" ? <ChatPage threadId={route.threadId} /> : <HomePage />}
    </div>
  );
}

const root = document.getElementById("root");
if (root === null) {
  throw new Error("#root is missing");
}

createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={client}>
      <ChatRuntimeProvider options={options}>
        <MessagesFeed />
        <App />
      </ChatRuntimeProvider>
    </QueryClientProvider>
  </StrictMode>,
);
