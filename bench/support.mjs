// What the benchmark's scripts share: the agent that serves bench/ and pkg/ (and scripts runs), the
// headless Chromium, the statistics they print and the rewrite of one section of bench/RESULTS.md.
import { existsSync, readFileSync, writeFileSync } from "node:fs";

import { startProcess } from "../tests/support/spawn.mjs";

export const median = (xs) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
export const fmt = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : "—");

/**
 * The scripted agent serving bench/ at `/` and pkg/ at `/pkg`: `{ agent, url }` (`agent.stop()`).
 * `binaries` in order of preference, relative to the repository root (the working directory).
 */
export async function startBenchAgent(binaries = ["target/release/chat-runtime-agent"]) {
  const binary = binaries.find((p) => existsSync(p));
  if (!binary) throw new Error(`no ${binaries.join(" or ")}: cargo build --release -p chat-runtime-agent`);
  const agent = await startProcess(binary, ["--mode", "script", "--port", "0", "--static", "/=bench", "--static", "/pkg=pkg"], {
    name: "the bench agent",
    ready: { line: /listening on (http:\/\/127\.0\.0\.1:\d+)/ },
    echo: true,
  });
  return { agent, url: agent.url, binary };
}

/** Headless Chromium from Debian (or `CHROMIUM_PATH`), with `extra` flags. */
export async function launchChromium(extra = []) {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", ...extra],
  });
}

/**
 * `text` with its section that starts with `heading` (up to the next `## ` heading) replaced by
 * `section`, or `section` appended when there is none.
 */
export function replaceSection(text, heading, section) {
  const at = text.indexOf(heading);
  if (at < 0) return `${text.trimEnd()}\n\n${section}`;
  const next = text.indexOf("\n## ", at + heading.length);
  return `${text.slice(0, at)}${section}${next < 0 ? "" : `\n${text.slice(next + 1)}`}`;
}

/** Rewrites the section `heading` of bench/RESULTS.md with `section`. */
export function writeSection(heading, section) {
  const file = "bench/RESULTS.md";
  const old = existsSync(file) ? readFileSync(file, "utf8") : "";
  writeFileSync(file, replaceSection(old, heading, section));
  console.log(`wrote "${heading}" of ${file}`);
}
