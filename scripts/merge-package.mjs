// Finishes pkg/ after wasm-pack: merges pkg-template/package.json over the package.json wasm-pack
// wrote (template fields win; wasm-pack's `version`, from Cargo.toml, is kept unless the template
// sets one), copies the npm README and the React adapter (react.js + react.d.ts), writes the
// declaration of the `./package.json` export, and checks that every `files` entry and every
// `exports` target exists, so `npm pack` can never ship a package that points at nothing.
import { readFileSync, writeFileSync, existsSync, copyFileSync } from "node:fs";

const generated = JSON.parse(readFileSync("pkg/package.json", "utf8"));
const template = JSON.parse(readFileSync("pkg-template/package.json", "utf8"));
const merged = { ...generated, ...template, version: template.version ?? generated.version };
writeFileSync("pkg/package.json", JSON.stringify(merged, null, 2) + "\n");

for (const file of ["README.md", "react.js", "react.d.ts"]) {
  copyFileSync(`pkg-template/${file}`, `pkg/${file}`);
}
writeFileSync(
  "pkg/package.json.d.ts",
  `// The package's own package.json (\`import pkg from "chat-runtime/package.json" with { type: "json" }\`).
declare const pkg: {
  name: ${JSON.stringify(merged.name)};
  version: string;
  description: string;
  [field: string]: unknown;
};
export default pkg;
`,
);

const missing = [];
for (const entry of merged.files) if (!existsSync(`pkg/${entry}`)) missing.push(`files: ${entry}`);
for (const [subpath, target] of Object.entries(merged.exports)) {
  const targets = typeof target === "string" ? [target] : Object.values(target);
  for (const t of targets) if (!existsSync(`pkg/${t}`)) missing.push(`exports["${subpath}"]: ${t}`);
}
if (missing.length) {
  console.error(`pkg/ is incomplete:\n  ${missing.join("\n  ")}`);
  process.exit(1);
}
console.log(`pkg/package.json: ${merged.name}@${merged.version}`);
