// Shared set-up of the packaging tests: each test copies a fixture project (tests/packaging/<name>/)
// to a fresh temp dir, installs its pinned devDependencies from its committed lockfile (`npm ci`),
// then installs the packed TARBALL (`make pack`: target/pack/chat-runtime-<version>.tgz) with
// `npm install <tgz>` (its integrity changes with every build, so it is not in the lockfiles).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

import { startProcess } from "../support/spawn.mjs";

import { freePort } from "../support/spawn.mjs";

export { freePort };

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const HERE = fileURLToPath(new URL("./", import.meta.url));
// Generous: the machine is shared with other builds.
export const WAIT = 60_000;

/** The tarball `make pack` wrote. */
export function tarball() {
  const dir = join(ROOT, "target/pack");
  let names = [];
  try {
    names = readdirSync(dir).filter((n) => /^chat-runtime-.*\.tgz$/.test(n));
  } catch {
    // missing dir: reported below
  }
  assert.equal(names.length, 1, `expected one chat-runtime-*.tgz in ${dir}: run \`make pack\``);
  return join(dir, names[0]);
}

/** What every fixture's check.js must report. */
export const EXPECTED = {
  types: ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"],
  text: "Hello from the tarball",
  tools: ["echo:true"],
  active: ["echo"],
  thrown: {
    exported: true,
    instanceOfChatRuntimeError: true,
    instanceOfError: true,
    name: "ChatRuntimeError",
    code: "options/invalid",
    hasStack: true,
  },
  rejected: {
    exported: true,
    instanceOfChatRuntimeError: true,
    instanceOfError: true,
    name: "ChatRuntimeError",
    code: "tools/fetch",
    status: 404,
    hasStack: true,
  },
};

/** Runs a command; resolves with its output, rejects (with the output) on a non-zero exit. */
export function run(cmd, args, { cwd, env } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(" ")} (in ${cwd}) exited ${code}:\n${out}`)),
    );
  });
}

const NPM_QUIET = ["--no-audit", "--no-fund", "--loglevel=error"];

/**
 * Copies `source` (a fixture dir) to a fresh temp dir, `npm ci` when it has a lockfile, then
 * `npm install <tarball>`. Returns `{ dir, cleanup }`; KEEP_FIXTURES=1 keeps the dir.
 */
export async function installFixture(source, { installTarball = true } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "chat-runtime-pkg-"));
  cpSync(source, dir, {
    recursive: true,
    filter: (src) => !/[/\\](node_modules|dist)([/\\]|$)/.test(src.slice(source.length)),
  });
  cpSync(join(HERE, "shared/check.js"), join(dir, "check.js"));
  const hasLock = (() => {
    try {
      return statSync(join(dir, "package-lock.json")).isFile();
    } catch {
      return false;
    }
  })();
  if (hasLock) await run("npm", ["ci", ...NPM_QUIET], { cwd: dir });
  if (installTarball) await run("npm", ["install", ...NPM_QUIET, tarball()], { cwd: dir });
  const cleanup = () => {
    if (process.env.KEEP_FIXTURES !== "1") rmSync(dir, { recursive: true, force: true });
  };
  return { dir, cleanup };
}

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".css": "text/css",
};

/** A static file server on 127.0.0.1 (a free port); resolves with `{ url, close }`. */
export function serveStatic(root) {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (path.includes("..")) return void res.writeHead(403).end();
    let file = join(root, path);
    try {
      if (statSync(file).isDirectory()) file = join(file, "index.html");
      const body = readFileSync(file);
      res.writeHead(200, { "Content-Type": TYPES[extname(file)] ?? "application/octet-stream", "Cache-Control": "no-store" });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((done) => server.close(done)) }),
    ),
  );
}

/** Starts a long-running process and waits until `url` answers; resolves with `{ child, stop, output }`. */
export async function startServer(cmd, args, { cwd, url, timeoutMs = WAIT }) {
  const { child, stop, output } = await startProcess(cmd, args, {
    name: `${cmd} ${args.join(" ")}`,
    cwd,
    ready: { url, ok: true, everyMs: 200 },
    timeoutMs,
  });
  return { child, stop, output };
}

/**
 * The Vite dev server of an installed fixture (development React: StrictMode double-renders and
 * double-mounts) on a free port, with `AGENT_URL` for its proxy; resolves with `{ url, stop }`.
 */
export async function startViteDev(dir, agentUrl) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { stop } = await startServer(
    "/usr/bin/env",
    [`AGENT_URL=${agentUrl}`, process.execPath, join(dir, "node_modules/vite/bin/vite.js"), "--host", "127.0.0.1", "--port", String(port), "--strictPort"],
    { cwd: dir, url: `${url}/` },
  );
  return { url, stop };
}

/** Opens `url`, waits for #result[data-done], fails on page errors; resolves with the parsed result. */
export async function checkPage(browser, url) {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  // Console errors, and failed requests by URL (the browser's own /favicon.ico probe aside).
  page.on("console", (m) => m.type() === "error" && !/^Failed to load resource/.test(m.text()) && errors.push(`console: ${m.text()}`));
  page.on("response", (r) => r.status() >= 400 && !r.url().endsWith("/favicon.ico") && errors.push(`HTTP ${r.status()} ${r.url()}`));
  page.on("requestfailed", (r) => errors.push(`failed: ${r.url()}`));
  try {
    await page.goto(url);
    await page.waitForSelector("#result[data-done=true]", { timeout: WAIT });
    const result = JSON.parse(await page.textContent("#result"));
    assert.deepEqual(errors, [], "no errors in the page");
    return result;
  } finally {
    await page.close();
  }
}
