// Runs a command with the scripted AG-UI test server (target/debug/chat-runtime-agent, script
// mode) up on a free local port; scripts/with-agent.sh builds the agent and runs this.
//   node tests/support/with-agent.mjs [--static /prefix=DIR ...] -- command args...
// The command sees CHAT_RUNTIME_TEST_SERVER=http://127.0.0.1:PORT; the server stops afterwards.
// If the command fails, the server's output follows its own.
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { fileURLToPath } from "node:url";

import { startProcess } from "./spawn.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const argv = process.argv.slice(2);
const split = argv.indexOf("--");
const [serverArgs, command] = split < 0 ? [argv, []] : [argv.slice(0, split), argv.slice(split + 1)];
if (command.length === 0) {
  console.error("usage: with-agent.mjs [--static /prefix=DIR ...] -- command args...");
  process.exit(2);
}

let server;
try {
  server = await startProcess(`${root}target/debug/chat-runtime-agent`, ["--mode", "script", "--port", "0", ...serverArgs], {
    name: "the test server",
    cwd: root,
    ready: { line: /(http:\/\/127\.0\.0\.1:\d+)/ },
  });
} catch (error) {
  console.error(error.message);
  process.exit(1);
}
const child = spawn(command[0], command.slice(1), {
  stdio: "inherit",
  env: { ...process.env, CHAT_RUNTIME_TEST_SERVER: server.url },
});
const code = await new Promise((done) => {
  child.once("error", (error) => {
    console.error(`${command[0]}: ${error.message}`);
    done(127);
  });
  child.once("exit", (code, signal) => done(code ?? 128 + constants.signals[signal]));
});
await server.stop();
if (code !== 0) process.stderr.write(`--- the test server's output:\n${server.output()}`);
process.exit(code);
