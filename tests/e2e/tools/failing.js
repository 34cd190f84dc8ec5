// Tools that fail in each way a handler can.
import { countImport, log } from "./counter.js";

countImport(import.meta.url);

export function throwsSync() {
  log("tool:throws");
  throw new Error("the handler threw on purpose");
}

export function rejects() {
  log("tool:rejects");
  return Promise.reject(new Error("the handler rejected on purpose"));
}

export function hangs(args, ctx) {
  log("tool:hangs");
  globalThis.__hangs = { started: true, aborted: false };
  ctx.signal.addEventListener("abort", () => {
    globalThis.__hangs.aborted = true;
  });
  return new Promise(() => {});
}

export function bigint() {
  log("tool:bigint");
  return 10n;
}
