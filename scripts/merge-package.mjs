// Finishes pkg/ after wasm-pack: merges pkg-template/package.json over the package.json wasm-pack
// wrote (template fields win; wasm-pack's `version`, from Cargo.toml, is kept unless the template
// sets one), writes the npm README (scripts/npm-readme.mjs: made from README.md and docs/), copies
// CHANGELOG.md, compiles the React adapter (react/src/*.ts,
// `tsc -p react`: the ES modules react.js and apply-messages.js with their generated .d.ts), writes
// the declaration of the `./package.json` export, re-exports the `ChatRuntimeError` class and
// `applyMessages` from the entry (below), and checks that every `files` entry, `bin` and `exports`
// target exists, so `npm pack` can never ship a package that points at nothing.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync, existsSync, copyFileSync, cpSync, mkdirSync, readdirSync, rmSync } from "node:fs";

import { npmReadme } from "./npm-readme.mjs";

const generated = JSON.parse(readFileSync("pkg/package.json", "utf8"));
const template = JSON.parse(readFileSync("pkg-template/package.json", "utf8"));
const merged = { ...generated, ...template, version: template.version ?? generated.version };
writeFileSync("pkg/package.json", JSON.stringify(merged, null, 2) + "\n");

writeFileSync("pkg/README.md", npmReadme("."));
copyFileSync("CHANGELOG.md", "pkg/CHANGELOG.md");
// templates/: what the README tells an app to copy, at node_modules/chat-runtime/templates/
// (deploy/README.md): the tools template without its build output or installs (nor its .gitignore, which npm
// never packs: the README gives its line), the nginx server block, and deploy/helm/: the chart (its
// files/nginx.conf link copied as the file it points at), its example values and the snippets for
// an existing chart.
rmSync("pkg/templates", { recursive: true, force: true });
cpSync("deploy/tools-template", "pkg/templates/tools-template", {
  recursive: true,
  filter: (src) => !/(^|\/)(node_modules|dist|\.gitignore)$/.test(src) && !/\/public\/tools\/[^/]*\.js$/.test(src),
});
copyFileSync("deploy/nginx.conf", "pkg/templates/nginx.conf");
cpSync("deploy/helm", "pkg/templates/helm", { recursive: true, dereference: true });
// The crate is MIT OR Apache-2.0: both texts ship, whatever wasm-pack copied.
for (const file of ["LICENSE-MIT", "LICENSE-APACHE"]) copyFileSync(file, `pkg/${file}`);
// `npx chat-runtime check-tools <dir>` (bin/chat-runtime.js), run on the package's own wasm.
rmSync("pkg/bin", { recursive: true, force: true });
cpSync("pkg-template/bin", "pkg/bin", { recursive: true });
// The command's one dependency, es-module-lexer (MIT), ships inside bin/ (one self-contained ES
// module, no import of its own, with its license), so the package has no dependencies and an app's
// `npm ls --omit=dev` lists chat-runtime alone. Pinned by the repository's devDependencies.
mkdirSync("pkg/bin/vendor", { recursive: true });
const lexer = readFileSync("node_modules/es-module-lexer/dist/lexer.js", "utf8");
if (/^\s*import\s|\brequire\(/m.test(lexer)) {
  console.error("merge-package: es-module-lexer's dist/lexer.js imports something: it cannot ship alone in bin/vendor/");
  process.exit(1);
}
writeFileSync("pkg/bin/vendor/es-module-lexer.js", lexer);
copyFileSync("node_modules/es-module-lexer/LICENSE", "pkg/bin/vendor/es-module-lexer.LICENSE");

// The React adapter, strict TypeScript compiled against the glue's declarations (react/tsconfig.json
// resolves `./chat_runtime.js` to pkg/chat_runtime.d.ts). The TypeScript of node_modules.
// Its outputs go first: a second run of this script (the entry already re-exports apply-messages.js)
// would otherwise read last run's apply-messages.d.ts as an input.
const adapterModules = ["react", "init", "errors", "store", "thread-store", "toggle-store", "state-store", "host", "provider", "hooks", "apply-messages", "agui-v0", "sync-messages", "assistant-ui"];
for (const file of adapterModules.flatMap((m) => [`${m}.js`, `${m}.d.ts`])) rmSync(`pkg/${file}`, { force: true });
execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "react"], { stdio: "inherit" });
// A JSON file's module is its value, as for CommonJS' `module.exports =`: so `export =` in a `.d.cts`
// (an `export default` declaration claims a `.default` a `require` would not find, and
// arethetypeswrong reports it). `import pkg from ...` still types `pkg` as the object.
rmSync("pkg/package.json.d.ts", { force: true });
writeFileSync(
  "pkg/package.json.d.cts",
  `// The package's own package.json (\`import pkg from "chat-runtime/package.json" with { type: "json" }\`).
declare const pkg: {
  name: ${JSON.stringify(merged.name)};
  version: string;
  description: string;
  [field: string]: unknown;
};
export = pkg;
`,
);

