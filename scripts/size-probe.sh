#!/usr/bin/env bash
# How many of the package's bytes are the I/O layer (docs/numbers.md, "Why 150,000 is out
# of reach"): builds
# this commit twice in a scratch copy, as it is and with scripts/size-probe/probe.rs in place of the
# exported class, the driver and src/wasm/io/, and prints gzip -9 of .wasm + glue for both
# (wasm-bindgen + the Makefile's wasm-opt -Os, snippets left out). Needs what `make build` installs
# (wasm-bindgen on PATH, node_modules/.bin/wasm-opt). Usage: bash scripts/size-probe.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
git -C "$root" archive HEAD | tar -x -C "$scratch"
export CARGO_TARGET_DIR="$root/target/size-probe"
opt="$root/node_modules/.bin/wasm-opt"
measure() { # label
  # The probe leaves helpers of the removed files unused: their warnings go to a log.
  (cd "$scratch" && cargo build -q --release --target wasm32-unknown-unknown --lib) \
    2>"$scratch/build-$1.log" || { cat "$scratch/build-$1.log" >&2; exit 1; }
  local out="$scratch/out-$1"
  wasm-bindgen --target web --out-dir "$out" --out-name chat_runtime \
    "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/chat_runtime.wasm"
  "$opt" -Os --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue \
    "$out/chat_runtime_bg.wasm" -o "$out/chat_runtime_bg.wasm"
  local w j
  w=$(gzip -9c "$out/chat_runtime_bg.wasm" | wc -c)
  j=$(gzip -9c "$out/chat_runtime.js" | wc -c)
  echo "$1: wasm $w + glue $j = $((w + j)) bytes gzip"
  eval "total_$1=$((w + j))"
}
measure package
cp "$root/scripts/size-probe/probe.rs" "$scratch/src/wasm/probe.rs"
rm -r "$scratch/src/wasm/class.rs" "$scratch/src/wasm/driver" "$scratch/src/wasm/io"
sed -i -e '/^mod class;$/d' -e '/^mod driver;$/d' -e 's/^mod io;$/mod probe;/' \
  -e '/^pub use class::ChatRuntime;$/d' "$scratch/src/wasm/mod.rs"
sed -i 's/^pub use wasm::{ChatRuntime, Error as ChatRuntimeError};$/pub use wasm::Error as ChatRuntimeError;/' \
  "$scratch/src/lib.rs"
measure core
echo "the I/O layer: $((total_package - total_core)) bytes gzip"
