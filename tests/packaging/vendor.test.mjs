// Installable without a registry, inside a build context (issue 39, point 5): `make vendor APP=dir`
// writes the packed tarball into dir/vendor/; the app installs it once from there (`file:` spec
// and integrity in its lockfile); then a copy of that folder alone (a Docker build whose context
// is the app's folder: nothing outside it, no node_modules) installs with `npm ci`, and the
// package is there and loads (tests/packaging/node's check: initSync, a run, the error classes).
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { ROOT, run } from "./helpers.mjs";

const NPM_QUIET = ["--no-audit", "--no-fund", "--loglevel=error"];

test("make vendor APP=dir: the tarball inside the app's folder; a clean copy of only that folder installs with npm ci", async () => {
  const app = mkdtempSync(join(tmpdir(), "chat-runtime-vendor-"));
  const copy = mkdtempSync(join(tmpdir(), "chat-runtime-vendor-copy-"));
  try {
    cpSync(join(ROOT, "tests/packaging/node"), app, { recursive: true });
    cpSync(join(ROOT, "tests/packaging/shared/check.js"), join(app, "check.js"));
    await run("make", ["--no-print-directory", "-s", "vendor", `APP=${app}`], { cwd: ROOT });
    const vendored = readdirSync(join(app, "vendor"));
    assert.equal(vendored.length, 1, `one tarball in vendor/: ${vendored}`);
    assert.match(vendored[0], /^chat-runtime-\d+\.\d+\.\d+.*\.tgz$/);
    await run("npm", ["install", ...NPM_QUIET, `./vendor/${vendored[0]}`], { cwd: app });
    const pkg = JSON.parse(readFileSync(join(app, "package.json"), "utf8"));
    assert.equal(pkg.dependencies["chat-runtime"], `file:vendor/${vendored[0]}`, "a path inside the folder");

    // Only the folder, as a build context has it: package.json, the lockfile, vendor/, the sources.
    cpSync(app, copy, { recursive: true, filter: (src) => !/[/\\]node_modules([/\\]|$)/.test(src.slice(app.length)) });
    await run("npm", ["ci", ...NPM_QUIET], { cwd: copy });
    const installed = JSON.parse(readFileSync(join(copy, "node_modules/chat-runtime/package.json"), "utf8"));
    assert.equal(installed.name, "chat-runtime");
    const out = await run(process.execPath, ["main.mjs"], { cwd: copy });
    assert.match(out, /Hello from the tarball/);
  } finally {
    rmSync(app, { recursive: true, force: true });
    rmSync(copy, { recursive: true, force: true });
  }
});
