// `chat-runtime check-tools <dir>`: checks a tools folder (tools.json and its modules) offline, with
// the runtime's own rules. The manifest goes through the package's wasm exactly as a page loads it
// (`ChatRuntime.loadTools()`, fed the file from disk); what only a browser would find out later, that
// each module file is in the folder and exports its entrypoint, is checked here by reading the
// modules with es-module-lexer, without running them (tool modules may touch `window`).
//
// The folder may come from anyone (a pull request): only regular files are read (a FIFO would block
// the read, a device never end it), module graphs are walked without recursion and only as deep as a
// browser links them, and everything printed goes through terminal.js.
import { closeSync, constants, fstatSync, openSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
// es-module-lexer (MIT, its license beside it), shipped in bin/vendor/ by scripts/merge-package.mjs.
import { init as initLexer, parse as parseModule } from "./vendor/es-module-lexer.js";

import { ChatRuntime, ChatRuntimeError, initSync } from "../chat_runtime.js";
import { printable } from "./terminal.js";

// The page the folder is checked for: an origin no request ever reaches (the fetch below answers).
const ORIGIN = "https://app.invalid";

// The deepest chain of static imports (`export ... from` included) followed from an entry's module.
// A browser links a module graph recursively: Chromium 156 links a chain of 2,000 modules and fails
// one of 3,000 with "Maximum call stack size exceeded" (`export *` chains and plain imports alike).
const MAX_IMPORT_DEPTH = 1000;

/**
 * Reads `path` if it is a regular file (after symbolic links): `{ bytes }`, else `{ missing: true }`,
 * `{ kind }` (what it is instead: "a directory", "a FIFO (named pipe)", ...) or `{ error }`. Opened
 * non-blocking and checked on the open descriptor, so a FIFO is never waited on, even one that
 * replaced the file after a first look.
 */
function readRegularFile(path) {
  let fd;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return { missing: true };
    if (error.code === "ELOOP") return { kind: "a symbolic link loop" };
    // A socket cannot be opened (ENXIO): say what is there when a stat can.
    try {
      const kind = kindOf(statSync(path));
      if (kind) return { kind };
    } catch {
      // the open's error says it
    }
    return { error };
  }
  try {
    const kind = kindOf(fstatSync(fd));
    return kind ? { kind } : { bytes: readFileSync(fd) };
  } catch (error) {
    return { error };
  } finally {
    closeSync(fd);
  }
}

/** What a non-regular file is, for a message; undefined for a regular file. */
function kindOf(stat) {
  if (stat.isFile()) return undefined;
  if (stat.isDirectory()) return "a directory";
  if (stat.isFIFO()) return "a FIFO (named pipe)";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  return "not a regular file";
}

/** The diagnostic's code and message for a `readRegularFile` answer other than `{ bytes }`. */
function unreadable(label, read) {
  if (read.missing) return { code: "check/missing-module", message: `${label} is not in the tools folder` };
  if (read.kind) return { code: "check/not-a-file", message: `${label} is ${read.kind}, not a file` };
  return { code: "check/unreadable", message: `${label} cannot be read (${read.error.code ?? read.error.message})` };
}

let ready = false;
function initWasm() {
  if (ready) return;
  initSync({ module: readFileSync(new URL("../chat_runtime_bg.wasm", import.meta.url)) });
  ready = true;
}

/**
 * Checks the tools folder `dir` as served under the URL path `base` (default `/tools/`).
 * Resolves with `{ tools, diagnostics }`: `tools` the names that would load, `diagnostics`
 * `{ level: "error" | "warning", file, index?, name?, code, message }` in file order.
 */
