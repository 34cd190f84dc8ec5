// Drops the closure shims nothing can call from a wasm-bindgen output, before `wasm-opt` (make build).
//
//   node scripts/drop-closure-shims.mjs FILE.wasm   (rewrites FILE.wasm in place)
//
// wasm-bindgen 0.2.130 compiles one `invoke` shim per closure *signature* that any described
// import mentions (js-sys and web-sys declare dozens: `Array.forEach`, `Promise.new`, ...). Each
// describe function takes its shim's address, so LLVM puts every shim in the function table;
// wasm-bindgen then runs and removes the describe functions, and the JS glue calls the shims the
// crate really hands to JavaScript through exports of their own
// (`wasm_bindgen__convert__closures_____invoke__h...`), never through the table, which it does not
// export. The other shims stay in the table, and so in the binary, as code nothing can reach. This
// script puts one trapping function in their table slots (the slots keep their indices: Rust's
// vtables name other slots by number), so `wasm-opt` removes their code. A shim some export calls is
// left where it is. It prints what it did; it fails when the module has no names (wasm-bindgen
// keeps them; `wasm-opt` drops them afterwards) or no shim is found, so a change of wasm-bindgen
// that moves them shows up here rather than as bytes quietly kept. docs/numbers.md, "Two builds".
import { readFileSync, writeFileSync } from "node:fs";
import binaryen from "binaryen";

const file = process.argv[2];
if (!file) throw new Error("usage: node scripts/drop-closure-shims.mjs FILE.wasm");
const module = binaryen.readBinary(readFileSync(file));
// binaryen's default features, which hold the ones the Makefile's WASM_OPT enables.
const SHIM = "wasm_bindgen::convert::closures::_::invoke::";

const exported = new Set();
for (let i = 0; i < module.getNumExports(); i++) {
  exported.add(binaryen.getExportInfo(module.getExportByIndex(i)).name);
}
// A shim the glue calls is exported as `wasm_bindgen__convert__closures_____invoke__<hash>`.
const called = (name) => exported.has(`wasm_bindgen__convert__closures_____invoke__${name.slice(SHIM.length)}`);

const DEAD = "dead_closure_shim";
let dropped = 0;
let kept = 0;
for (let i = 0; i < module.getNumElementSegments(); i++) {
  const info = binaryen.getElementSegmentInfo(module.getElementSegmentByIndex(i));
  if (!info.data.some((name) => name.startsWith(SHIM))) continue;
  if (!module.getFunction(DEAD)) {
    module.addFunction(DEAD, binaryen.none, binaryen.none, [], module.unreachable());
  }
  const data = info.data.map((name) => {
    if (!name.startsWith(SHIM)) return name;
    if (called(name)) {
      kept++;
      return name;
    }
    dropped++;
    return DEAD;
  });
  // LLVM emits one active segment at a constant offset.
  const at = binaryen.getExpressionInfo(info.offset);
  if (at.id !== binaryen.ConstId) throw new Error(`${file}: element segment ${info.name} is not at a constant offset`);
  const offset = module.i32.const(at.value);
  module.removeElementSegment(info.name);
  module.addActiveElementSegment(info.table, info.name, data, offset);
}
if (dropped + kept === 0) {
  throw new Error(`${file}: no closure shim (${SHIM}*) in the function table: no names, or wasm-bindgen changed`);
}
if (!module.validate()) throw new Error(`${file}: the rewritten module does not validate`);
writeFileSync(file, module.emitBinary());
console.log(`${file}: ${dropped} closure shims nothing calls dropped from the table, ${kept} kept`);
