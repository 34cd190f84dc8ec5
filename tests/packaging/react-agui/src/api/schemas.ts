// The server's JSON, checked with @ag-ui/core's zod schemas (0.0.x keeps them in the package's
// root). tests/packaging/react-agui.test.mjs replaces this one file with agui-1/schemas.ts when it
// runs the app against @ag-ui/core 1.0.0, which moved them to `@ag-ui/core/schemas` (zod 4).
import * as agui from "@ag-ui/core";
import * as z from "zod";

/** A thread's messages as the server stores them: AG-UI messages (the app's model). */
export function parseMessages(json: unknown): agui.Message[] {
	return z.array(agui.MessageSchema).parse(json);
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
					capabilities: agui.AgentCapabilitiesSchema.optional(),
				}),
			),
		})
		.parse(json).agents;
}