// `ChatRuntimeError` (js/error.js) is imported by the wasm glue, which wasm-bindgen copies to
// pkg/snippets/<crate>-<hash>/js/error.js; the entry re-exports that very module, so the class an app
// imports is the one the runtime throws (`instanceof` holds). The declaration is in src/wasm/types.d.ts.
// The Coder build (pkg/coder/, the `coder` feature) is finished the same way, its glue pointed at
// pkg/snippets/ (the same files, checked byte for byte): both builds throw the one class, and a Coder
// app that imports `ChatRuntimeError` from `chat-runtime` gets the class `chat-runtime/coder` throws.
const fail = (message) => {
  console.error(`merge-package: ${message}`);
  process.exit(1);
};
if (existsSync("pkg/coder/snippets")) {
  const glue = readFileSync("pkg/coder/chat_runtime.js", "utf8");
  const used = [...glue.matchAll(/from ['"]\.\/snippets\/([^'"]+)['"]/g)].map((m) => m[1]);
  for (const file of used) {
    const ours = `pkg/coder/snippets/${file}`;
    const theirs = `pkg/snippets/${file}`;
    if (!existsSync(theirs) || !readFileSync(ours).equals(readFileSync(theirs))) {
      fail(`the Coder build's snippet ${file} is not the AG-UI build's (pkg/snippets/${file}): the two builds would throw different ChatRuntimeError classes`);
    }
  }
  writeFileSync("pkg/coder/chat_runtime.js", glue.replace(/from (['"])\.\/snippets\//g, "from $1../snippets/"));
  rmSync("pkg/coder/snippets", { recursive: true, force: true });
}
for (const dir of ["pkg", "pkg/coder"]) {
  if (dir === "pkg/coder" && !existsSync("pkg/coder/chat_runtime.js")) fail("pkg/coder/ is missing: `make pkg` builds both builds");
  const up = dir === "pkg" ? "./" : "../";
  const found = readdirSync("pkg/snippets", { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(`pkg/snippets/${d.name}/js/error.js`))
    .map((d) => `${up}snippets/${d.name}/js/error.js`);
  if (found.length !== 1) {
    fail(`expected exactly one pkg/snippets/*/js/error.js, found ${found.length}: ${found.join(", ") || "none"} (a stale pkg/? rm -rf pkg and build again)`);
  }
  const [snippet] = found;
  const glue = readFileSync(`${dir}/chat_runtime.js`, "utf8");
  const escaped = snippet.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  if (!new RegExp(`^import \\{[^}]*\\bChatRuntimeError\\b[^}]*\\} from ['"]${escaped}['"]`, "m").test(glue)) {
    fail(`${dir}/chat_runtime.js does not import ChatRuntimeError from ${snippet}: re-exporting it would give apps another class`);
  }
  const line = `export { ChatRuntimeError } from "${snippet}";`;
  // `applyMessages` (react/src/apply-messages.ts, compiled above): the merge-by-id of the React
  // adapter, for apps that keep their own message store. The very module chat-runtime/react uses.
  // `toAguiV0Message` and `syncMessages` (react/src/agui-v0.ts, sync-messages.ts): the 0.0.x mapping
  // and the feed of an app's own store, pure JS like applyMessages.
  const applyLine = `export { applyMessages } from "${up}apply-messages.js";`;
  const glueLines = [`export { toAguiV0Message } from "${up}agui-v0.js";`, `export { syncMessages } from "${up}sync-messages.js";`];
  // `free()` stops the runtime and keeps the object (`__free`, src/wasm/class.rs): every method then
  // throws a `ChatRuntimeError` (`runtime/freed`) instead of wasm-bindgen's "null pointer passed to
  // rust"; the memory is released when the object is collected (the glue's FinalizationRegistry).
  const generatedFree = `    free() {
        const ptr = this.__destroy_into_raw();
        wasm.__wbg_chatruntime_free(ptr, 0);
    }`;
  const ourFree = `    free() {
        this.__free();
    }`;
  let patched = glue;
  if (!glue.includes(ourFree)) {
    if (!glue.includes(generatedFree)) fail(`${dir}/chat_runtime.js has no \`free()\` of the shape wasm-bindgen 0.2.130 writes: update the patch in scripts/merge-package.mjs`);
    patched = glue.replace(generatedFree, ourFree);
  }
  if (!/^    __free\(\) \{$/m.test(patched)) fail(`${dir}/chat_runtime.js has no \`__free()\` method (src/wasm/class.rs)`);
  let entry = patched.trimEnd();
  for (const l of [line, applyLine, ...glueLines]) if (!entry.includes(l)) entry += `\n${l}`;
  writeFileSync(`${dir}/chat_runtime.js`, `${entry}\n`);
  const types = readFileSync(`${dir}/chat_runtime.d.ts`, "utf8");
  if (!/^export class ChatRuntimeError extends Error \{/m.test(types)) {
    fail(`${dir}/chat_runtime.d.ts does not declare \`export class ChatRuntimeError extends Error\` (src/wasm/types.d.ts)`);
  }
  const typeLines = [
    `export { applyMessages, type HasId } from "${up}apply-messages.js";`,
    `export { toAguiV0Message, type AguiV0ContentPart, type AguiV0Message } from "${up}agui-v0.js";`,
    `export { syncMessages, type MessagesUpdate, type SyncMessages } from "${up}sync-messages.js";`,
  ];
  let declared = types.trimEnd();
  for (const l of typeLines) if (!declared.includes(l)) declared += `\n${l}`;
  if (declared !== types.trimEnd()) writeFileSync(`${dir}/chat_runtime.d.ts`, `${declared}\n`);
}

const missing = [];
for (const entry of merged.files) if (!existsSync(`pkg/${entry}`)) missing.push(`files: ${entry}`);
for (const [command, target] of Object.entries(merged.bin ?? {})) if (!existsSync(`pkg/${target}`)) missing.push(`bin["${command}"]: ${target}`);
for (const [subpath, target] of Object.entries(merged.exports)) {
  const targets = typeof target === "string" ? [target] : Object.values(target);
  for (const t of targets) if (!existsSync(`pkg/${t}`)) missing.push(`exports["${subpath}"]: ${t}`);
}
if (missing.length) {
  console.error(`pkg/ is incomplete:\n  ${missing.join("\n  ")}`);
  process.exit(1);
}
console.log(`pkg/package.json: ${merged.name}@${merged.version}`);
