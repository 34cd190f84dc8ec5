// `chat-runtime check-tools <dir>` (pkg/bin/chat-runtime.js, as the package ships it) on the demo's
// tools and on broken folders written here, one fault each. Needs `make build` (pkg/, demo/tools/*.js).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = join(ROOT, "pkg/bin/chat-runtime.js");
const temp = mkdtempSync(join(tmpdir(), "chat-runtime-check-"));
after(() => rmSync(temp, { recursive: true, force: true }));

// A checker that blocks (on a FIFO) is killed after this long, so the test fails instead of hanging.
const HANG_GUARD_MS = 120_000;

/** Runs the checker; `{ code, out, stdout }` (`out`: stdout and stderr together). */
function check(...args) {
  assert.ok(existsSync(BIN), `${BIN} is missing: run \`make build\``);
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: HANG_GUARD_MS, maxBuffer: 64 << 20 });
  assert.equal(r.signal, null, `the checker was killed (${r.signal}): it blocked\n${r.stdout}${r.stderr}`);
  return { code: r.status, out: r.stdout + r.stderr, stdout: r.stdout };
}

let n = 0;
/** A tools folder with these files (strings; objects and arrays are written as JSON). */
function folder(files) {
  const dir = join(temp, `tools-${++n}`);
  mkdirSync(dir);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), typeof content === "string" ? content : JSON.stringify(content, null, 2));
  }
  return dir;
}

const entry = (name, importPath, entrypoint, extra = {}) => ({
  tool: { name, description: `The ${name} tool`, parameters: { type: "object", properties: {} } },
  importPath,
  entrypoint,
  ...extra,
});
const GOOD_MODULE = "export async function hello(args) { return { hi: args.name ?? 'there' }; }\n";

test("the demo's tools pass: exit 0, every tool loads, no diagnostic", () => {
  assert.ok(existsSync(join(ROOT, "demo/tools/weather.js")), "demo/tools/*.js missing: run `make demo-tools`");
  const { code, out } = check("check-tools", join(ROOT, "demo/tools"));
  assert.equal(code, 0, out);
  assert.match(out, /: 5 tools load; 0 errors, 0 warnings\n$/);
});

test("--json: the tools that load and the diagnostics, as data", () => {
  const dir = folder({ "tools.json": [entry("hello", "/tools/hello.js", "hello"), entry("bad name", "/tools/hello.js", "hello")], "hello.js": GOOD_MODULE });
  const { code, out } = check("check-tools", dir, "--json");
  assert.equal(code, 1);
  const result = JSON.parse(out);
  assert.deepEqual(result.tools, ["hello"]);
  assert.deepEqual(result.diagnostics.map((d) => [d.level, d.file, d.index, d.name, d.code]), [["error", "tools.json", 1, "bad name", "tool/bad-name"]]);
});

test("a tools.json that is not JSON fails as a whole with the runtime's tools/not-json", () => {
  const dir = folder({ "tools.json": '[{"tool": {"name": "x",}]' });
  const { code, out } = check("check-tools", dir);
  assert.equal(code, 1);
  assert.match(out, /^tools\.json: tools\/not-json: tools\.json is not json: /m);
});

test("an HTML page (a server's fallback) or an object: tools/not-json, tools/not-array", () => {
  let r = check("check-tools", folder({ "tools.json": "<!doctype html><html></html>" }));
  assert.equal(r.code, 1);
  assert.match(r.out, /^tools\.json: tools\/not-json: tools\.json looks like an HTML page/m);
  r = check("check-tools", folder({ "tools.json": { tools: [] } }));
  assert.equal(r.code, 1);
  assert.match(r.out, /^tools\.json: tools\/not-array: /m);
});

