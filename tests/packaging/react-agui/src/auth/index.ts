// The app's authentication, as an app behind a login (Keycloak, say) has it: a bearer token and a
// `fetch` that adds it. Every request of the app goes through `fetch` below, chat-runtime's too (its
// `fetch` option), so a missing or expired token and a 401 from the server reach the chat as the
// `FetchError` this module throws.

// The browser's fetch, kept before anything can wrap it.
const nativeFetch = window.fetch.bind(window);

/** A failed request: carries the HTTP status so callers classify it without parsing a message. */
export class FetchError extends Error {
	/** The HTTP status (401 for a missing or expired token). */
	readonly status: number;

	/** The HTTP status text. */
	readonly statusText: string;

	constructor(status: number, statusText: string) {
		super(`Fetch failure: ${status} ${statusText}`);
		this.name = "FetchError";
		this.status = status;
		this.statusText = statusText;
	}
}

// Where the token is kept (a login flow would put it there).
const TOKEN_KEY = "auth:token";

// Components that show the signed-in state.
const listeners = new Set<() => void>();

/** The current token, or `null` when signed out (or the session expired). */
export function getToken(): string | null {
	return localStorage.getItem(TOKEN_KEY);
}

/** Signs in (here: a fresh token; a real app redirects to its identity provider). */
export function signIn(): void {
	localStorage.setItem(TOKEN_KEY, `token-${crypto.randomUUID()}`);
	listeners.forEach((listener) => listener());
}

/** Signs out: the next request fails with a 401 `FetchError`, as with an expired token. */
export function signOut(): void {
	localStorage.removeItem(TOKEN_KEY);
	listeners.forEach((listener) => listener());
}

/** Subscribes to sign-in changes (for `useSyncExternalStore`). */
export function subscribe(listener: () => void): () => void {
	listeners.add(listener);
	return () => listeners.delete(listener);
}

/**
 * A fetch that adds the bearer token and throws for what is not a success: `FetchError(401)`
 * before sending anything when there is no token, `FetchError(status)` for an answer that is not
 * ok. Called as `fetch(url, init)`, which is how chat-runtime calls its `fetch` option.
 */
export async function fetch(
	url: string,
	init: RequestInit = {},
): Promise<Response> {
	// No token (signed out, or the refresh failed): the request would be refused anyway.
	const token = getToken();
	if (token === null) {
		throw new FetchError(401, "Unauthorized");
	}

	// Copy the caller's headers and add ours.
	const headers = new Headers(init.headers);
	headers.set("Authorization", `Bearer ${token}`);

	// Send, and turn a failed answer into an error.
	const resp = await nativeFetch(url, { ...init, headers });
	if (!resp.ok) {
		throw new FetchError(resp.status, resp.statusText);
	}
	return resp;
}
