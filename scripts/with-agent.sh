#!/usr/bin/env bash
# Runs a command with the scripted AG-UI test server up on a free local port.
#   scripts/with-agent.sh [--static /prefix=DIR ...] -- command args...
# The command sees CHAT_RUNTIME_TEST_SERVER=http://127.0.0.1:PORT; the server stops afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do args+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
cargo build -q -p chat-runtime-agent
log=$(mktemp)
target/debug/chat-runtime-agent --mode script --port 0 "${args[@]}" >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 100); do
  url=$(grep -o 'http://127.0.0.1:[0-9]*' "$log" | head -n 1 || true)
  [ -n "$url" ] && break
  kill -0 $pid 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "the test server did not start" >&2; cat "$log" >&2; exit 1; }
export CHAT_RUNTIME_TEST_SERVER="$url"
"$@"