test("the runtime's per-entry rules, each line naming the file and the entry: bad name, bad schema, bad import path, bad entrypoint, bad option, duplicate", () => {
  const dir = folder({
    "tools.json": [
      entry("good", "./hello.js", "hello"),
      entry("has space", "/tools/hello.js", "hello"),
      { ...entry("bad_schema", "/tools/hello.js", "hello"), tool: { name: "bad_schema", description: "x", parameters: { type: "object", properties: { a: { $ref: "#/$defs/missing" } } } } },
      entry("scheme", "javascript:alert(1)", "hello"),
      entry("entry", "/tools/hello.js", "not-an-identifier"),
      entry("slow", "/tools/hello.js", "hello", { timeoutMs: 0 }),
      entry("good", "/tools/hello.js", "hello"),
      entry("cdn", "https://cdn.example.com/x.js", "x"),
    ],
    "hello.js": GOOD_MODULE,
  });
  const { code, out } = check("check-tools", dir);
  assert.equal(code, 1, out);
  const lines = out.trim().split("\n");
  const parse = (all) =>
    all.slice(0, -1).map((l) => {
      const m = /^tools\.json: #(\d+) (.+?): (tool\/[a-z-]+): /.exec(l);
      assert.ok(m, `a line "tools.json: #index name: code: message": ${l}`);
      return [Number(m[1]), m[2], m[3]];
    });
  assert.deepEqual(parse(lines), [
    [1, "has space", "tool/bad-name"],
    [2, "bad_schema", "tool/bad-schema"],
    [3, "scheme", "tool/bad-import-path"],
    [4, "entry", "tool/bad-entrypoint"],
    [5, "slow", "tool/bad-option"],
    [6, "good", "tool/duplicate-name"],
    [7, "cdn", "tool/foreign-origin"],
  ]);
  assert.match(out, /#2 bad_schema: tool\/bad-schema: parameters: \$ref "#\/\$defs\/missing" does not resolve/);
  assert.match(lines.at(-1), /: 1 tool load; 7 errors, 0 warnings$/);
});

test("a module file that is not in the folder: check/missing-module, on the module's file name", () => {
  const dir = folder({ "tools.json": [entry("hello", "/tools/hello.js", "hello"), entry("gone", "/tools/lib/gone.js", "gone")], "hello.js": GOOD_MODULE });
  const { code, out } = check("check-tools", dir);
  assert.equal(code, 1);
  assert.match(out, /^lib\/gone\.js: #1 gone: check\/missing-module: lib\/gone\.js is not in the tools folder$/m);
  assert.match(out, /1 error, 0 warnings$/m);
});

test("a module that does not export the entrypoint: check/missing-export lists what it does export", () => {
  const dir = folder({
    "tools.json": [entry("hello", "/tools/hello.js", "helo")],
    "hello.js": "export async function hello() {}\nexport const version = 1;\nexport default hello;\n",
  });
  const { code, out } = check("check-tools", dir);
  assert.equal(code, 1);
  assert.match(out, /^hello\.js: #0 hello: check\/missing-export: hello\.js does not export "helo" \(it exports default, hello, version\)$/m);
});

test("exports are read, never run: a module that would throw or touch window passes; `export *` and renamed exports count", () => {
  const dir = folder({
    "tools.json": [entry("a", "/tools/index.js", "fromStar"), entry("b", "/tools/index.js", "renamed"), entry("c", "/tools/window.js", "run")],
    "index.js": 'export * from "./impl.js";\nconst local = () => 1;\nexport { local as renamed };\n',
    "impl.js": "export function fromStar() { return 1; }\n",
    "window.js": "window.addEventListener('x', () => {});\nthrow new Error('run at import');\nexport function run() {}\n",
  });
  const { code, out } = check("check-tools", dir);
  assert.equal(code, 0, out);
  assert.match(out, /3 tools load; 0 errors, 0 warnings$/m);
});

test("an importPath outside the tools folder: check/outside-folder (only the folder is mounted)", () => {
  const dir = folder({
    "tools.json": [entry("up", "../lib/up.js", "up"), entry("abs", "/static/abs.js", "abs"), entry("escape", "/tools/%2E%2E/x.js", "x")],
  });
  const { code, out } = check("check-tools", dir);
  assert.equal(code, 1);
  assert.match(out, /^tools\.json: #0 up: check\/outside-folder: importPath "\.\.\/lib\/up\.js" is \/lib\/up\.js, outside the tools folder \(\/tools\/\)/m);
  assert.match(out, /^tools\.json: #1 abs: check\/outside-folder: /m);
  assert.match(out, /^tools\.json: #2 escape: check\/outside-folder: /m);
  assert.match(out, /: 3 tools load; /); // the runtime accepts the entries; the folder does not hold their modules
  assert.match(out, /3 errors, 0 warnings$/m);
});

test("--base: the folder served elsewhere; imports inside the folder are followed, a missing one is an error, a bare one a warning", () => {
  const dir = folder({
    "tools.json": [entry("a", "/static/tools/a.js", "a"), entry("b", "b.js", "b")],
    "a.js": 'import { helper } from "./lib/helper.js";\nexport const a = () => helper();\n',
    "lib/helper.js": 'import { missing } from "./missing.js";\nexport const helper = () => missing;\n',
    "b.js": 'import lodash from "lodash";\nexport const b = () => lodash;\n',
  });
  assert.equal(check("check-tools", dir).code, 1, "under /tools/ the importPath /static/tools/a.js is outside");
  const { code, out } = check("check-tools", dir, "--base", "/static/tools/");
  assert.equal(code, 1, out);
  assert.match(out, /^lib\/helper\.js: #0 a: check\/missing-module: lib\/helper\.js imports "\.\/missing\.js": lib\/missing\.js is not in the tools folder$/m);
  assert.match(out, /^b\.js: #1 b: warning check\/bare-import: b\.js imports "lodash": /m);
  assert.match(out, /2 tools load; 1 error, 1 warning$/m);
});

test("--allow-origin: a module of an allowed origin loads and is reported as not checked (a warning, exit 0)", () => {
  const dir = folder({ "tools.json": [entry("cdn", "https://cdn.example.com/x.js", "x")] });
  assert.equal(check("check-tools", dir).code, 1);
  const { code, out } = check("check-tools", dir, "--allow-origin", "https://cdn.example.com");
  assert.equal(code, 0, out);
  assert.match(out, /^tools\.json: #0 cdn: warning check\/not-checked: https:\/\/cdn\.example\.com\/x\.js is on another origin/m);
});

test("no tools.json, and usage errors: exit 1 and 2 with a message", () => {
  const empty = folder({});
  let r = check("check-tools", empty);
  assert.equal(r.code, 1);
  assert.match(r.out, /^tools\.json: check\/no-manifest: .*tools\.json does not exist$/m);
  r = check("check-tools");
  assert.equal(r.code, 2);
  assert.match(r.out, /which folder\?/);
  r = check("frobnicate");
  assert.equal(r.code, 2);
  assert.match(r.out, /unknown command "frobnicate"[\s\S]*usage: chat-runtime check-tools/);
  r = check("check-tools", empty, "--base", "tools");
  assert.equal(r.code, 2);
  assert.match(r.out, /--base must start and end with "\/"/);
  r = check("--help");
  assert.equal(r.code, 0);
  assert.match(r.out, /^usage: chat-runtime check-tools <dir>/);
});


// ---- what a folder may hold besides files --------------------------------------------------------

/** Makes `path` a FIFO (named pipe): opening it to read blocks until a writer comes. */
function fifo(path) {
  const r = spawnSync("mkfifo", [path], { encoding: "utf8" });
  assert.equal(r.status, 0, `mkfifo ${path}: ${r.stderr}`);
}

/** Makes `path` a listening Unix socket; resolves with the server (close it after). */
function socket(path) {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(path, () => resolve(server));
  });
}

// Each is a tools.json that is not a file; the checker names it and says what it is, never blocking
// (a FIFO), reading forever (a character device) or stopping with a bare errno and the usage text.
const NOT_A_FILE = [
  ["a FIFO", (path) => fifo(path), "a FIFO (named pipe)"],
  ["a directory", (path) => mkdirSync(path), "a directory"],
  ["a symbolic link to itself", (path) => symlinkSync("tools.json", path), "a symbolic link loop"],
  ["a Unix socket", (path) => socket(path), "a socket"],
  ["a character device (/dev/zero)", (path) => symlinkSync("/dev/zero", path), "a character device"],
];

for (const [what, make, says] of NOT_A_FILE) {
  test(`a tools.json that is ${what}: check/not-a-file naming the path, exit 1`, async () => {
    const dir = folder({});
    const server = await make(join(dir, "tools.json"));
    try {
      const { code, out } = check("check-tools", dir);
      assert.equal(code, 1, out);
      const path = join(dir, "tools.json").replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      assert.match(out, new RegExp(`^tools\\.json: check/not-a-file: ${path} is ${says.replace(/[()]/g, "\\$&")}, not a file$`, "m"));
      assert.doesNotMatch(out, /usage:/);
      assert.match(out, /: 0 tools load; 1 error, 0 warnings\n$/);
    } finally {
      server?.close?.();
    }
  });
}

test("module paths that are not files (a directory, a FIFO, a symlink loop, a socket, a device, an imported FIFO): check/not-a-file on each, exit 1", async () => {
  const dir = folder({
    "tools.json": [
      entry("a", "/tools/dir.js", "a"),
      entry("b", "/tools/pipe.js", "b"),
      entry("c", "/tools/loop.js", "c"),
      entry("d", "/tools/sock.js", "d"),
      entry("e", "/tools/zero.js", "e"),
      entry("f", "/tools/hello.js", "hello"),
    ],
    "hello.js": `import "./lib/pipe.js";\n${GOOD_MODULE}`,
    "dir.js/index.js": GOOD_MODULE,
  });
  fifo(join(dir, "pipe.js"));
  mkdirSync(join(dir, "lib"));
  fifo(join(dir, "lib/pipe.js"));
  symlinkSync("loop.js", join(dir, "loop.js"));
  symlinkSync("/dev/zero", join(dir, "zero.js"));
  const server = await socket(join(dir, "sock.js"));
  try {
    const { code, out } = check("check-tools", dir);
    assert.equal(code, 1, out);
    assert.match(out, /^dir\.js: #0 a: check\/not-a-file: dir\.js is a directory, not a file$/m);
    assert.match(out, /^pipe\.js: #1 b: check\/not-a-file: pipe\.js is a FIFO \(named pipe\), not a file$/m);
    assert.match(out, /^loop\.js: #2 c: check\/not-a-file: loop\.js is a symbolic link loop, not a file$/m);
    assert.match(out, /^sock\.js: #3 d: check\/not-a-file: sock\.js is a socket, not a file$/m);
    assert.match(out, /^zero\.js: #4 e: check\/not-a-file: zero\.js is a character device, not a file$/m);
    assert.match(out, /^hello\.js: #5 f: check\/not-a-file: hello\.js imports "\.\/lib\/pipe\.js": lib\/pipe\.js is a FIFO \(named pipe\), not a file$/m);
    assert.match(out, /: 6 tools load; 6 errors, 0 warnings\n$/);
  } finally {
    server.close();
  }
});

// ---- what reaches the terminal -------------------------------------------------------------------

// C0 controls but the line feed between lines, DEL, C1 controls (U+009B is CSI), the bidi controls
// (Trojan Source) and the line and paragraph separators: none may reach the terminal raw.
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** A folder whose manifest, file names and export names carry terminal controls. */
function hostileFolder() {
  const dir = join(temp, `ctl-\u001b[31m-\u009b2J-${++n}`);
  mkdirSync(dir);
  writeFileSync(
    join(dir, "tools.json"),
    JSON.stringify([
      entry("\u001b]0;pwned\u0007title", "/tools/a.js", "a"),
      entry("nul\u0000c1\u009b31m\u007f", "/tools/a.js", "a"),
      entry("x\ntools.json: #9 forged: tool/ok: fine\r", "/tools/a.js", "a"),
      entry("entry", "/tools/a.js", "a\u001b[2Jb\u009b"),
      entry("bidi", "/tools/\u202Eevil\u2028.js", "x"),
      entry("esc_file", "/tools/%1B%5B2J.js", "run"),
      entry("bare", "/tools/bare.js", "b"),
    ]),
  );
  writeFileSync(join(dir, "\u001b[2J.js"), 'const f = 1;\nexport { f as "\u009b2J\u0007", f as "\u001b[H" };\n');
  writeFileSync(join(dir, "bare.js"), 'import x from "\u009b2Jlib\u001b";\nexport const b = x;\n');
  return dir;
}

test("control characters of tools.json values, file names, export names and the folder's name are printed escaped: no raw ESC, BEL, NUL, C1, bidi or line break, no forged line", () => {
  const dir = hostileFolder();
  const { code, out } = check("check-tools", dir);
  assert.equal(code, 1, out);
  assert.doesNotMatch(out, RAW_CONTROL, JSON.stringify(out));
  const lines = out.split("\n").slice(0, -1);
  assert.equal(lines.length, 8, `one line per diagnostic plus the summary: ${JSON.stringify(out)}`);
  assert.ok(lines.every((l) => !l.startsWith("tools.json: #9")), "a name cannot start a line of its own");
  assert.match(out, /^tools\.json: #0 \\u001b\]0;pwned\\u0007title: tool\/bad-name: /m);
  assert.match(out, /^tools\.json: #1 nul\\u0000c1\\u009b31m\\u007f: tool\/bad-name: /m);
  assert.match(out, /^tools\.json: #2 x\\u000atools\.json: #9 forged: tool\/ok: fine\\u000d: tool\/bad-name: /m);
  assert.match(out, /^tools\.json: #3 entry: tool\/bad-entrypoint: entrypoint "a\\u001b\[2Jb\\u009b" is not /m);
  assert.match(out, /^\\u202eevil\\u2028\.js: #4 bidi: check\/missing-module: /m);
  assert.match(out, /^\\u001b\[2J\.js: #5 esc_file: check\/missing-export: \\u001b\[2J\.js does not export "run" \(it exports \\u001b\[H, \\u009b2J\\u0007\)$/m);
  assert.match(out, /^bare\.js: #6 bare: warning check\/bare-import: bare\.js imports "\\u009b2Jlib\\u001b": /m);
  assert.match(lines.at(-1), /^.*ctl-\\u001b\[31m-\\u009b2J-\d+: 3 tools load; 6 errors, 1 warning$/);
});

test("--json with control characters: valid JSON with the values unchanged, every control escaped in the text", () => {
  const dir = hostileFolder();
  const { code, stdout } = check("check-tools", dir, "--json");
  assert.equal(code, 1, stdout);
  assert.doesNotMatch(stdout, RAW_CONTROL, JSON.stringify(stdout));
  const result = JSON.parse(stdout);
  assert.deepEqual(result.tools, ["bidi", "esc_file", "bare"]);
  assert.deepEqual(
    result.diagnostics.map((d) => [d.file, d.name]),
    [
      ["tools.json", "\u001b]0;pwned\u0007title"],
      ["tools.json", "nul\u0000c1\u009b31m\u007f"],
      ["tools.json", "x\ntools.json: #9 forged: tool/ok: fine\r"],
      ["tools.json", "entry"],
      ["\u202Eevil\u2028.js", "bidi"],
      ["\u001b[2J.js", "esc_file"],
      ["bare.js", "bare"],
    ],
  );
  assert.match(result.diagnostics[3].message, /^entrypoint "a\u001b\[2Jb\u009b" is not /);
  assert.match(result.diagnostics[5].message, /\(it exports \u001b\[H, \u009b2J\u0007\)$/);
});

test("usage errors print their arguments escaped", () => {
  let r = check("frobnicate\u001b[2J\u009b");
  assert.equal(r.code, 2);
  assert.doesNotMatch(r.out, RAW_CONTROL);
  assert.match(r.out, /unknown command "frobnicate\\u001b\[2J\\u009b"/);
  r = check("check-tools", folder({}), "--\u001b]0;x\u0007");
  assert.equal(r.code, 2);
  assert.doesNotMatch(r.out, RAW_CONTROL);
  assert.match(r.out, /unknown option --\\u001b\]0;x\\u0007/);
});

// ---- module graphs deeper than a browser links -------------------------------------------------

/** `count` modules m0.js ... chained by `link(i + 1)`; the last one exports `deep`. */
function chain(count, link) {
  const dir = folder({ "tools.json": [entry("deep", "/tools/m0.js", "deep")] });
  for (let i = 0; i < count; i++) {
    writeFileSync(join(dir, `m${i}.js`), i === count - 1 ? "export function deep() {}\n" : link(i + 1));
  }
  return dir;
}

test("a 20,000-deep `export *` chain: check/too-deep naming the chain's start, exit 1, no stack overflow", () => {
  const dir = chain(20_000, (next) => `export * from "./m${next}.js";\n`);
  const { code, out } = check("check-tools", dir);
  assert.equal(code, 1, out);
  assert.doesNotMatch(out, /^chat-runtime:|usage:/m);
  assert.match(out, /^m0\.js: #0 deep: check\/too-deep: the chain of imports from m0\.js is more than \d+ modules deep/m);
  assert.match(out, /: 1 tool load; 1 error, 0 warnings\n$/);
});

// 5,000 is enough: the recursive walk this replaces overflowed at 4,000 (Node 20, default stack).
test("a 5,000-deep chain of static imports: check/too-deep naming its start, exit 1, no stack overflow", () => {
  const dir = chain(5_000, (next) => `import "./m${next}.js";\nexport const deep = 1;\n`);
  const { code, out } = check("check-tools", dir);
  assert.equal(code, 1, out);
  assert.doesNotMatch(out, /^chat-runtime:|usage:/m);
  assert.match(out, /^m0\.js: #0 deep: check\/too-deep: the chain of imports from m0\.js is more than \d+ modules deep/m);
});

test("a 1,000-deep `export *` chain (the limit; Chromium links 2,000) is followed to its end", () => {
  const dir = chain(1000, (next) => `export * from "./m${next}.js";\n`);
  const { code, out } = check("check-tools", dir);
  assert.equal(code, 0, out);
  assert.match(out, /: 1 tool load; 0 errors, 0 warnings\n$/);
});
