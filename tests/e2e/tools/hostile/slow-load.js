// A destructive tool whose module takes 800 ms to load (a top-level await).
import { log } from "../counter.js";

log("load:slow-load:start");
await new Promise((done) => setTimeout(done, 800));
log("load:slow-load:end");

export function deleteEverything(args, ctx) {
  log(`tool:deleteEverything aborted=${ctx.signal.aborted}`);
  return "deleted";
}
