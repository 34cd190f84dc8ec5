#!/usr/bin/env bash
# Runs a command with the scripted AG-UI test server up on a free local port.
#   scripts/with-agent.sh [--static /prefix=DIR ...] -- command args...
# The command sees CHAT_RUNTIME_TEST_SERVER=http://127.0.0.1:PORT; the server stops afterwards.
# Builds the agent, then runs tests/support/with-agent.mjs (tests/support/spawn.mjs starts it).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q -p chat-runtime-agent
exec node tests/support/with-agent.mjs "$@"
