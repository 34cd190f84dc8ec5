// Merges pkg-template/package.json over the package.json wasm-pack wrote into pkg/.
// Template fields win; wasm-pack's `version` (from Cargo.toml) is kept unless the template sets one.
import { readFileSync, writeFileSync, existsSync, copyFileSync } from "node:fs";

const generated = JSON.parse(readFileSync("pkg/package.json", "utf8"));
const template = JSON.parse(readFileSync("pkg-template/package.json", "utf8"));
const merged = { ...generated, ...template, version: template.version ?? generated.version };
writeFileSync("pkg/package.json", JSON.stringify(merged, null, 2) + "\n");
if (existsSync("pkg-template/README.md")) copyFileSync("pkg-template/README.md", "pkg/README.md");
console.log(`pkg/package.json: ${merged.name}@${merged.version}`);
