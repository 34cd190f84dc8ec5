// A module that takes 3 s to load.
import { log } from "../counter.js";

await new Promise((done) => setTimeout(done, 3000));
log("load:load-3s:end");

export function run() {
  log("tool:load-3s");
  return "loaded late";
}
