// The packed tarball as a registry and its linters see it: publint and @arethetypeswrong/cli (the
// root package.json's pinned devDependencies, installed by `make node-deps`; nothing is downloaded
// here) on target/pack/chat-runtime-<version>.tgz, `npm publish --dry-run` of pkg/ against a registry
// URL that refuses connections, and what the tarball must carry besides the code: no placeholder
// `repository`, the CHANGELOG, the versioning policy, and the templates the README tells users to copy.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, relative } from "node:path";

import { publint } from "publint";
import { formatMessage } from "publint/utils";

import { ROOT, tarball } from "./helpers.mjs";

const PKG = join(ROOT, "pkg");
const temp = mkdtempSync(join(tmpdir(), "chat-runtime-publish-"));
after(() => rmSync(temp, { recursive: true, force: true }));

// The tarball unpacked once (`package/...`).
let unpacked;
before(() => {
  const r = spawnSync("tar", ["xzf", tarball(), "-C", temp], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  unpacked = join(temp, "package");
});

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path).map((p) => join(entry.name, p)));
    else out.push(entry.name);
  }
  return out.sort();
}

test("publint: no error, warning or suggestion on the packed tarball (strict)", async () => {
  const bytes = readFileSync(tarball());
  const tgz = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const { messages, pkg } = await publint({ pack: { tarball: tgz }, level: "suggestion", strict: true });
  assert.equal(pkg.name, "chat-runtime", "publint read the tarball's package.json");
  assert.deepEqual(messages.map((m) => `${m.type}: ${formatMessage(m, pkg, { color: false })}`), []);
});

test("arethetypeswrong: every entry point's types resolve and match their JavaScript (ESM-only profile)", () => {
  // --profile esm-only: the package is ESM only ("type": "module", wasm-pack's web target finds its
  // .wasm through import.meta.url), so `require` from CommonJS (node10, node16-cjs) is not a goal.
  const attw = join(ROOT, "node_modules/.bin/attw");
  const r = spawnSync(attw, [tarball(), "--profile", "esm-only", "--format", "json", "--no-color"], { cwd: temp, encoding: "utf8" });
  const report = JSON.parse(r.stdout);
  assert.equal(report.analysis.packageName, "chat-runtime");
  assert.ok(report.analysis.types, "the package has types");
  assert.deepEqual(Object.keys(report.analysis.entrypoints).sort(), [".", "./assistant-ui", "./chat_runtime_bg.wasm", "./coder", "./coder/chat_runtime_bg.wasm", "./package.json", "./react"]);
  const problems = report.analysis.problems.filter((p) => !["node10", "node16-cjs"].includes(p.resolutionKind));
  assert.deepEqual(problems, []);
  assert.equal(r.status, 0, r.stderr);
});

test("npm publish --dry-run of pkg/ is clean: no warning, and nothing leaves the machine", () => {
  // A registry URL that refuses, and a token for it alone, so the dry run has nothing to warn about
  // but the package itself (without one npm warns that publishing needs a login). With it npm asks
  // the registry for the package's published versions: refused at once, no retries.
  const registry = "http://127.0.0.1:9/";
  const npmrc = join(temp, "npmrc");
  writeFileSync(npmrc, `//127.0.0.1:9/:_authToken=dry-run-only\n`);
  const r = spawnSync("npm", ["publish", "--dry-run", "--ignore-scripts", "--registry", registry, "--userconfig", npmrc, "--fetch-retries", "0"], {
    cwd: PKG,
    encoding: "utf8",
    env: { ...process.env, npm_config_loglevel: "notice" },
  });
  const out = r.stdout + r.stderr;
  assert.equal(r.status, 0, out);
  assert.match(out, /\(dry-run\)/);
  assert.match(out, /^\+ chat-runtime@/m);
  assert.deepEqual(out.split("\n").filter((l) => /^npm (warn|WARN|error|ERR)/.test(l)), [], out);
});

test("no placeholder repository: neither the tarball's package.json nor Cargo.toml (which wasm-pack copies) names one", () => {
  const pkg = JSON.parse(readFileSync(join(unpacked, "package.json"), "utf8"));
  assert.equal(pkg.repository, undefined);
  for (const [file, text] of [
    ["package/package.json", readFileSync(join(unpacked, "package.json"), "utf8")],
    ["Cargo.toml", readFileSync(join(ROOT, "Cargo.toml"), "utf8")],
    ["pkg-template/package.json", readFileSync(join(ROOT, "pkg-template/package.json"), "utf8")],
  ]) {
    assert.doesNotMatch(text, /example\.invalid/, file);
  }
  assert.doesNotMatch(readFileSync(join(ROOT, "Cargo.toml"), "utf8"), /^repository\s*=/m);
});

