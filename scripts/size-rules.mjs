// The size rules of the code (CONTRIBUTING.md, "Size"), run by `make check`: a file that grows
// past its room's limit is split by job, not waved through. Every file under a rule's folder
// counts, whatever its kind; a line is what `wc -l` counts (a last line without its newline
// counts too). Prints each file over its limit with its line count and exits 1; exits 0 when
// there is none.
//
//   node scripts/size-rules.mjs [--root DIR]    (DIR: the tree to check, the current one by default)
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";

// Each rule: a folder (relative to the root) and the most lines a file under it may have. A file
// under several folders keeps the strictest limit.
export const RULES = [
  { folder: "src", max: 1000 },
  { folder: "react/src", max: 1000 },
  { folder: "src/session", max: 500 },
];

/** Lines of `text` as `wc -l` counts them, plus a last line that lacks its newline. */
export function countLines(text) {
  let lines = 0;
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) lines++;
  return text.length > 0 && !text.endsWith("\n") ? lines + 1 : lines;
}

/** Every file under `dir` (none when it does not exist), as paths joined to `dir`. */
export function filesUnder(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if (error.code === "ENOENT") return [];
    throw error;
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

/** The files of `root` over their limit: `{ file, lines, max, folder }`, sorted by path. */
export function offenders(root, rules = RULES) {
  const limits = new Map();
  for (const rule of rules) {
    for (const path of filesUnder(join(root, rule.folder))) {
      const file = relative(root, path).split(sep).join("/");
      const known = limits.get(file);
      if (!known || rule.max < known.max) limits.set(file, { max: rule.max, folder: rule.folder });
    }
  }
  const found = [];
  for (const [file, { max, folder }] of limits) {
    const lines = countLines(readFileSync(join(root, file), "utf8"));
    if (lines > max) found.push({ file, lines, max, folder });
  }
  return found.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const flag = process.argv.indexOf("--root");
  const root = flag >= 0 ? process.argv[flag + 1] : process.cwd();
  if (!root || !statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
    console.error("size rules: --root needs a directory");
    process.exit(2);
  }
  const found = offenders(root);
  for (const { file, lines, max, folder } of found) {
    console.error(`size rules: ${file}: ${lines} lines, over the ${max} of ${folder}/`);
  }
  if (found.length > 0) {
    console.error(`size rules: ${found.length} file(s) over their limit; split them by job`);
    process.exit(1);
  }
  console.log(`size rules: no file over its limit (${RULES.map((r) => `${r.folder}/ ${r.max}`).join(", ")})`);
}
