// Prints raw / gzip / brotli sizes of what the package ships, for each of its two builds: the
// AG-UI build (pkg/: `chat-runtime`) and the build with the Coder backend too (pkg/coder/:
// `chat-runtime/coder`). A build is its .wasm and its JS glue (the generated chat_runtime.js and the
// snippets it imports, snippets/**: wasm-bindgen's inline_js and js modules, which ship and load
// with it; the Coder build imports the AG-UI build's snippets, so they count in both).
//
//   --budget BYTES        fail when the AG-UI build's gzip total is over it (make test-size)
//   --coder-budget BYTES  the same for the Coder build
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { gzipSync, brotliCompressSync, constants } from "node:zlib";

const snippets = readdirSync("pkg/snippets", { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith(".js"))
  .map((entry) => `${entry.parentPath ?? entry.path}/${entry.name}`)
  .sort();
const builds = [
  { name: "chat-runtime (AG-UI)", flag: "--budget", files: ["pkg/chat_runtime_bg.wasm", "pkg/chat_runtime.js", ...snippets] },
];
if (existsSync("pkg/coder/chat_runtime.js")) {
  builds.push({
    name: "chat-runtime/coder (AG-UI + Coder)",
    flag: "--coder-budget",
    files: ["pkg/coder/chat_runtime_bg.wasm", "pkg/coder/chat_runtime.js", ...snippets],
  });
}
const kb = (n) => `${(n / 1024).toFixed(1).padStart(7)} KiB`;
let failed = false;
const report = {};
for (const build of builds) {
  let total = { raw: 0, gzip: 0, brotli: 0 };
  console.log(`\n${build.name}`);
  console.log(`${"file".padEnd(60)} ${"raw".padStart(11)} ${"gzip -9".padStart(11)} ${"brotli".padStart(11)}`);
  for (const file of build.files) {
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
  if (build.flag === "--budget") Object.assign(report, total);
  else report.coder = total;
  const at = process.argv.indexOf(build.flag);
  if (at >= 0) {
    const budget = Number(process.argv[at + 1]);
    if (!Number.isInteger(budget) || budget <= 0) throw new Error(`${build.flag} needs a positive number of bytes`);
    if (total.gzip > budget) {
      console.error(`size budget exceeded (${build.name}): ${total.gzip} bytes gzip > ${budget}`);
      failed = true;
    } else {
      console.log(`size budget (${build.name}): ${total.gzip} <= ${budget} bytes gzip`);
    }
  }
}
if (process.argv.includes("--coder-budget") && builds.length < 2) {
  console.error("size budget: pkg/coder/ is missing (make build builds both)");
  failed = true;
}
// The figures the docs quote (scripts/doc-sizes.mjs writes them there; a packaging test compares):
// the AG-UI build's at the top level (what an app that imports `chat-runtime` ships), the Coder
// build's under `coder`.
mkdirSync("target", { recursive: true });
writeFileSync("target/size.json", `${JSON.stringify(report)}\n`);
if (failed) process.exit(1);
