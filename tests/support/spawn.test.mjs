// tests/support/spawn.mjs: ready on a line or a URL, stop with the group, the log on failure,
// nothing left running after the test process exits or is stopped.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { pathToFileURL } from "node:url";

import { freePort, startProcess, stopProcess } from "./spawn.mjs";

const NODE = process.execPath;
const SPAWN = pathToFileURL(new URL("spawn.mjs", import.meta.url).pathname).href;

/** Whether process `pid` is still there (a zombie counts until its parent reaps it). */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until process `pid` is gone; fails after 20 s. */
async function gone(pid, what) {
  const deadline = Date.now() + 20_000;
  while (alive(pid)) {
    assert.ok(Date.now() < deadline, `${what} (pid ${pid}) is still running`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

/** A server that starts a child of its own, prints `child <pid>`, then its listening line. */
const PARENT = `
  const { spawn } = require("node:child_process");
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  console.log("child " + child.pid);
  console.log("listening on http://127.0.0.1:4321");
  setInterval(() => {}, 1000);
`;

const childPid = (output) => Number(/^child (\d+)$/m.exec(output)[1]);

test("ready at its listening line; stop ends the server and what it started", async () => {
  const server = await startProcess(NODE, ["-e", PARENT], { name: "parent", ready: { line: /^listening on (http:\/\/\S+)$/ } });
  assert.equal(server.url, "http://127.0.0.1:4321");
  const grandchild = childPid(server.output());
  assert.ok(alive(server.child.pid) && alive(grandchild));
  await server.stop();
  assert.notEqual(server.child.signalCode ?? server.child.exitCode, null, "the server exited");
  await gone(grandchild, "the server's own child");
  await server.stop(); // again: nothing to do
});

test("stopProcess stops a child by its handle", async () => {
  const server = await startProcess(NODE, ["-e", PARENT], { ready: { line: /^listening on (\S+)$/ } });
  await stopProcess(server.child);
  await gone(childPid(server.output()), "the server's own child");
});

test("a process that exits before it is ready: the error names it and holds its output", async () => {
  const started = startProcess(NODE, ["-e", "console.log('reading config'); console.error('boom: no config'); process.exit(3)"], {
    name: "the broken server",
    hint: "run make build",
    ready: { line: /^listening on (\S+)$/ },
  });
  await assert.rejects(started, (error) => {
    assert.match(error.message, /^the broken server exited \(3\); run make build:\n/);
    assert.match(error.message, /reading config/);
    assert.match(error.message, /boom: no config/);
    return true;
  });
});

test("a command that is not there rejects", async () => {
  await assert.rejects(startProcess("/nonexistent/server", [], { ready: { line: /x/ } }), /\/nonexistent\/server|server/);
});

test("ready when its URL answers (2xx with ok: true); its output is kept", async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/health`;
  // Listens only after a while, and answers 503 first.
  const script = `
    let n = 0;
    setTimeout(() => require("node:http").createServer((req, res) => {
      n += 1;
      console.log("request " + n);
      res.writeHead(n < 3 ? 503 : 200).end();
    }).listen(${port}, "127.0.0.1"), 300);
  `;
  const server = await startProcess(NODE, ["-e", script], { ready: { url, ok: true, everyMs: 20 } });
  try {
    assert.equal(server.url, url);
    assert.match(server.output(), /request 3/);
    assert.equal((await fetch(url)).status, 200);
  } finally {
    await server.stop();
  }
});

test("not ready in time: rejects with its output, and the process is stopped", async () => {
  const script = "console.log('pid ' + process.pid); setInterval(() => {}, 1000)";
  let pid;
  await assert.rejects(startProcess(NODE, ["-e", script], { name: "slow", ready: { line: /^never$/ }, timeoutMs: 500 }), (error) => {
    assert.match(error.message, /^slow was not ready within 500 ms:\npid (\d+)/);
    pid = Number(/pid (\d+)/.exec(error.message)[1]);
    return true;
  });
  await gone(pid, "the server that was not ready");
});

test("a server that dies after it was ready says so on stderr, with its output", async () => {
  const server = `console.log("listening on http://127.0.0.1:1"); setTimeout(() => { console.error("panicked: out of luck"); process.exit(101); }, 100);`;
  const script = `
    import { startProcess } from ${JSON.stringify(SPAWN)};
    await startProcess(process.execPath, ["-e", ${JSON.stringify(server)}], { name: "the agent", ready: { line: /^listening/ } });
    setTimeout(() => {}, 2000);
  `;
  const runner = spawn(NODE, ["--input-type=module", "-e", script], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  runner.stderr.on("data", (chunk) => (stderr += chunk));
  const code = await new Promise((done) => runner.once("exit", done));
  assert.equal(code, 0);
  assert.match(stderr, /^the agent exited \(101\) while the tests ran:\nlistening on http:\/\/127\.0\.0\.1:1\npanicked: out of luck\n/);
});

/** A test process that starts the PARENT server, prints both pids, then does `then`. */
function testProcess(then) {
  const script = `
    import { startProcess } from ${JSON.stringify(SPAWN)};
    const server = await startProcess(process.execPath, ["-e", ${JSON.stringify(PARENT)}], { ready: { line: /^listening/ } });
    console.log(JSON.stringify({ server: server.child.pid, child: Number(/child (\\d+)/.exec(server.output())[1]) }));
    ${then}
  `;
  const child = spawn(NODE, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise((done) => child.once("exit", (code, signal) => done(code ?? signal)));
  const pids = new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) resolve(JSON.parse(line));
    });
    exited.then((code) => reject(new Error(`the test process exited (${code}) first: ${out}`)));
  });
  return { child, pids, exited };
}

test("a server left running when the test process exits is killed with its group", async () => {
  const { pids, exited } = testProcess("process.exit(0);");
  const { server, child } = await pids;
  assert.equal(await exited, 0);
  await gone(server, "the server");
  await gone(child, "the server's own child");
});

test("a server left running when the test process is interrupted is killed with its group", async () => {
  for (const signal of ["SIGINT", "SIGTERM"]) {
    const { child: runner, pids, exited } = testProcess("setInterval(() => {}, 1000);");
    const { server, child } = await pids;
    assert.ok(alive(server));
    runner.kill(signal);
    assert.equal(await exited, signal, "the test process still ends by the signal");
    await gone(server, `the server (${signal})`);
    await gone(child, `the server's own child (${signal})`);
  }
});
