// Resolves after 2 s unless ctx.signal aborts it first; records both.
import { countImport, log } from "./counter.js";

countImport(import.meta.url);

export function slow(args, ctx) {
  log("tool:slow");
  const record = (globalThis.__slow = { started: true, aborted: false, finished: false });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      record.finished = true;
      resolve("slow done");
    }, 2000);
    ctx.signal.addEventListener("abort", () => {
      record.aborted = true;
      clearTimeout(timer);
      reject(ctx.signal.reason);
    });
  });
}
