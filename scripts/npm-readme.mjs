// The npm README (pkg/README.md, the package's page on npm), made from the docs so it cannot lag
// behind them: pkg-template/README.md with each `<!-- include FILE -->` or `<!-- include
// FILE#Heading -->` line replaced by that file, or by that section of it (the heading's line up to the
// next heading of its level or above). Included headings move so that the fragment's top heading is
// a `##`; links are rewritten for a page that stands alone, since the package has no public
// repository URL: a link to an included file (or an anchor in one) becomes an anchor of the page, a
// link to any other file of the repository becomes its text, and full URLs stay. Code blocks are
// copied as they are. The page stands alone: what only the repository has is left out, namely each
// `<!-- repo -->...<!-- /repo -->` span of the docs (a sentence naming a test, the demo, a doc that
// is not on the page), a link whose text is an included file's path shows that file's title, and
// `deploy/` is `templates/` (the package ships it so). Run by scripts/merge-package.mjs
// (`make build`) and by `make pack`; checked by tests/packaging/readme.test.mjs.
import { readFileSync, writeFileSync } from "node:fs";
import { posix } from "node:path";
import { fileURLToPath } from "node:url";

const INCLUDE = /^<!-- include (\S+?)(?:#(.+?))? -->$/;
const HEADING = /^(#{1,6}) (.*)$/;
const FENCE = /^\s*(```|~~~)/;
const REPO_ONLY = /<!-- repo -->[\s\S]*?<!-- \/repo -->/g;

/** GitHub's (and npm's) anchor of a heading: lower case, punctuation dropped, spaces as `-`. */
export function slug(heading) {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .trim()
    .replace(/\s/g, "-");
}

/** Calls `f(line, inCode)` for each line, `inCode` true inside a fenced code block (fences too). */
function mapLines(text, f) {
  let fence = null;
  return text
    .split("\n")
    .map((line) => {
      const m = FENCE.exec(line);
      if (fence === null && m) {
        fence = m[1];
        return f(line, true);
      }
      if (fence !== null) {
        if (m && m[1] === fence) fence = null;
        return f(line, true);
      }
      return f(line, false);
    })
    .join("\n");
}

/** The headings of `text` outside code: `{ level, text }`. */
function headings(text) {
  const out = [];
  mapLines(text, (line, inCode) => {
    const m = inCode ? null : HEADING.exec(line);
    if (m) out.push({ level: m[1].length, text: m[2] });
    return line;
  });
  return out;
}

/** The section of `text` under the heading `title`: its line up to the next heading of its level or above. */
function section(text, title, file) {
  const lines = text.split("\n");
  let start = -1;
  let level = 0;
  let fence = null;
  const out = [];
  for (const line of lines) {
    const m = FENCE.exec(line);
    const inCode = fence !== null || m !== null;
    if (fence === null && m) fence = m[1];
    else if (fence !== null && m && m[1] === fence) fence = null;
    const h = inCode ? null : HEADING.exec(line);
    if (start < 0) {
      if (h && h[2] === title) {
        start = out.length;
        level = h[1].length;
        out.push(line);
      }
    } else if (h && h[1].length <= level) break;
    else out.push(line);
  }
  if (start < 0) throw new Error(`npm-readme: ${file} has no heading "${title}"`);
  return out.join("\n").trimEnd();
}

/**
 * The npm README of the repository at `root`: pkg-template/README.md with its includes expanded.
 */
export function npmReadme(root) {
  const read = (file) => readFileSync(posix.join(root, file), "utf8");
  const template = read("pkg-template/README.md");
  const includes = [...template.matchAll(new RegExp(INCLUDE.source, "gm"))].map((m) => ({ file: m[1], heading: m[2] }));
  // Where a link to an included file lands: the anchor of its first heading, or of the page's title
  // for a file included by sections (README.md).
  const wholeFiles = new Map();
  const titles = new Map();
  for (const { file, heading } of includes) {
    if (heading === undefined) {
      const title = headings(read(file))[0].text;
      wholeFiles.set(file, slug(title));
      titles.set(file, title.replace(/`/g, ""));
    }
  }
  const partFiles = new Set(includes.filter((i) => i.heading !== undefined).map((i) => i.file));
  const pageTop = slug(headings(template)[0].text);

  const rewriteLinks = (line, from) =>
    line.replace(/(!?)\[([^\]]*)\]\(([^)\s]+)\)/g, (whole, bang, text, target) => {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#")) return whole;
      const [path, anchor] = target.split("#");
      const file = posix.normalize(posix.join(posix.dirname(from), path));
      // A link named by the file's path is named by its title on the page.
      const shown = text === path || text === `\`${path}\`` || text === file ? titles.get(file) : text;
      if (wholeFiles.has(file)) return `${bang}[${shown}](#${anchor ?? wholeFiles.get(file)})`;
      if (partFiles.has(file)) return `${bang}[${text}](#${anchor ?? pageTop})`;
      return text;
    });

  const expand = ({ file, heading }) => {
    const text = (heading === undefined ? read(file).trimEnd() : section(read(file), heading, file)).replace(REPO_ONLY, "");
    const top = Math.min(...headings(text).map((h) => h.level));
    const shift = 2 - top;
    return mapLines(text, (line, inCode) => {
      if (inCode) return line;
      const h = HEADING.exec(line);
      const moved = h ? `${"#".repeat(Math.min(6, h[1].length + shift))} ${h[2]}` : line;
      // The repository's deploy/ ships as the package's templates/ (scripts/merge-package.mjs).
      return rewriteLinks(moved, file).replace(/(?<![\w./-])deploy\/(?!README\.md)/g, "templates/");
    });
  };

  const out = mapLines(template, (line, inCode) => {
    const m = inCode ? null : INCLUDE.exec(line);
    return m ? expand({ file: m[1], heading: m[2] }) : line;
  });
  return `${out.trimEnd()}\n`;
}

// As a script: writes pkg/README.md for the repository this script is in.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL("../", import.meta.url));
  writeFileSync(posix.join(root, "pkg/README.md"), npmReadme(root));
}
