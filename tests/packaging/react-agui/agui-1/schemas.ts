// src/api/schemas.ts for @ag-ui/core 1.0.0 (tests/packaging/react-agui.test.mjs copies it over the
// 0.0.57 one): the schemas are in `@ag-ui/core/schemas`, written with zod 4.
import type * as agui from "@ag-ui/core";
import { AgentCapabilitiesSchema, MessageSchema } from "@ag-ui/core/schemas";
import * as z from "zod/v4";

/** A thread's messages as the server stores them: AG-UI messages (the app's model). */
export function parseMessages(json: unknown): agui.Message[] {
	return z.array(MessageSchema).parse(json);
}

/** `GET /api/agents`: the agents and what they can do (their own tools among it). */
export function parseAgents(
	json: unknown,
): { name: string; capabilities?: agui.AgentCapabilities | undefined }[] {
	return z
		.object({
			agents: z.array(
				z.object({
					name: z.string(),
					capabilities: AgentCapabilitiesSchema.optional(),
				}),
			),
		})
		.parse(json).agents;
}
