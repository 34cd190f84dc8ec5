// Prints raw / gzip / brotli sizes of what the package ships: the .wasm and the JS glue (the
// generated chat_runtime.js and the snippets it imports, pkg/snippets/**: wasm-bindgen's inline_js
// and js modules, which ship and load with it).
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { gzipSync, brotliCompressSync, constants } from "node:zlib";

const snippets = readdirSync("pkg/snippets", { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith(".js"))
  .map((entry) => `${entry.parentPath ?? entry.path}/${entry.name}`)
  .sort();
const files = ["pkg/chat_runtime_bg.wasm", "pkg/chat_runtime.js", ...snippets];
const kb = (n) => `${(n / 1024).toFixed(1).padStart(7)} KiB`;
let total = { raw: 0, gzip: 0, brotli: 0 };
console.log(`${"file".padEnd(60)} ${"raw".padStart(11)} ${"gzip -9".padStart(11)} ${"brotli".padStart(11)}`);
for (const file of files) {
  const bytes = readFileSync(file);
  const raw = bytes.length;
  const gzip = gzipSync(bytes, { level: 9 }).length;
  const brotli = brotliCompressSync(bytes, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11 },
  }).length;
  total = { raw: total.raw + raw, gzip: total.gzip + gzip, brotli: total.brotli + brotli };
  console.log(`${file.padEnd(60)} ${kb(raw)} ${kb(gzip)} ${kb(brotli)}`);
}
console.log(`${"total".padEnd(60)} ${kb(total.raw)} ${kb(total.gzip)} ${kb(total.brotli)}`);
console.log(`(bytes: raw ${total.raw}, gzip ${total.gzip}, brotli ${total.brotli})`);
// The figures the docs quote (scripts/doc-sizes.mjs writes them there; a packaging test compares).
mkdirSync("target", { recursive: true });
writeFileSync("target/size.json", `${JSON.stringify(total)}\n`);

// `--budget BYTES`: fail when the gzip total is over it (make test-size).
const flag = process.argv.indexOf("--budget");
if (flag >= 0) {
  const budget = Number(process.argv[flag + 1]);
  if (!Number.isInteger(budget) || budget <= 0) throw new Error("--budget needs a positive number of bytes");
  if (total.gzip > budget) {
    console.error(`size budget exceeded: ${total.gzip} bytes gzip > ${budget}`);
    process.exit(1);
  }
  console.log(`size budget: ${total.gzip} <= ${budget} bytes gzip`);
}
