// The import rule of the code (CONTRIBUTING.md, "Size"; docs/architecture.md, "The lower floors"),
// run by `make check`: files import one another one way only, so no file of `src/` (Rust) or of
// `react/src/` (TypeScript) reaches itself through its imports. Prints each circle with the names
// that tie it and exits 1; exits 0 when there is none.
//
// What counts as an import of a Rust file: every path that starts at `crate::`, `super::`,
// `self::` or a child module, in a `use` (braces expanded) or inline in code (`super::x::f()`),
// comments and string literals aside, resolved to the file of the longest module it names. A
// path that stops at a folder's front (`crate::json::Value`, `json/mod.rs`) goes on through the
// front's `pub use` to the file that defines the name; a re-export itself is no import. A file
// naming the front of a folder it is in (`super::Thread` in `thread/tally.rs`) is no import
// either: the front is what the folder's files add to (docs/architecture.md). `super` inside an
// inline module is the file itself, and a `#[cfg(test)]` module's imports are its tests'.
// TypeScript: every `import`/`export … from "./x.js"`, type-only ones too.
//
//   node scripts/import-circles.mjs [--root DIR]    (DIR: the tree to check, the current one by default)
import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve, sep, posix } from "node:path";
import { pathToFileURL } from "node:url";

import { filesUnder as allFiles } from "./size-rules.mjs";

/** The files under `dir` whose names end in `ext`. */
function filesUnder(dir, ext) {
  return allFiles(dir).filter((path) => path.endsWith(ext));
}

