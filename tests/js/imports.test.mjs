// Every JavaScript function the wasm imports either cannot throw or is bound with `catch`, so that
// no exception unwinds through wasm (an unwind skips Rust's destructors: a `RefCell` stays
// borrowed and every later call traps, the instance is dead). wasm-bindgen wraps a `catch` import
// in `handleError(...)`; this test reads the built glue of both builds (pkg/chat_runtime.js and
// pkg/coder/chat_runtime.js, `make build`) and fails on any other import that is not in the list
// below, each with the reason it cannot throw.
// tests/e2e/exceptions.test.mjs makes the ones a page can break throw, one at a time.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

const glues = {
  "chat-runtime": readFileSync(new URL("../../pkg/chat_runtime.js", import.meta.url), "utf8"),
  "chat-runtime/coder": readFileSync(new URL("../../pkg/coder/chat_runtime.js", import.meta.url), "utf8"),
};

/** Imports bound without `catch`, by name (the hash suffix removed), and why each cannot throw. */
const CANNOT_THROW = {
  // wasm-bindgen's own intrinsics: typeof checks, reading numbers and strings out of values, closure
  // bookkeeping, and `throw` (only reached by `unwrap_throw`-style paths, which the crate avoids).
  __wbindgen_is_function: "typeof",
  __wbindgen_is_null: "=== null",
  __wbindgen_is_object: "typeof",
  __wbindgen_is_string: "typeof",
  __wbindgen_is_undefined: "=== undefined",
  __wbindgen_jsval_eq: "===",
  __wbindgen_number_get: "typeof, then the number",
  __wbindgen_string_get: "typeof, then the string",
  __wbindgen_typeof: "typeof",
  __wbindgen_throw: "wasm-bindgen's throw itself (no crate code path reaches it)",
  _wbg_cb_unref: "closure bookkeeping of wasm-bindgen",
  // Globals read with `typeof` first.
  static_accessor_GLOBAL_THIS: "typeof globalThis",
  static_accessor_GLOBAL: "typeof global",
  static_accessor_SELF: "typeof self",
  static_accessor_WINDOW: "typeof window",
  // `instanceof` checks: the glue wraps each in its own try/catch.
  instanceof_AbortSignal: "try/catch in the glue",
  instanceof_Response: "try/catch in the glue",
  instanceof_Uint8Array: "try/catch in the glue",
  instanceof_Window: "try/catch in the glue",
  // The crate's own JavaScript (src/wasm/script.rs), written never to throw.
  describe: "every read inside try/catch",
  dynamicImport: "import() rejects its promise, it does not throw",
  isWellFormed: "a string method on a string",
  // Arrays and objects the runtime made itself (JSON.parse results, new Array, slices of them).
  get: "index read of the runtime's own array",
  length: "length of the runtime's own array, of a string, or of a body chunk (a real Uint8Array)",
  push: "push on the runtime's own array",
  slice: "slice of the runtime's own array",
  new: "new Array() / new Object() / new ChatRuntimeError(...) of the crate's own class over its own details",
  from_values: "new ChatRuntimeError(code, message, details) over a plain error object the crate wrote",
  parseFloat: "Number.parseFloat of a string",
  prototypesetcall: "Uint8Array.prototype.set into wasm memory from a non-empty chunk (an empty or detached one is never copied)",
  // Promises: the executor binding has its own try/catch; these take real promises.
  new_typed: "try/catch in the glue (the Promise executor)",
  resolve: "Promise.resolve: a thenable whose then throws rejects the promise instead",
  reject: "Promise.reject",
  then: "Promise.prototype.then on a real promise (JsFuture)",
  queueMicrotask: "wasm-bindgen-futures' executor (a page without queueMicrotask has no promises either)",
};

/** Each import of a build's glue as `{ name, caught }`. wasm-bindgen names an import
 * `__wbg_<name>_<16 hex digits>`; `make build` drops the hash (`scripts/short-import-names.mjs`)
 * and numbers the names that would clash (`__wbg_new_1`): either suffix is taken off here. */
const SUFFIX = "(?:_[0-9a-f]{16}|_[0-9]+)?";
function imports(glue) {
  const out = [];
  const pattern = new RegExp(
    `^\\s*(__wbg_[A-Za-z0-9_]+?)${SUFFIX}: function\\(\\) \\{ return handleError\\(|^\\s*(__wbg_[A-Za-z0-9_]+?)${SUFFIX}: function\\(`,
    "gm",
  );
  for (const match of glue.matchAll(pattern)) {
    const caught = match[1] !== undefined;
    out.push({ name: (match[1] ?? match[2]).replace(/^__wbg_/, ""), caught });
  }
  return out;
}

for (const [build, glue] of Object.entries(glues)) {
  test(`${build}: the glue's imports are found (the pattern still matches wasm-bindgen's output)`, () => {
    const all = imports(glue);
    assert.ok(all.length > 40, `only ${all.length} imports found`);
    assert.ok(all.some((i) => i.caught), "no handleError-wrapped import found");
    assert.ok(all.some((i) => i.name === "setTimeout" && i.caught), "setTimeout is not among the caught imports");
  });

  test(`${build}: every import that can throw is bound with catch (handleError in the glue)`, () => {
    const unexpected = imports(glue)
      .filter((i) => !i.caught && !(i.name in CANNOT_THROW))
      .map((i) => i.name);
    assert.deepEqual(unexpected, [], "imports bound without catch that are not known to be unable to throw");
  });

  test(`${build}: the APIs a page or an app can break are caught: timers, JSON, storage, fetch, bodies, AbortController, console, clocks`, () => {
    const caught = new Set(imports(glue).filter((i) => i.caught).map((i) => i.name));
    for (const name of ["setTimeout", "clearTimeout", "parse", "stringify", "getItem", "setItem", "call", "abort", "signal", "aborted", "error", "now", "random", "race", "isArray", "text"]) {
      assert.ok(caught.has(name), `${name} is not bound with catch`);
    }
  });
}

test("the Coder stream's WebSocket constructor is bound with catch (a bad URL, a page that replaced WebSocket)", () => {
  // Its other calls (`close`, the `on*` handlers, `type` and `data` of an event) go through
  // Reflect.get / Reflect.set / Function.prototype.call, caught above: no other WebSocket import.
  const glue = glues["chat-runtime/coder"];
  const constructors = [...glue.matchAll(new RegExp(`^\\s*__wbg_[A-Za-z0-9_]+?${SUFFIX}: function\\(\\) \\{ return handleError\\(function \\([^)]*\\) \\{\\s*const ret = new WebSocket\\(`, "gm"))];
  assert.equal(constructors.length, 1, "new WebSocket is not one import bound with catch");
  assert.equal([...glue.matchAll(/WebSocket/g)].length, 1, "another import touches WebSocket");
  assert.equal([...glues["chat-runtime"].matchAll(/WebSocket/g)].length, 0, "the AG-UI build touches WebSocket");
});