export async function checkTools(dir, { base = "/tools/", allowedImportOrigins = [] } = {}) {
  if (!/^\/(.*\/)?$/.test(base)) throw new TypeError(`--base must start and end with "/", got ${JSON.stringify(base)}`);
  const root = resolve(dir);
  const diagnostics = [];
  const manifestPath = join(root, "tools.json");
  const manifest = readRegularFile(manifestPath);
  if (!manifest.bytes) {
    const problem = manifest.missing
      ? { code: "check/no-manifest", message: `${manifestPath} does not exist` }
      : unreadable(manifestPath, manifest);
    diagnostics.push({ level: "error", file: "tools.json", ...problem });
    return { tools: [], diagnostics };
  }
  const bytes = manifest.bytes;
  const manifestUrl = `${ORIGIN}${base}tools.json`;

  initWasm();
  await initLexer;
  const runtime = new ChatRuntime({
    runUrl: `${ORIGIN}/run`,
    toolsUrl: manifestUrl,
    storage: null,
    allowedImportOrigins,
    // The file as nginx serves it (deploy/nginx.conf): 200, application/json.
    fetch: async (url) =>
      url === manifestUrl
        ? new Response(bytes, { status: 200, headers: { "content-type": "application/json" } })
        : new Response(null, { status: 404 }),
  });
  let report;
  try {
    report = await runtime.loadTools();
  } catch (error) {
    if (!(error instanceof ChatRuntimeError)) throw error;
    diagnostics.push({ level: "error", file: "tools.json", code: error.code, message: error.message });
    return { tools: [], diagnostics };
  } finally {
    runtime.free?.();
  }
  for (const d of report.diagnostics) {
    diagnostics.push({ level: "error", file: "tools.json", index: d.index, name: d.name, code: d.code, message: d.message });
  }

  // The entries the runtime accepted: their modules, as the browser would import them.
  const rejected = new Set(report.diagnostics.map((d) => d.index));
  const text = bytes.toString("utf8").replace(/^\uFEFF/, "");
  const entries = JSON.parse(text);
  const modules = new ModuleReader(root, base);
  const importsChecked = new Set(); // each module's imports are reported once, with the first entry that uses it
  entries.forEach((entry, index) => {
    if (rejected.has(index)) return;
    const name = entry.tool?.function?.name ?? entry.tool?.name;
    const at = { index, name };
    const url = new URL(entry.importPath, manifestUrl);
    if (url.origin !== ORIGIN) {
      diagnostics.push({ level: "warning", file: "tools.json", ...at, code: "check/not-checked", message: `${url.href} is on another origin (allowed): not checked offline` });
      return;
    }
    const file = modules.fileOf(url);
    if (!file) {
      diagnostics.push({
        level: "error",
        file: "tools.json",
        ...at,
        code: "check/outside-folder",
        message: `importPath ${JSON.stringify(entry.importPath)} is ${url.pathname}, outside the tools folder (${base}): only the folder is mounted`,
      });
      return;
    }
    const label = relative(root, file).split(sep).join("/");
    const read = modules.read(file);
    if (read.error) {
      diagnostics.push({ level: "error", file: label, ...at, code: read.code, message: read.error });
      return;
    }
    const imports = modules.importProblems(file, importsChecked);
    const exported = modules.exportsOf(file);
    if (exported.tooDeep) {
      // What it exports is not known: the chain was not followed to its end.
      if (!imports.tooDeep) diagnostics.push({ ...tooDeepProblem(label), ...at });
    } else if (!exported.names.has(entry.entrypoint)) {
      const list = [...exported.names].sort().join(", ") || "nothing";
      diagnostics.push({
        level: "error",
        file: label,
        ...at,
        code: "check/missing-export",
        message: `${label} does not export ${JSON.stringify(entry.entrypoint)} (it exports ${list})`,
      });
    }
    for (const problem of imports.problems) diagnostics.push({ ...problem, ...at });
  });
  return { tools: report.tools.map((t) => t.name), diagnostics };
}

/** Reads and lexes the modules of the folder, once each. */
class ModuleReader {
  constructor(root, base) {
    this.root = root;
    this.base = base;
    this.cache = new Map();
  }

  /** The file of `url` (same origin) in the folder, or null when it is outside it. */
  fileOf(url) {
    if (!url.pathname.startsWith(this.base)) return null;
    let rest;
    try {
      rest = decodeURIComponent(url.pathname.slice(this.base.length));
    } catch {
      return null;
    }
    const file = resolve(this.root, rest);
    return file.startsWith(this.root + sep) ? file : null;
  }

  /** `{ source, imports, exports }` or `{ error, code }`. */
  read(file) {
    let entry = this.cache.get(file);
    if (entry) return entry;
    const label = this.label(file);
    const read = readRegularFile(file);
    if (!read.bytes) {
      const { code, message } = unreadable(label, read);
      entry = { error: message, code };
    } else {
      const source = read.bytes.toString("utf8");
      try {
        const [imports, exports] = parseModule(source, label);
        entry = { source, imports, exports };
      } catch (error) {
        entry = { error: `${label} is not a valid ES module: ${error.message}`, code: "check/module-syntax" };
      }
    }
    this.cache.set(file, entry);
    return entry;
  }

  /** `file`'s path in the folder, with `/`. */
  label(file) {
    return relative(this.root, file).split(sep).join("/");
  }

