import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode, type ReactNode } from "react";
import { createRoot } from "react-dom/client";

import * as auth from "./auth";
import { ChatPage } from "./chat";
import { ApprovalsRoot } from "./chat/approvals";
import { ChatRuntimeRoot } from "./chat/runtime";
import { HomePage, UserMenu } from "./home";
import { useRoute } from "./router";

import "./main.css";

// The singleton query client.
const client = new QueryClient();

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
			{route.page === "chat" ? (
				<ChatPage threadId={route.threadId} />
			) : (
				<HomePage />
			)}
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
			<ChatRuntimeRoot>
				<ApprovalsRoot>
					<App />
				</ApprovalsRoot>
			</ChatRuntimeRoot>
		</QueryClientProvider>
	</StrictMode>,
);
