// A module whose top-level await never settles: the import never finishes.
import { log } from "../counter.js";

log("load:never-loads:start");
await new Promise(() => {});

export function run() {
  log("tool:never-loads");
  return "unreachable";
}
