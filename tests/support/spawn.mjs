// The one way the test suites start a server (the demo agent, the Python AG-UI servers, nginx, a
// Vite dev server): start the process in a process group of its own, wait until it is ready (a
// line of its stdout, or a URL that answers), keep its output, and stop it with its group: when
// the suite stops it, and at the latest when the test process exits or is interrupted.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { basename } from "node:path";
import { createInterface } from "node:readline";

/** How much of a process's output is kept: its last 1 MiB. */
const KEEP = 1 << 20;

/** The process groups started and not yet stopped (by pid). */
const live = new Set();
/** The `stop` of each process `startProcess` started, by child. */
const stops = new WeakMap();
let hooked = false;

/** Sends `signal` to the process group `pid` leads; false if there is none. */
function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * At exit, and on SIGINT, SIGTERM or SIGHUP (which would end this process without running exit
 * hooks), every group still live is killed; the signal is then raised again if nothing else
 * listens for it.
 */
function hookExit() {
  if (hooked) return;
  hooked = true;
  process.once("exit", () => {
    for (const pid of live) killGroup(pid, "SIGKILL");
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.once(signal, function stopAll() {
      for (const pid of live) killGroup(pid, "SIGKILL");
      live.clear();
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
}

/**
 * Starts `cmd args` and resolves, once it is ready, with `{ child, url, output, stop }`:
 * - `ready.line`: a RegExp matched against each line of its stdout; the match's first group is
 *   the `url` (`undefined` when the pattern has no group);
 * - `ready.url`: polled until it answers (`ok: true`: until it answers 2xx), every `everyMs`.
 * `output()` is what it printed so far on stdout and stderr (the last 1 MiB); `echo: true` also
 * passes its stderr through to this process's. `stop()` sends `stopSignal` to its process group
 * and waits for it to exit. If it exits, fails to start or is not ready within `timeoutMs`, the
 * promise rejects with `name`, `hint` and its output; if it exits later, before `stop()`, that
 * message goes to stderr.
 */
export function startProcess(cmd, args, options = {}) {
  const {
    name = basename(cmd),
    cwd,
    env,
    ready,
    timeoutMs = 30_000,
    stopSignal = "SIGTERM",
    echo = false,
    hint = "",
  } = options;
  hookExit();
  const child = spawn(cmd, args, {
    cwd,
    env: env && { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let log = "";
  const keep = (chunk) => {
    log += chunk;
    if (log.length > KEEP) log = log.slice(-KEEP);
  };
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
  child.stdout.on("data", keep);
  child.stderr.on("data", (chunk) => {
    keep(chunk);
    if (echo) process.stderr.write(chunk);
  });
  if (child.pid !== undefined) live.add(child.pid);
  const exited = new Promise((done) => child.once("exit", (code, signal) => done(code ?? signal)));
  // Its last words: the pipes close after the exit (or never, if it left a child holding them).
  const closed = new Promise((done) => child.once("close", done));
  const lastWords = () => Promise.race([closed, new Promise((done) => setTimeout(done, 200))]);
  const running = () => child.exitCode === null && child.signalCode === null;
  const output = () => log;
  let stopping = false;
  const stop = async () => {
    stopping = true;
    if (child.pid === undefined) return;
    if (running()) killGroup(child.pid, stopSignal);
    await exited;
    // What it started and left behind goes too.
    killGroup(child.pid, "SIGKILL");
    live.delete(child.pid);
  };
  stops.set(child, stop);
  const failure = (what) => new Error(`${name} ${what}${hint ? `; ${hint}` : ""}:\n${log}`);

  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error, url) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) stop().then(() => reject(error), () => reject(error));
      else resolve({ child, url, output, stop });
    };
    const timer = Number.isFinite(timeoutMs)
      ? setTimeout(() => finish(failure(`was not ready within ${timeoutMs} ms`)), timeoutMs)
      : undefined;
    child.once("error", (error) => finish(failure(`did not start (${error.message})`)));
    exited.then(lastWords).then(() => {
      const how = `exited (${child.exitCode ?? child.signalCode})`;
      // Once ready, nobody awaits it: a server that dies under the tests says so, with its log.
      if (settled && !stopping) process.stderr.write(`${failure(`${how} while the tests ran`).message}\n`);
      finish(failure(how));
    });
    if (ready?.line) {
      createInterface({ input: child.stdout }).on("line", (line) => {
        const match = ready.line.exec(line);
        if (match) finish(null, match[1]);
      });
    } else if (ready?.url) {
      (async () => {
        while (!settled) {
          try {
            const response = await fetch(ready.url);
            if (!ready.ok || response.ok) return finish(null, ready.url);
          } catch {
            // not listening yet
          }
          await new Promise((done) => setTimeout(done, ready.everyMs ?? 100));
        }
      })();
    } else {
      finish(null, undefined);
    }
  });
}

/** Stops a child `startProcess` started (its `stop()`); nothing for another or none. */
export async function stopProcess(child) {
  await stops.get(child)?.();
}

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  const server = createServer();
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    }),
  );
}