  /**
   * The names `file` exports, following `export * from "./x.js"` within the folder: `{ names }`,
   * or `{ names, tooDeep: true }` when a chain is deeper than MAX_IMPORT_DEPTH (names incomplete).
   */
  exportsOf(file) {
    const names = new Set();
    let tooDeep = false;
    walk(file, (module, depth) => {
      const read = this.read(module);
      if (read.error) return [];
      if (depth > MAX_IMPORT_DEPTH) {
        tooDeep = true;
        return null;
      }
      const targets = [];
      for (const e of read.exports) {
        if (e.typeOnly) continue;
        if (e.type === "reexport-all") {
          const target = this.localTarget(module, e.from);
          if (target) targets.push(target);
        } else if (e.name && (depth === 1 || e.name !== "default")) {
          // `export *` never re-exports `default`.
          names.add(e.name);
        }
      }
      return targets;
    });
    return tooDeep ? { names, tooDeep } : { names };
  }

  /** The file a relative or absolute specifier of `file` names within the folder, else null. */
  localTarget(file, specifier) {
    if (!/^(\.{1,2}\/|\/)/.test(specifier)) return null;
    const here = `${ORIGIN}${this.base}${this.label(file)}`;
    return this.fileOf(new URL(specifier, here));
  }

  /**
   * Static imports of `file` (and of the folder's modules it imports) that a browser cannot load:
   * `{ problems, tooDeep }`. Modules in `seen` were checked already (for an earlier entry).
   */
  importProblems(file, seen = new Set()) {
    const problems = [];
    let tooDeep = false;
    walk(
      file,
      (module, depth) => {
        const read = this.read(module);
        if (read.error) return [];
        if (depth > MAX_IMPORT_DEPTH) {
          problems.push(tooDeepProblem(this.label(file)));
          tooDeep = true;
          return null;
        }
        const label = this.label(module);
        const targets = [];
        for (const i of read.imports) {
          const specifier = i.specifier;
          if (i.type === "dynamic" || i.type === "import.meta" || typeof specifier !== "string" || i.typeOnly) continue;
          if (!/^(\.{1,2}\/|\/|[a-z][a-z0-9+.-]*:)/i.test(specifier)) {
            problems.push({
              level: "warning",
              file: label,
              code: "check/bare-import",
              message: `${label} imports ${JSON.stringify(specifier)}: a browser resolves a bare name only through an import map (bundle it, or import a URL)`,
            });
            continue;
          }
          const target = this.localTarget(module, specifier);
          if (!target) continue; // another path of the site, or another origin: not the folder's to check
          const imported = this.read(target);
          if (imported.error) {
            problems.push({ level: "error", file: label, code: imported.code, message: `${label} imports ${JSON.stringify(specifier)}: ${imported.error}` });
          } else {
            targets.push(target);
          }
        }
        return targets;
      },
      seen,
    );
    return { problems, tooDeep };
  }
}

/**
 * Depth-first from `start` as a browser links a module graph: `visit(module, depth)` (the start at
 * depth 1) returns the modules it links to, in order, or null to stop the walk. Each module is
 * visited once (`seen` is shared across walks). An explicit stack: no chain overflows the checker's.
 */
function walk(start, visit, seen = new Set()) {
  if (seen.has(start)) return;
  seen.add(start);
  const first = visit(start, 1);
  if (first === null) return;
  const stack = [{ next: first, at: 0 }];
  while (stack.length) {
    const top = stack[stack.length - 1];
    if (top.at === top.next.length) {
      stack.pop();
      continue;
    }
    const module = top.next[top.at++];
    if (seen.has(module)) continue;
    seen.add(module);
    const next = visit(module, stack.length + 1);
    if (next === null) return;
    stack.push({ next, at: 0 });
  }
}

/** The diagnostic for a chain of imports from the module `label` deeper than a browser links. */
function tooDeepProblem(label) {
  return {
    level: "error",
    file: label,
    code: "check/too-deep",
    message: `the chain of imports from ${label} is more than ${MAX_IMPORT_DEPTH} modules deep: not followed further (a browser links it recursively and may fail with "Maximum call stack size exceeded")`,
  };
}

/** One line: `file: #index name: code: message` (warnings say so), control characters escaped. */
export function formatDiagnostic(d) {
  const entry = d.index === undefined ? "" : ` #${d.index}${d.name ? ` ${d.name}` : ""}:`;
  return printable(`${d.file}:${entry} ${d.level === "warning" ? "warning " : ""}${d.code}: ${d.message}`);
}
