// Handlers that throw values which are hard to describe.
import { log } from "../counter.js";

/** Every trap throws: `instanceof`, property reads, `String()`, `JSON.stringify` all throw. */
function hostileProxy() {
  const trap = () => {
    throw new Error("a trap was touched");
  };
  return new Proxy({}, {
    get: trap, has: trap, ownKeys: trap, getPrototypeOf: trap, getOwnPropertyDescriptor: trap,
    apply: trap, construct: trap, defineProperty: trap, set: trap, deleteProperty: trap,
  });
}

export function throwsProxy() {
  log("tool:throwsProxy");
  throw hostileProxy();
}

export function rejectsProxy() {
  log("tool:rejectsProxy");
  return Promise.reject(hostileProxy());
}

export function throwsBadName() {
  log("tool:throwsBadName");
  const error = new Error("the message is readable");
  Object.defineProperty(error, "name", { get() { throw new Error("no name for you"); } });
  throw error;
}

export function throwsValue(args) {
  log(`tool:throwsValue ${args.kind}`);
  const values = { null: null, undefined: undefined, symbol: Symbol("x"), number: 42, bigint: 12n, object: { why: "no" } };
  throw values[args.kind];
}

export function returnsHuge(args) {
  log("tool:returnsHuge");
  return "x".repeat(args.mib * 1024 * 1024);
}
