// scripts/size-rules.mjs (run by `make check`) on temporary trees: it names each file over its
// room's limit with its line count and exits 1, and passes a tree within the limits.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { countLines } from "../../scripts/size-rules.mjs";

const script = fileURLToPath(new URL("../../scripts/size-rules.mjs", import.meta.url));

/** A temporary tree holding `files` (path -> number of lines), removed after `body`. */
function withTree(files, body) {
  const root = mkdtempSync(join(tmpdir(), "size-rules-"));
  try {
    for (const [path, lines] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), "x\n".repeat(lines));
    }
    return body(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function run(root) {
  return spawnSync(process.execPath, [script, "--root", root], { encoding: "utf8" });
}

test("a tree within the limits passes", () => {
  withTree(
    {
      "src/lib.rs": 1000,
      "src/session/mod.rs": 500,
      "react/src/react.ts": 1000,
      "tests/long.rs": 5000,
      "react/long.md": 5000,
    },
    (root) => {
      const result = run(root);
      assert.equal(result.status, 0, result.stderr);
      assert.match(result.stdout, /no file over its limit/);
    },
  );
});

test("each file over its limit is named with its line count, and the run fails", () => {
  withTree(
    {
      "src/protocol/event.rs": 1001,
      "react/src/react.ts": 1447,
      "src/session/chat.rs": 501,
      "src/session/turn/agui.rs": 600,
      "src/session/ok.rs": 500,
      "src/ok.rs": 999,
    },
    (root) => {
      const result = run(root);
      assert.equal(result.status, 1);
      const named = result.stderr
        .split("\n")
        .filter((line) => line.includes(" lines, over the "));
      assert.deepEqual(named, [
        "size rules: react/src/react.ts: 1447 lines, over the 1000 of react/src/",
        "size rules: src/protocol/event.rs: 1001 lines, over the 1000 of src/",
        "size rules: src/session/chat.rs: 501 lines, over the 500 of src/session/",
        "size rules: src/session/turn/agui.rs: 600 lines, over the 500 of src/session/",
      ]);
      assert.match(result.stderr, /4 file\(s\) over their limit/);
    },
  );
});

test("a file under src/session/ is held to 500 even when it is within src/'s 1,000", () => {
  withTree({ "src/session/mod.rs": 700 }, (root) => {
    const result = run(root);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /src\/session\/mod\.rs: 700 lines, over the 500 of src\/session\//);
  });
});

test("lines are counted as wc -l counts them, a last line without its newline included", () => {
  assert.equal(countLines(""), 0);
  assert.equal(countLines("a"), 1);
  assert.equal(countLines("a\n"), 1);
  assert.equal(countLines("a\nb"), 2);
  assert.equal(countLines("\n\n"), 2);
});

test("a missing root is refused, not passed", () => {
  const result = run(join(tmpdir(), "size-rules-no-such-dir-" + process.pid));
  assert.equal(result.status, 2);
  assert.match(result.stderr, /--root needs a directory/);
});
