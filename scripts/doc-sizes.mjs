// The size figures the docs quote, from the last `make build`'s report (target/size.json, written by
// scripts/size-report.mjs): each `<!-- size:gzip -->...<!-- /size -->` (or `size:raw`,
// `size:brotli`; `size:gzip-kib` for KiB with one decimal; `size:coder-gzip` and the like for the
// `chat-runtime/coder` build, the report's `coder` member) in DOCS holds that figure, so no one
// writes a size by hand. `--write` rewrites them (run by `make build`); without it the script lists
// the figures that differ and exits 1. tests/packaging/readme.test.mjs checks them too.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const DOCS = ["README.md", "docs/react.md", "docs/packaging.md"];
export const MARKER = /<!-- size:(coder-)?(raw|gzip|brotli)(-kib)? -->([^<]*)<!-- \/size -->/g;

/** The figure of `kind` (`raw`, `gzip`, `brotli`) as the docs write it. */
export function figure(sizes, kind, kib) {
  const bytes = sizes[kind];
  return kib ? `${(bytes / 1024).toFixed(1)} KiB` : `${bytes.toLocaleString("en-US")} bytes`;
}

/** The docs' text with every marked figure made the report's; and the figures that differed. */
export function withSizes(text, sizes) {
  const stale = [];
  const out = text.replace(MARKER, (whole, coder, kind, kib, written) => {
    const right = figure(coder ? sizes.coder : sizes, kind, kib !== undefined);
    const name = `${coder ?? ""}${kind}${kib ?? ""}`;
    if (written !== right) stale.push(`${name}: ${written} (the report: ${right})`);
    return `<!-- size:${name} -->${right}<!-- /size -->`;
  });
  return { text: out, stale };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL("../", import.meta.url));
  const sizes = JSON.parse(readFileSync(`${root}target/size.json`, "utf8"));
  const write = process.argv.includes("--write");
  let stale = 0;
  for (const doc of DOCS) {
    const { text, stale: found } = withSizes(readFileSync(`${root}${doc}`, "utf8"), sizes);
    if (found.length === 0) continue;
    if (write) writeFileSync(`${root}${doc}`, text);
    for (const line of found) console.log(`${doc}: ${write ? "updated" : "stale"} ${line}`);
    stale += found.length;
  }
  if (stale > 0 && !write) process.exit(1);
}
