import * as agui from "@ag-ui/core";
import * as z from "zod";

import * as auth from "../auth";

/** `GET /api/agents`: the agents and what they can do (their own tools among it). */
const AgentsSchema = z.object({
  agents: z.array(
    z.object({
      name: z.string(),
      capabilities: agui.AgentCapabilitiesSchema.optional(),
    }),
  ),
});

/** One agent of `GET /api/agents`. */
export type Agent = z.infer<typeof AgentsSchema>["agents"][number];

/** Fetches the agents. */
export async function getAgents(): Promise<readonly Agent[]> {
  const resp = await auth.fetch("/api/agents");
  return AgentsSchema.parse(await resp.json()).agents;
}
