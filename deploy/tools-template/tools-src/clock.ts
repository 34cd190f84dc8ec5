// get_browser_time: what only the browser knows.
import type { ToolHandler } from "chat-runtime";

export const getBrowserTime: ToolHandler<Record<string, never>, { iso: string; timeZone: string }> = () => ({
  iso: new Date().toISOString(),
  timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
});
