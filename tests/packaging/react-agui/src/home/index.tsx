import { useSyncExternalStore, type ReactNode } from "react";

import * as auth from "../auth";
import { preloadChat } from "../chat/runtime";

/** The home page: no chat on it, so nothing of chat-runtime is loaded until the user heads to one. */
export function HomePage(): ReactNode {
	return (
		<div id="home">
			<h2>Welcome</h2>
			<p>
				<a
					id="new-chat"
					href="#/chat"
					onPointerEnter={preloadChat}
					onFocus={preloadChat}
				>
					New chat
				</a>
			</p>
		</div>
	);
}

/** The signed-in state, with a way to sign out (what an expired session looks like to the app). */
export function UserMenu(): ReactNode {
	const token = useSyncExternalStore(auth.subscribe, auth.getToken);
	return token === null ? (
		<button type="button" id="sign-in" onClick={auth.signIn}>
			Sign in
		</button>
	) : (
		<button type="button" id="sign-out" onClick={auth.signOut}>
			Sign out
		</button>
	);
}
