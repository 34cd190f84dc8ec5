import * as auth from "../auth";
import { parseAgents } from "./schemas";

/** One agent of `GET /api/agents`. */
export type Agent = ReturnType<typeof parseAgents>[number];

/** Fetches the agents. */
export async function getAgents(): Promise<readonly Agent[]> {
	const resp = await auth.fetch("/api/agents");
	return parseAgents(await resp.json());
}
