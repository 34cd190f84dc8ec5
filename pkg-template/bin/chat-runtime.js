#!/usr/bin/env node
// The package's command line: `npx chat-runtime check-tools <dir>` (see check-tools.js).
import { checkTools, formatDiagnostic } from "./check-tools.js";
import { printable, printableJson } from "./terminal.js";

const USAGE = `usage: chat-runtime check-tools <dir> [--base /tools/] [--allow-origin <origin>]... [--json]

Checks a tools folder offline with the runtime's rules: tools.json (entries, names, schemas,
import paths, options) through the package's own wasm, then each module file: in the folder,
exporting its entrypoint (read, not run). Prints one line per problem, "file: #index name: code:
message", control characters escaped (\\u001b); exits 1 if there is an error, 0 otherwise (warnings
do not fail).

  --base <path>          the URL path the folder is served at (default /tools/)
  --allow-origin <url>   an origin tool modules may come from (the app's allowedImportOrigins)
  --json                 print { tools, diagnostics } as JSON instead`;

function fail(message) {
  console.error(`chat-runtime: ${printable(message)}\n\n${USAGE}`);
  process.exit(2);
}

const [command, ...args] = process.argv.slice(2);
if (command === "--help" || command === "-h" || command === "help") {
  console.log(USAGE);
  process.exit(0);
}
if (command !== "check-tools") fail(command ? `unknown command ${JSON.stringify(command)}` : "no command");

let dir;
let json = false;
const options = { base: "/tools/", allowedImportOrigins: [] };
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (arg === "--json") json = true;
  else if (arg === "--base" || arg === "--allow-origin") {
    const value = args[++i];
    if (value === undefined) fail(`${arg} needs a value`);
    if (arg === "--base") options.base = value;
    else options.allowedImportOrigins.push(value);
  } else if (arg.startsWith("-")) fail(`unknown option ${arg}`);
  else if (dir === undefined) dir = arg;
  else fail(`one folder only (got ${JSON.stringify(dir)} and ${JSON.stringify(arg)})`);
}
if (dir === undefined) fail("which folder? e.g. chat-runtime check-tools public/tools");

let result;
try {
  result = await checkTools(dir, options);
} catch (error) {
  fail(error.message);
}
const errors = result.diagnostics.filter((d) => d.level === "error").length;
const warnings = result.diagnostics.length - errors;
if (json) {
  console.log(printableJson(result));
} else {
  for (const d of result.diagnostics) console.log(formatDiagnostic(d));
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  console.log(`${printable(dir)}: ${plural(result.tools.length, "tool")} load; ${plural(errors, "error")}, ${plural(warnings, "warning")}`);
}
process.exitCode = errors ? 1 : 0;
