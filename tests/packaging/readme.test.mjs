// The npm README (what a user reads on the package's npm page) against the package itself: every
// name its declarations export, with the members and string values of the runtime's own types, and
// every command and option of its command line, is in the tarball's README.md. There is no public
// repository URL to link to, so the README must name them itself. And it is made from the docs, not
// written beside them: the tarball's README is exactly what scripts/npm-readme.mjs makes of
// README.md, docs/api.md, docs/react.md, docs/assistant-ui.md and deploy/README.md today.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { ROOT, tarball } from "./helpers.mjs";

const ts = createRequire(join(ROOT, "package.json"))("typescript");

const temp = mkdtempSync(join(tmpdir(), "chat-runtime-readme-"));
after(() => rmSync(temp, { recursive: true, force: true }));

let unpacked;
let readme;
before(() => {
  const r = spawnSync("tar", ["xzf", tarball(), "-C", temp], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  unpacked = join(temp, "package");
  readme = readFileSync(join(unpacked, "README.md"), "utf8");
});

// Types whose names must be in the README but not their members: AG-UI 1.0's own types (their
// fields are the protocol's, which the AG-UI specification documents), the same messages in
// `@ag-ui/core` 0.0.x's shape (`toAguiV0Message`'s result: 0.0.57's `Message`, which that version
// documents), and wasm-bindgen's `InitOutput` (the wasm module's raw exports, which no app calls).
const NAMES_ONLY = new Set([
  "JsonValue", "JsonObject", "JsonPatchOperation", "ContentPart", "ContentPartInput", "ToolCall", "Message",
  "MessageInput", "ToolSchema", "Context", "RunAgentInput", "TokenUsage", "Interrupt", "RunFinishedOutcome",
  "AgUiEvent", "AgUiEventType", "AguiV0Message", "AguiV0ContentPart", "InitOutput",
]);

/**
 * The names an app can use: each entry point's exports (re-exports followed), and for the runtime's
 * own types their property names and string literal values, through anonymous object types.
 * The declarations of `./chat_runtime_bg.wasm` and `./coder/chat_runtime_bg.wasm` (the modules' raw
 * exports, internal) and of
 * `./package.json` (the file's own fields) are not API.
 */
function publicNames(dir) {
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const entries = Object.entries(pkg.exports)
    .filter(([subpath]) => !subpath.endsWith("chat_runtime_bg.wasm") && subpath !== "./package.json")
    .map(([subpath, target]) => [subpath, join(dir, target.types)]);
  const program = ts.createProgram(entries.map(([, file]) => file), { strict: true, noEmit: true, skipLibCheck: true, lib: ["lib.esnext.full.d.ts"] });
  const checker = program.getTypeChecker();
  const names = new Map(); // name -> where it comes from
  const add = (name, where) => {
    if (!name.startsWith("__@") && !names.has(name)) names.set(name, where);
  };
  const seen = new Set();
  const walk = (type, where, depth) => {
    if (depth > 4 || seen.has(type)) return;
    seen.add(type);
    if (type.isStringLiteral()) return add(type.value, where);
    if (depth > 0 && type.aliasSymbol && NAMES_ONLY.has(type.aliasSymbol.getName())) return;
    if (type.isUnionOrIntersection()) return type.types.forEach((t) => walk(t, where, depth));
    const named = type.aliasSymbol ?? type.getSymbol();
    if (depth > 0 && named && NAMES_ONLY.has(named.getName())) return;
    // Only the package's own object types (not `string`'s methods, `AbortSignal`, React's types).
    if (!(type.flags & ts.TypeFlags.Object) || !named?.declarations?.every((d) => d.getSourceFile().fileName.startsWith(dir))) return;
    for (const property of checker.getPropertiesOfType(type)) {
      add(property.getName(), `${where}.${property.getName()}`);
      const decl = property.valueDeclaration ?? property.declarations?.[0];
      if (!decl) continue;
      const propertyType = checker.getTypeOfSymbolAtLocation(property, decl);
      walk(propertyType, `${where}.${property.getName()}`, depth + 1);
      // A method's options: the object parameters of each signature.
      for (const signature of propertyType.getCallSignatures()) {
        for (const parameter of signature.getParameters()) walk(checker.getTypeOfSymbolAtLocation(parameter, decl), `${where}.${property.getName()}()`, depth + 1);
      }
    }
  };
  for (const [subpath, file] of entries) {
    const source = program.getSourceFile(file);
    assert.ok(source, `${file} is in the program`);
    const module = checker.getSymbolAtLocation(source);
    for (let symbol of checker.getExportsOfModule(module)) {
      const name = symbol.getName();
      add(name, `"${subpath === "." ? "chat-runtime" : `chat-runtime/${subpath.slice(2)}`}" export`);
      if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      if (NAMES_ONLY.has(name)) continue;
      const where = name;
      if (symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class | ts.SymbolFlags.TypeAlias)) {
        walk(checker.getDeclaredTypeOfSymbol(symbol), where, 0);
      }
      if (symbol.flags & ts.SymbolFlags.Function) {
        for (const decl of symbol.declarations ?? []) {
          for (const signature of checker.getTypeOfSymbolAtLocation(symbol, decl).getCallSignatures()) {
            for (const parameter of signature.getParameters()) walk(checker.getTypeOfSymbolAtLocation(parameter, decl), `${where}()`, 1);
          }
        }
      }
    }
  }
  // The command line: each `bin` command's subcommands and options, as its usage text lists them.
  for (const [command, file] of Object.entries(pkg.bin ?? {})) {
    const usage = /const USAGE = `([^`]*)`/.exec(readFileSync(join(dir, file), "utf8"));
    assert.ok(usage, `${file} has a USAGE text`);
    for (const m of usage[1].matchAll(new RegExp(`usage: ${command} ([a-z][a-z-]*)`, "g"))) add(m[1], `${command} command`);
    for (const m of usage[1].matchAll(/(?<![\w-])--[a-z][a-z-]*/g)) add(m[0], `${command} option`);
  }
  return names;
}

const mentions = (text, name) =>
  new RegExp(`(?<![A-Za-z0-9_$-])${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![A-Za-z0-9_$-])`).test(text);

test("the npm README names every export, option, method, field, event type and CLI option of the package", () => {
  const names = publicNames(unpacked);
  for (const expected of ["ChatRuntime", "prepareRequest", "useFrontendTool", "applyMessages", "defaultEnabled", "interrupted", "check-tools", "--allow-origin"]) {
    assert.ok(names.has(expected), `the walk finds ${expected} in the declarations`);
  }
  const missing = [...names].filter(([name]) => !mentions(readme, name)).map(([name, where]) => `${name} (${where})`);
  assert.deepEqual(missing, [], `${missing.length} of ${names.size} public names are not in the npm README`);
});

test("the npm README is made from the docs as they are: README.md, docs/api.md, docs/react.md, docs/assistant-ui.md, deploy/README.md", async () => {
  const { npmReadme, slug } = await import(join(ROOT, "scripts/npm-readme.mjs"));
  assert.equal(readme, npmReadme(ROOT), "package/README.md differs from scripts/npm-readme.mjs's output: `make pack` again");
  // Self-contained: no link into the repository (there is no public URL for one).
  const relative = [...readme.matchAll(/\]\((?!https?:|#)([^)]*)\)/g)].map((m) => m[1]);
  assert.deepEqual(relative, [], "links in the npm README are full URLs or anchors in it");
  // Nor a path of the repository in its text (a test, the demo, a doc that is not on the page): the
  // docs keep those in `<!-- repo -->` spans, which the page leaves out, and deploy/ is templates/.
  const text = readme
    .replace(/```[\s\S]*?```/g, "")
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/\]\(#[^)]*\)/g, "]");
  const repoPath = /(?<![\w@/.~-])(?:(?:tests|scripts|bench|benches|fuzz|demo|pkg-template|react\/src|js)\/[\w./-]*|src\/\w[\w./-]*|docs\/\w+\.md|deploy\/[\w./-]*)/g;
  const paths = text.split("\n").flatMap((line) => [...line.matchAll(repoPath)].map((m) => `${m[0]} in: ${line.trim()}`));
  assert.deepEqual(paths, [], "the npm README names no file of the repository");
  const anchors = new Set([...readme.matchAll(/^#{1,6} (.*)$/gm)].map((m) => slug(m[1])));
  const dangling = [...readme.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]).filter((a) => !anchors.has(a));
  assert.deepEqual(dangling, [], "every anchor names a heading of the page");
});

test("the size figures of the docs are the last build's report (make build writes them; none by hand)", async () => {
  const { DOCS, MARKER, figure } = await import(join(ROOT, "scripts/doc-sizes.mjs"));
  const sizes = JSON.parse(readFileSync(join(ROOT, "target/size.json"), "utf8"));
  // The report of the pkg/ that was packed: the same bytes as the tarball's .wasm and glue.
  assert.ok(Number.isInteger(sizes.gzip) && sizes.gzip > 0, JSON.stringify(sizes));
  assert.ok(Number.isInteger(sizes.coder?.gzip) && sizes.coder.gzip > sizes.gzip, "the Coder build's figures follow the AG-UI build's");
  let quoted = 0;
  for (const doc of DOCS) {
    for (const m of readFileSync(join(ROOT, doc), "utf8").matchAll(MARKER)) {
      quoted++;
      assert.equal(m[4], figure(m[1] ? sizes.coder : sizes, m[2], m[3] !== undefined), `${doc}: ${m[0]}`);
    }
  }
  assert.ok(quoted >= 2, "README.md and docs/react.md quote the size");
  // And the npm README, made from those docs, carries the same figures.
  for (const m of readme.matchAll(MARKER)) assert.equal(m[4], figure(m[1] ? sizes.coder : sizes, m[2], m[3] !== undefined), m[0]);
  // No hand-written gzip figure beside them in the npm README's prose.
  const prose = readme.replace(/```[\s\S]*?```/g, "").replace(MARKER, "");
  assert.doesNotMatch(prose, /\b[\d,.]+ (KiB|KB|bytes)( of)? gzip\b/, "a gzip figure outside a size marker");
});
