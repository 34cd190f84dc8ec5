// The app's routes, in the URL's hash (a static server serves every page):
//   #/               home (no chat on it: the wasm is not loaded)
//   #/chat           a new chat (no thread yet)
//   #/chat/{id}      a thread
import { useSyncExternalStore } from "react";

/** A parsed route. */
export type Route =
	| { readonly page: "home" }
	| { readonly page: "chat"; readonly threadId: string | null };

function parse(hash: string): Route {
	const path = hash.replace(/^#/, "");
	if (path === "/chat") return { page: "chat", threadId: null };
	const thread = /^\/chat\/(.+)$/.exec(path);
	if (thread) return { page: "chat", threadId: decodeURIComponent(thread[1]) };
	return { page: "home" };
}

function subscribe(listener: () => void): () => void {
	window.addEventListener("hashchange", listener);
	return () => window.removeEventListener("hashchange", listener);
}

/** The current hash, read as a string (stable between changes). */
function getHash(): string {
	return location.hash;
}

/** The current route. */
export function useRoute(): Route {
	const hash = useSyncExternalStore(subscribe, getHash);
	return parse(hash);
}

/** The URL of a thread's page. */
export function threadPath(threadId: string): string {
	return `#/chat/${encodeURIComponent(threadId)}`;
}

/** Goes to a route (`#/...`). */
export function navigate(hash: string): void {
	location.hash = hash;
}
