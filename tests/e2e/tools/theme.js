// Fire-and-forget (followUp: false): changes the page's theme.
import { countImport, log } from "./counter.js";

countImport(import.meta.url);

export function setTheme(args) {
  log(`tool:set_theme:${args.theme}`);
  document.body.dataset.theme = args.theme;
  return { theme: args.theme };
}
