// set_theme: switches the page between its light and dark theme. Fire-and-forget (`followUp: false`
// in tools.json): it runs as soon as the call arrives and the run goes on without a restart.
import type { ToolHandler } from "chat-runtime";

export type Theme = "dark" | "light";

export interface ThemeArgs {
  theme: Theme;
}

/** Where the choice is remembered, so a reload keeps it (the page reads it at start-up). */
export const THEME_STORAGE_KEY = "chat-runtime-demo:theme";

export const setTheme: ToolHandler<ThemeArgs, { theme: Theme }> = ({ theme }) => {
  if (theme !== "dark" && theme !== "light") {
    throw new Error(`Unknown theme "${String(theme)}": use "dark" or "light".`);
  }
  document.documentElement.dataset.theme = theme;
  try {
    localStorage.setItem(THEME_STORAGE_KEY, theme);
  } catch {
    // Storage may be unavailable (private mode): the theme still changes for this page.
  }
  return { theme };
};