/** Rust text without comments, string and char literals (each replaced by spaces, lines kept). */
export function stripRust(text) {
  let out = "";
  let i = 0;
  const blank = (s) => s.replace(/[^\n]/g, " ");
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === "/" && next === "/") {
      const end = text.indexOf("\n", i);
      const stop = end < 0 ? text.length : end;
      out += blank(text.slice(i, stop));
      i = stop;
    } else if (c === "/" && next === "*") {
      let depth = 1;
      let j = i + 2;
      while (j < text.length && depth > 0) {
        if (text[j] === "/" && text[j + 1] === "*") (depth++, (j += 2));
        else if (text[j] === "*" && text[j + 1] === "/") (depth--, (j += 2));
        else j++;
      }
      out += blank(text.slice(i, j));
      i = j;
    } else if (c === "r" && /^r#*"/.test(text.slice(i, i + 12)) && !/[A-Za-z0-9_]/.test(text[i - 1] ?? "")) {
      const hashes = /^r(#*)"/.exec(text.slice(i))[1];
      const close = `"${hashes}`;
      const end = text.indexOf(close, i + 2 + hashes.length);
      const stop = end < 0 ? text.length : end + close.length;
      out += blank(text.slice(i, stop));
      i = stop;
    } else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += blank(text.slice(i, j + 1));
      i = j + 1;
    } else if (c === "'" && /^'(\\.[^']*|[^\\'])'/.test(text.slice(i, i + 12))) {
      // A char literal ('a', '\n', '\u{10FFFF}'); a lifetime ('a) has no closing quote.
      const m = /^'(\\.[^']*|[^\\'])'/.exec(text.slice(i));
      out += blank(m[0]);
      i += m[0].length;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The paths of a `use` tree (`a::{b, c::{d as e}, self}`), each as its list of segments. */
export function expandUse(tree) {
  const paths = [];
  const walk = (prefix, text) => {
    text = text.trim();
    if (text === "") return;
    const brace = text.indexOf("{");
    if (brace < 0) {
      const [path] = text.split(/\s+as\s+/);
      const segs = path.split("::").map((s) => s.trim()).filter(Boolean);
      const full = segs.length === 1 && segs[0] === "self" ? prefix : [...prefix, ...segs];
      if (full.length > 0) paths.push(full);
      return;
    }
    const head = text.slice(0, brace).split("::").map((s) => s.trim()).filter(Boolean);
    const inner = text.slice(brace + 1, text.lastIndexOf("}"));
    let depth = 0;
    let start = 0;
    for (let i = 0; i <= inner.length; i++) {
      const ch = inner[i];
      if (ch === "{") depth++;
      else if (ch === "}") depth--;
      else if ((ch === "," && depth === 0) || i === inner.length) {
        walk([...prefix, ...head], inner.slice(start, i));
        start = i + 1;
      }
    }
  };
  walk([], tree);
  return paths;
}

/** Each Rust file's module path (`src/a/b.rs` and `src/a/b/mod.rs`: `a::b`; `src/lib.rs`: ``). */
function moduleOf(file) {
  const parts = file.replace(/\.rs$/, "").split("/").slice(1);
  if (parts.at(-1) === "mod" || (parts.length === 1 && parts[0] === "lib")) parts.pop();
  return parts.join("::");
}

/** Reads one Rust file: its uses (with the inline-module depth at each) and its re-exports. */
function readRust(text) {
  // `pub(in crate::x)` is a visibility, not an import.
  const code = stripRust(text).replace(/pub\s*\(\s*in\s+[^)]*\)/g, (v) => " ".repeat(v.length));
  const uses = [];
  const reexports = new Map();
  // Inline modules (`mod tests {`): the brace depth where each opens, to know where `super` goes.
  const opens = [];
  const modAt = new Map();
  for (const m of code.matchAll(/\bmod\s+[A-Za-z_][A-Za-z0-9_]*\s*\{/g)) {
    // A test module (`#[cfg(test)]` among the attributes before it) imports for its tests only.
    const before = code.slice(Math.max(0, m.index - 200), m.index);
    const attrs = /((?:#\[[^\]]*\]\s*)*)(?:pub(?:\s*\([^)]*\))?\s+)?$/.exec(before)[1];
    modAt.set(m.index + m[0].length - 1, /cfg\s*\(\s*test\s*\)/.test(attrs));
  }
  const depthAt = [];
  const testAt = [];
  let braces = 0;
  for (let i = 0; i < code.length; i++) {
    if (code[i] === "{") {
      braces++;
      if (modAt.has(i)) opens.push({ braces, test: modAt.get(i) });
    } else if (code[i] === "}") {
      if (opens.at(-1)?.braces === braces) opens.pop();
      braces--;
    }
    depthAt[i] = opens.length;
    testAt[i] = opens.some((o) => o.test);
  }
  const taken = [];
  for (const m of code.matchAll(/\b(pub(?:\s*\([^)]*\))?\s+)?use\s+([^;]+);/g)) {
    taken.push([m.index, m.index + m[0].length]);
    if (testAt[m.index]) continue;
    for (const segs of expandUse(m[2])) {
      if (m[1]) {
        // A re-export: the last name, or the alias, is what the file offers.
        const alias = /\bas\s+([A-Za-z_][A-Za-z0-9_]*)\s*$/.exec(m[2]);
        reexports.set(segs.at(-1) === "*" ? `*${reexports.size}` : segs.at(-1), segs);
        if (alias && !m[2].includes("{")) reexports.set(alias[1], segs);
      } else {
        uses.push({ segs, inline: depthAt[m.index] });
      }
    }
  }
  const inUse = (at) => taken.some(([a, b]) => at >= a && at < b);
  for (const m of code.matchAll(/\b(?:crate|super|self)(?:\s*::\s*[A-Za-z_][A-Za-z0-9_]*)+/g)) {
    if (inUse(m.index) || testAt[m.index]) continue;
    uses.push({ segs: m[0].split("::").map((s) => s.trim()), inline: depthAt[m.index] });
  }
  return { uses, reexports };
}

/** The import edges among the Rust files of `root/src`: Map(file -> Map(file -> Set(names))). */
export function rustEdges(root) {
  const files = filesUnder(join(root, "src"), ".rs").map((p) => relative(root, p).split(sep).join("/"));
  const byModule = new Map(files.map((f) => [moduleOf(f), f]));
  const read = new Map(files.map((f) => [f, readRust(readFileSync(join(root, f), "utf8"))]));
  const edges = new Map(files.map((f) => [f, new Map()]));

  // Absolute segments of a path written in `file` at inline-module depth `inline`.
  const absolute = (file, segs, inline) => {
    const here = moduleOf(file) === "" ? [] : moduleOf(file).split("::");
    let base;
    let rest = segs;
    if (segs[0] === "crate") (base = []), (rest = segs.slice(1));
    else if (segs[0] === "self") (base = inline > 0 ? null : here), (rest = segs.slice(1));
    else if (segs[0] === "super") {
      let ups = 0;
      while (rest[0] === "super") (ups++, (rest = rest.slice(1)));
      // Inside inline modules the first `super`s stay in the file.
      const out = ups - inline;
      if (out <= 0) return null;
      base = here.slice(0, here.length - out);
    } else {
      const child = [...here, segs[0]].join("::");
      if (inline > 0 || !byModule.has(child)) return null;
      base = here;
    }
    return base === null ? null : [...base, ...rest];
  };

  // The file that defines what `segs` (absolute) names, through the fronts' re-exports.
  const target = (segs, hops = 0) => {
    for (let n = segs.length; n >= 0; n--) {
      const file = byModule.get(segs.slice(0, n).join("::"));
      if (file === undefined) continue;
      const name = segs[n];
      const via = name !== undefined && hops < 8 ? read.get(file).reexports.get(name) : undefined;
      if (via) {
        const next = absolute(file, via, 0);
        if (next) return target(next, hops + 1);
      }
      return { file, name: name ?? "*" };
    }
    return null;
  };

  const fronts = (file) => {
    const here = moduleOf(file) === "" ? [] : moduleOf(file).split("::");
    const out = [];
    for (let n = here.length - 1; n >= 0; n--) out.push(byModule.get(here.slice(0, n).join("::")));
    return out.filter(Boolean);
  };
  for (const file of files) {
    for (const { segs, inline } of read.get(file).uses) {
      const abs = absolute(file, segs, inline);
      if (!abs) continue;
      const hit = target(abs);
      // A folder's front (`mod.rs`, `lib.rs`) is what its files add to (its main type's `impl`
      // blocks by job): a file may name the fronts of the folders it is in.
      if (!hit || hit.file === file || fronts(file).includes(hit.file)) continue;
      const names = edges.get(file).get(hit.file) ?? new Set();
      names.add(hit.name);
      edges.get(file).set(hit.file, names);
    }
  }
  return edges;
}

/** The import edges among the TypeScript files of `root/react/src`. */
export function tsEdges(root) {
  const files = filesUnder(join(root, "react/src"), ".ts").map((p) => relative(root, p).split(sep).join("/"));
  const known = new Set(files);
  const edges = new Map(files.map((f) => [f, new Map()]));
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    for (const m of text.matchAll(/^\s*(?:import|export)\s+(?:type\s+)?([^;]*?)\s*from\s*["'](\.[^"']+)["']/gm)) {
      const spec = m[2].replace(/\.js$/, ".ts");
      const to = posix.normalize(posix.join(posix.dirname(file), spec));
      if (!known.has(to) || to === file) continue;
      const names = edges.get(file).get(to) ?? new Set();
      for (const name of m[1].replace(/[{}]/g, " ").split(",").map((s) => s.trim().split(/\s+as\s+/)[0]).filter(Boolean)) names.add(name.replace(/^type\s+/, ""));
      edges.get(file).set(to, names);
    }
  }
  return edges;
}

/** The circles of a graph (strongly connected components of more than one file), sorted. */
export function circles(edges) {
  let index = 0;
  const stack = [];
  const on = new Set();
  const idx = new Map();
  const low = new Map();
  const found = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) {
        low.set(v, Math.min(low.get(v), idx.get(w)));
      }
    }
    if (low.get(v) === idx.get(v)) {
      const part = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        part.push(w);
      } while (w !== v);
      if (part.length > 1) found.push(part.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!idx.has(v)) visit(v);
  return found.sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

/** Every circle of `root` (`src/` and `react/src/`), each with the edges that tie it. */
export function findCircles(root) {
  const out = [];
  for (const edges of [rustEdges(root), tsEdges(root)]) {
    for (const files of circles(edges)) {
      const ties = [];
      for (const from of files) {
        for (const [to, names] of edges.get(from)) if (files.includes(to)) ties.push({ from, to, names: [...names].sort() });
      }
      out.push({ files, ties });
    }
  }
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const at = process.argv.indexOf("--root");
  const root = resolve(at >= 0 ? process.argv[at + 1] : ".");
  if (!existsSync(root)) {
    console.error(`import circles: no such tree: ${root}`);
    process.exit(2);
  }
  const found = findCircles(root);
  if (found.length === 0) {
    console.log("import circles: none in src/ and react/src/");
  } else {
    for (const { files, ties } of found) {
      console.log(`import circle of ${files.length} files: ${files.join(", ")}`);
      for (const { from, to, names } of ties) console.log(`  ${from} -> ${to}: ${names.join(", ")}`);
    }
    console.log("Split or move what ties them so imports run one way (docs/architecture.md, \"The lower floors\").");
    process.exit(1);
  }
}
