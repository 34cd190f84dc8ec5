// Shortens the names the wasm imports from its JS glue, in both files, before `wasm-opt` (make build).
//
//   node scripts/short-import-names.mjs DIR   (rewrites DIR/chat_runtime_bg.wasm and DIR/chat_runtime.js)
//
// wasm-bindgen 0.2.130 names each import `__wbg_<name>_<16 hex digits>` (a hash that keeps imports
// of one name from different crates apart). The name is written twice, in the .wasm's import
// section and as a key of the glue's import object, and 65 hashes of random hex are what gzip
// cannot shrink: about 1.9 KB gzip of the AG-UI build. This script drops the hash where the name
// stays unique and numbers the names that would clash (`__wbg_new_1`, `__wbg_new_2`), in the
// module and in the glue alike: the names are private to the pair, nothing else sees them. It
// fails when a name is not exactly once in the glue (wasm-bindgen changed how it writes them),
// and prints what it did. docs/numbers.md, "Two builds".
//
// The modules the names are imported from get short names too: `./chat_runtime_bg.js` (written
// before each of about 70 imports in the .wasm) and the path of the crate's inline snippet become
// "0" and "1", keys of the object the glue hands to `WebAssembly.instantiate` and nothing else.
// wasm-bindgen imports that snippet once per function (three identical `import * as importN` lines
// and three equal keys, of which JavaScript keeps the last): one line and one key are left. It
// fails when the glue does not have that shape. The closure shims the glue calls lose their hash
// too (`wasm_bindgen__convert__closures_____invoke__h<hash>` -> `..._invoke_1`).
import { readFileSync, writeFileSync } from "node:fs";
import binaryen from "binaryen";

const dir = process.argv[2];
if (!dir) throw new Error("usage: node scripts/short-import-names.mjs DIR");
const wasmFile = `${dir}/chat_runtime_bg.wasm`;
const glueFile = `${dir}/chat_runtime.js`;
const module = binaryen.readBinary(readFileSync(wasmFile));
let glue = readFileSync(glueFile, "utf8");
let dropped = 0;

const HASHED = /^(__wbg_\w+?)_[0-9a-f]{16}$/;
const imports = [];
for (let i = 0; i < module.getNumFunctions(); i++) {
  const info = binaryen.getFunctionInfo(module.getFunctionByIndex(i));
  if (info.module && HASHED.test(info.base)) imports.push(info);
}
if (imports.length === 0) throw new Error(`${wasmFile}: no import named __wbg_*_<hash>: wasm-bindgen changed`);

// New names: the hash dropped; names that would clash numbered in the order of their old names.
const byStem = new Map();
for (const base of [...new Set(imports.map((i) => i.base))].sort()) {
  const stem = HASHED.exec(base)[1];
  byStem.set(stem, [...(byStem.get(stem) ?? []), base]);
}
const renamed = new Map();
for (const [stem, bases] of byStem) {
  bases.forEach((base, n) => renamed.set(base, bases.length === 1 ? stem : `${stem}_${n + 1}`));
}
const taken = new Set(imports.map((i) => i.base));
for (const name of renamed.values()) {
  if (taken.has(name) || new RegExp(`\\b${name}\\b`).test(glue)) throw new Error(`${dir}: the short name ${name} is taken`);
}

for (const [base, name] of renamed) {
  const key = new RegExp(`\\b${base}\\b`, "g");
  const found = glue.match(key)?.length ?? 0;
  if (found !== 1) throw new Error(`${glueFile}: ${base} is there ${found} times, not once: wasm-bindgen changed`);
  glue = glue.replace(key, name);
}
// The closure shims the glue calls, exported as `wasm_bindgen__convert__closures_____invoke__h<16
// hex digits>` (one function of the glue each, named alike, called and defined: three times in the
// glue, once in the .wasm): the hash dropped, numbered in the order of their old names.
const INVOKE = /^(wasm_bindgen__convert__closures_____invoke)__h[0-9a-f]{16}$/;
const invokes = [];
for (let i = 0; i < module.getNumExports(); i++) {
  const info = binaryen.getExportInfo(module.getExportByIndex(i));
  if (INVOKE.test(info.name)) invokes.push(info);
}
invokes.sort((a, b) => (a.name < b.name ? -1 : 1));
invokes.forEach((info, n) => {
  const name = `${INVOKE.exec(info.name)[1]}_${n + 1}`;
  const key = new RegExp(`\\b${info.name}\\b`, "g");
  if (new RegExp(`\\b${name}\\b`).test(glue) || module.getExport(name)) throw new Error(`${dir}: the short name ${name} is taken`);
  if (!key.test(glue)) throw new Error(`${glueFile}: the export ${info.name} is not there: wasm-bindgen changed`);
  glue = glue.replace(key, name);
  module.removeExport(info.name);
  module.addFunctionExport(info.value, name);
});

// The modules: each a short name, in the order of their first import.
const described = WebAssembly.Module.imports(new WebAssembly.Module(readFileSync(wasmFile)));
const notFunction = described.find((i) => i.kind !== "function");
if (notFunction) throw new Error(`${wasmFile}: imports a ${notFunction.kind} (${notFunction.name}): only functions are renamed`);
const modules = new Map();
for (const { module: from } of described) if (!modules.has(from)) modules.set(from, String(modules.size));
glue = shortModules(glue, modules);

// The same function import again under its new name (calls name the function, not the import).
const all = [];
for (let i = 0; i < module.getNumFunctions(); i++) {
  const info = binaryen.getFunctionInfo(module.getFunctionByIndex(i));
  if (info.module) all.push(info);
}
for (const info of all) {
  module.removeFunction(info.name);
  const base = renamed.get(info.base) ?? info.base;
  module.addFunctionImport(info.name, modules.get(info.module), base, info.params, info.results);
}
if (!module.validate()) throw new Error(`${wasmFile}: the rewritten module does not validate`);
writeFileSync(wasmFile, module.emitBinary());
writeFileSync(glueFile, glue);
console.log(
  `${dir}: ${imports.length} imports renamed without their hash (${renamed.size - byStem.size} numbered), ` +
    `${modules.size} modules renamed, ${dropped} repeated snippet imports dropped, ${invokes.length} closure shim exports renamed`,
);

/** The glue with each module's key in the imports object renamed, and each snippet imported once.
 * wasm-bindgen writes `import * as importN from "PATH"` for each function a snippet gives, and
 * `"PATH": importN,` for each in the object. */
function shortModules(text, names) {
  for (const [from, name] of names) {
    const quoted = JSON.stringify(from).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const keys = [...text.matchAll(new RegExp(`^(\\s*)${quoted}: (import\\d+),\n`, "gm"))];
    if (keys.length === 0) throw new Error(`${glueFile}: no key ${JSON.stringify(from)} in the imports object: wasm-bindgen changed`);
    const [first, ...repeated] = keys;
    for (const key of repeated) {
      const line = new RegExp(`^import \\* as ${key[2]} from ${quoted};?\n`, "m");
      if (!line.test(text)) throw new Error(`${glueFile}: ${key[2]} is not imported from ${from}: wasm-bindgen changed`);
      text = text.replace(line, "").replace(key[0], "");
      dropped++;
    }
    text = text.replace(first[0], `${first[1]}"${name}": ${first[2]},\n`);
  }
  return text;
}