test("CHANGELOG.md ships, as written at the root: Keep a Changelog, an Unreleased section first", () => {
  const shipped = join(unpacked, "CHANGELOG.md");
  assert.ok(existsSync(shipped), "package/CHANGELOG.md in the tarball");
  const text = readFileSync(shipped, "utf8");
  assert.equal(text, readFileSync(join(ROOT, "CHANGELOG.md"), "utf8"));
  assert.match(text, /^# Changelog\n/);
  assert.match(text, /keepachangelog\.com/);
  assert.match(text, /semver\.org/);
  const versions = [...text.matchAll(/^## \[([^\]]+)\]/gm)].map((m) => m[1]);
  assert.equal(versions[0], "Unreleased");
  assert.match(text.split(/^## /m)[1], /^\[Unreleased\]\n\n### Added\n\n- /);
});

test("the versioning policy is in both READMEs (the npm one as shipped): semver and what counts as breaking", () => {
  for (const [file, text] of [
    ["README.md", readFileSync(join(ROOT, "README.md"), "utf8")],
    ["package/README.md", readFileSync(join(unpacked, "README.md"), "utf8")],
  ]) {
    const section = text.split(/^## /m).find((s) => s.startsWith("Versioning\n"));
    assert.ok(section, `${file} has a "## Versioning" section`);
    for (const term of ["semver", "0.x", ".d.ts", "code", "tools.json", "localStorage", "chat:tools:", "wire", "CHANGELOG.md"]) {
      assert.ok(section.includes(term), `${file}'s Versioning names ${term}`);
    }
  }
});

test("the tarball carries the templates the README tells users to copy: tools template, nginx server block, Helm", () => {
  const templates = join(unpacked, "templates");
  assert.ok(existsSync(templates), "package/templates/ in the tarball");
  const pkg = JSON.parse(readFileSync(join(unpacked, "package.json"), "utf8"));
  assert.ok(pkg.files.includes("templates/"), "templates/ listed in files");

  // Each a copy of its source in the repository, byte for byte.
  const same = (shipped, source) => assert.equal(readFileSync(join(templates, shipped), "utf8"), readFileSync(join(ROOT, source), "utf8"), shipped);
  same("nginx.conf", "deploy/nginx.conf");
  // The tools template as committed, less its .gitignore (npm never packs one; the README gives its line).
  const committed = spawnSync("git", ["ls-files", "-z", "deploy/tools-template"], { cwd: ROOT, encoding: "utf8" });
  assert.equal(committed.status, 0, committed.stderr);
  const expected = committed.stdout.split("\0").filter(Boolean).map((f) => relative("deploy/tools-template", f)).filter((f) => f !== ".gitignore");
  assert.ok(expected.includes("tools-src/weather.ts") && expected.includes("public/tools/tools.json"));
  const template = filesUnder(join(templates, "tools-template"));
  assert.deepEqual(template, expected.sort(), "no build output (public/tools/*.js) and nothing installed");
  for (const file of template) same(join("tools-template", file), join("deploy/tools-template", file));
  // deploy/helm/ whole: the chart, its example values, the snippets; the chart's files/nginx.conf
  // (a link in the repository) as a file.
  const helm = filesUnder(join(templates, "helm"));
  assert.deepEqual(helm, filesUnder(join(ROOT, "deploy/helm")));
  assert.ok(helm.includes("snippets/chat-tools.yaml") && helm.includes("chat-frontend/Chart.yaml"));
  for (const file of helm) same(join("helm", file), join("deploy/helm", file));
  assert.ok(statSync(join(templates, "helm/chat-frontend/files/nginx.conf")).isFile());

  // Every node_modules/chat-runtime/templates/... path the npm README names is in the tarball.
  const readme = readFileSync(join(unpacked, "README.md"), "utf8");
  const named = [...readme.matchAll(/node_modules\/chat-runtime\/(templates\/[^\s`)]*)/g)].map((m) => m[1]);
  assert.ok(named.length >= 3, `the npm README points at the templates (${named.join(", ")})`);
  for (const path of named) assert.ok(existsSync(join(unpacked, path)), `${path}, named in the npm README, is in the tarball`);
});

test("no absolute path of the build machine anywhere in the tarball (its home, the checkout, cargo's and rustup's homes)", () => {
  // The release build remaps them (the Makefile's `pkg` target): the panic locations of the
  // crates.io sources (js-sys's src/futures/*.rs) carried /root/.cargo/registry/src/... in the
  // .wasm. The standard library's own `/rustc/<commit>/library/...` paths are allowed: they name
  // the compiler's source commit, the same on every machine, and no directory of this one.
  const home = homedir();
  const sysroot = spawnSync("rustc", ["--print", "sysroot"], { cwd: ROOT, encoding: "utf8" }).stdout.trim();
  const machine = [
    ["the checkout", ROOT.replace(/\/$/, "")],
    ["the home directory", home],
    ["CARGO_HOME", process.env.CARGO_HOME ?? join(home, ".cargo")],
    ["RUSTUP_HOME", process.env.RUSTUP_HOME ?? join(home, ".rustup")],
    ["the toolchain", sysroot],
  ].filter(([, path]) => path && path.length > 1);
  // Any other machine's home or checkout: /home/<user>/, /Users/<user>/, /root/, C:\Users\<user>\.
  const anyHome = /(?:\/home\/[^/\s"'`]+\/|\/Users\/[^/\s"'`]+\/|\/root\/|[A-Za-z]:\\Users\\)/;
  const found = [];
  for (const file of filesUnder(unpacked)) {
    const text = readFileSync(join(unpacked, file)).toString("latin1");
    for (const [what, path] of machine) {
      const at = text.indexOf(`${path}/`);
      if (at >= 0) found.push(`${file}: ${what} (${text.slice(at, at + 100).split("\0")[0]})`);
    }
    const other = text.match(anyHome);
    if (other) found.push(`${file}: a home directory (${text.slice(other.index, other.index + 100).split("\0")[0]})`);
  }
  assert.deepEqual(found, []);
  // And the check sees the .wasm's strings at all: the standard library's remapped paths are there.
  assert.match(readFileSync(join(unpacked, "chat_runtime_bg.wasm")).toString("latin1"), /\/rustc\/[0-9a-f]{40}\/library\//);
});
