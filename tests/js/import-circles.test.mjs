// scripts/import-circles.mjs (run by `make check`) on temporary trees: it names each import circle
// among src/'s Rust files and react/src/'s TypeScript files, with the names that tie it, and exits
// 1; it passes a tree whose imports run one way.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { expandUse, stripRust } from "../../scripts/import-circles.mjs";

const script = fileURLToPath(new URL("../../scripts/import-circles.mjs", import.meta.url));

/** Runs the script on a temporary tree holding `files` (path -> text). */
function check(files) {
  const root = mkdtempSync(join(tmpdir(), "import-circles-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return spawnSync(process.execPath, [script, "--root", root], { encoding: "utf8" });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test("two Rust siblings that use each other are a circle, named with what ties them", () => {
  const r = check({
    "src/lib.rs": "mod a;\nmod b;\n",
    "src/a.rs": "use crate::b::B;\npub struct A(B);\n",
    "src/b.rs": "use super::a::{A as Other};\npub struct B;\nfn f(_: Other) {}\n",
  });
  assert.equal(r.status, 1, r.stdout);
  assert.match(r.stdout, /import circle of 2 files: src\/a\.rs, src\/b\.rs/);
  assert.match(r.stdout, /src\/a\.rs -> src\/b\.rs: B/);
  assert.match(r.stdout, /src\/b\.rs -> src\/a\.rs: A/);
});

test("a path inline in code counts (`super::x::f()`), one in a comment or a string does not", () => {
  const circle = check({
    "src/lib.rs": "mod w;\n",
    "src/w/mod.rs": "mod browser;\nmod string;\n",
    "src/w/browser.rs": "use super::string::js;\npub fn parse() {}\n",
    "src/w/string.rs": "pub fn js() { super::browser::parse() }\n",
  });
  assert.equal(circle.status, 1, circle.stdout);
  assert.match(circle.stdout, /src\/w\/string\.rs -> src\/w\/browser\.rs: parse/);
  const quiet = check({
    "src/lib.rs": "mod w;\n",
    "src/w/mod.rs": "mod browser;\nmod string;\n",
    "src/w/browser.rs": "use super::string::js;\npub fn parse() {}\n",
    "src/w/string.rs": '/// [`parse`](super::browser::parse)\npub fn js() -> &\'static str { "super::browser::parse" } /* super::browser::parse */\n',
  });
  assert.equal(quiet.status, 0, quiet.stdout);
});

test("a folder's front and its rooms, re-exports and test modules are no circle", () => {
  const r = check({
    "src/lib.rs": "mod thread;\npub use thread::Thread;\n",
    // The front defines the main type and re-exports its rooms' names.
    "src/thread/mod.rs": "mod fold;\nmod tally;\npub use fold::Folded;\nuse tally::Tally;\npub struct Thread(Tally);\n",
    // A room adds to the front's type, and reaches a sibling through the front's re-export.
    "src/thread/tally.rs": "use super::Thread;\nuse crate::thread::Folded;\npub struct Tally;\nimpl Thread {}\nfn f(_: Folded) {}\n",
    "src/thread/fold.rs": "pub(in crate::thread) struct Folded;\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::thread::tally::Tally;\n}\n",
  });
  assert.equal(r.status, 0, r.stdout);
  assert.match(r.stdout, /none/);
});

test("a path through a front's re-export reaches the file that defines it", () => {
  const r = check({
    "src/lib.rs": "mod json;\nmod lean;\n",
    "src/json/mod.rs": "mod value;\npub use value::Value;\n",
    "src/json/value.rs": "use crate::lean::push;\npub struct Value;\n",
    "src/lean.rs": "pub fn push(_: &crate::json::Value) {}\n",
  });
  assert.equal(r.status, 1, r.stdout);
  assert.match(r.stdout, /src\/json\/value\.rs, src\/lean\.rs/);
  assert.match(r.stdout, /src\/lean\.rs -> src\/json\/value\.rs: Value/);
});

test("TypeScript: a type-only import closes a circle too; a one-way tree passes", () => {
  const circle = check({
    "react/src/host.ts": 'import { Store } from "./store.js";\nexport class Host { s?: Store }\n',
    "react/src/store.ts": 'import type { Host } from "./host.js";\nexport class Store { h?: Host }\n',
  });
  assert.equal(circle.status, 1, circle.stdout);
  assert.match(circle.stdout, /react\/src\/store\.ts -> react\/src\/host\.ts: Host/);
  const oneWay = check({
    "react/src/host.ts": 'import { Store, type StoreHost } from "./store.js";\nexport class Host implements StoreHost { s?: Store }\n',
    "react/src/store.ts": "export interface StoreHost {}\nexport class Store {}\n",
    "react/src/react.ts": 'export { Host } from "./host.js";\nexport * from "./store.js";\n',
  });
  assert.equal(oneWay.status, 0, oneWay.stdout);
});

test("use trees expand to their paths; comments, strings and chars are blanked", () => {
  assert.deepEqual(expandUse("super::{a::{B, c as D}, self, e::*}"), [
    ["super", "a", "B"],
    ["super", "a", "c"],
    ["super"],
    ["super", "e", "*"],
  ]);
  const text = 'let s = "a::b"; // crate::x\nlet c = \'"\'; let r = r#"super::y"#; /* self::z */ crate::ok();';
  const stripped = stripRust(text);
  assert.equal(stripped.length, text.length);
  assert.ok(!/crate::x|super::y|self::z|a::b/.test(stripped), stripped);
  assert.match(stripped, /crate::ok\(\)/);
});
