// The switch's before/after in an app's bundle (docs/assistant-ui.md, "What it costs"): the same
// panel (panel.tsx) on @assistant-ui/react-ag-ui + @ag-ui/client's HttpAgent (before.tsx, the Jaeger
// UI's provider) and on chat-runtime/assistant-ui (after.tsx, the docs' switch), each a production
// Vite build (tree-shaken, the demo's Vite), its JS and wasm gzip -9. Run from demo/assistant-ui
// once the demo is installed (`make demo-assistant-ui`, or its npm ci + tarball install):
//   node measure/react-ag-ui.mjs [react-ag-ui version, default 0.0.57]
// It installs that react-ag-ui with --no-save (the next `npm ci` drops it).
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const version = process.argv[2] ?? "0.0.57";
const sh = (cmd, args, env = {}) => execFileSync(cmd, args, { stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, ...env } });
sh("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--loglevel=error", `@assistant-ui/react-ag-ui@${version}`]);
const pkg = (name) => JSON.parse(readFileSync(join("node_modules", name, "package.json"), "utf8")).version;

const config = "measure/vite.config.js";
writeFileSync(
  config,
  'import { defineConfig } from "vite";\nexport default defineConfig({ oxc: { jsx: { runtime: "automatic" } }, logLevel: "warn", build: { rolldownOptions: { input: process.env.ENTRY } } });\n',
);
const rows = [];
for (const entry of ["before", "after"]) {
  const html = `measure/${entry}.html`;
  writeFileSync(html, `<!doctype html><div id="root"></div><script type="module" src="/measure/${entry}.tsx"></script>\n`);
  const out = `measure/dist-${entry}`;
  sh(process.execPath, ["node_modules/vite/bin/vite.js", "build", "--config", config, "--outDir", out, "--emptyOutDir"], { ENTRY: html });
  const assets = join(out, "assets");
  const size = (ext) =>
    readdirSync(assets)
      .filter((f) => f.endsWith(ext))
      .map((f) => readFileSync(join(assets, f)))
      .reduce((a, b) => ({ raw: a.raw + b.length, gzip: a.gzip + gzipSync(b, { level: 9 }).length }), { raw: 0, gzip: 0 });
  rows.push({ entry, js: size(".js"), wasm: size(".wasm") });
  rmSync(html);
  rmSync(out, { recursive: true, force: true });
}
rmSync(config);
console.log(`@assistant-ui/react ${pkg("@assistant-ui/react")}, @assistant-ui/core ${pkg("@assistant-ui/core")}, @assistant-ui/react-ag-ui ${pkg("@assistant-ui/react-ag-ui")}, @ag-ui/client ${pkg("@ag-ui/client")}, chat-runtime ${pkg("chat-runtime")}`);
for (const { entry, js, wasm } of rows) console.log(`${entry}: JS ${js.raw} bytes, ${js.gzip} gzip -9; wasm ${wasm.raw} bytes, ${wasm.gzip} gzip -9`);
const [before, after] = rows;
console.log(`JS after - before: ${after.js.raw - before.js.raw} bytes, ${after.js.gzip - before.js.gzip} gzip -9`);
