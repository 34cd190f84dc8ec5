import { useQuery } from "@tanstack/react-query";
import { useChatRuntime } from "chat-runtime/react";
import { useEffect } from "react";

import { agentsQuery } from "../queries/threads";

/**
 * The agent's own tools (`capabilities.tools` of `GET /api/agents`, `{ items?: Tool[] }` or
 * absent) go to the runtime as they are: listed in the tools menu, locked, always on.
 */
export function useBackendTools(): void {
  const runtime = useChatRuntime();
  const { data: agents } = useQuery(agentsQuery);
  useEffect(() => {
    if (runtime !== null && agents !== undefined) {
      runtime.setBackendTools(agents[0]?.capabilities?.tools);
    }
  }, [runtime, agents]);
}
