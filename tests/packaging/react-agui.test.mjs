// tests/packaging/react-agui: a chat app written the way an existing AG-UI frontend is written (Vite 8,
// React 19, TypeScript 6 strict with `skipLibCheck: false`, `@ag-ui/core` 0.0.57 types, react-query
// holding the thread's messages, a new chat that becomes a thread at its first message, an auth
// `fetch` that throws `FetchError(401)`, an approval tool defined in code with `useFrontendTool` and
// `timeoutMs: null`, a tool on by default, `omitRequestFields` sending no `runId`/`state`), on the
// packed tarball. It must type-check with no cast of chat-runtime's types, build, and work in
// Chromium against the demo agent, which serves the build (`--static`). The app is formatted as
// Biome's defaults write it (80 columns); its glue (src/chat/runtime.tsx, which wires chat-runtime
// in, and every other module of the app that adapts to it) is at most 30 lines of code so
// formatted, and the same glue type-checks, builds and runs against @ag-ui/core 1.0.0 (a second
// install, with agui-1/schemas.ts for the one file of the app's API layer that imports 0.0.x's zod
// schemas).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { cpSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

import { startAgent, stopAgent } from "../e2e/agent.mjs";
import { launch } from "../e2e/browser.mjs";
import { ROOT, WAIT, installFixture, run } from "./helpers.mjs";

const SOURCE = join(ROOT, "tests/packaging/react-agui");
// The default tool deadline the app is given (`?toolTimeoutMs=`): short, so that a tool that had
// one would run out while the approval card waits.
const TOOL_TIMEOUT_MS = 1000;
// The stall notice's delay the app is given (`?stalledAfter=`): shorter than the approval card's
// wait below, so a clock that counted the card's time would show the notice.
const STALLED_AFTER_MS = 1000;

const GLUE = join(SOURCE, "src/chat/runtime.tsx");
const GLUE_MAX_LINES = 30;
// The formatter the glue is counted under, from the repository's devDependencies (pinned).
const BIOME = join(ROOT, "node_modules/@biomejs/biome/bin/biome");

let fixture, fixtureV1, browser, agent, agentUrl, agentV1, agentV1Url;

/** The fixture on @ag-ui/core 1.0.0: the same app, with agui-1/schemas.ts as src/api/schemas.ts. */
/**
 * The fixture installed, with the demo's tool modules (demo/tools/*.js, `make demo-tools`) beside
 * its tools.json in public/tools/: the app serves its tools under /tools/, the default `toolsUrl`.
 */
async function install() {
  const installed = await installFixture(SOURCE);
  const tools = join(ROOT, "demo/tools");
  for (const name of readdirSync(tools).filter((n) => n.endsWith(".js"))) cpSync(join(tools, name), join(installed.dir, "public/tools", name));
  return installed;
}

async function installV1() {
  const installed = await install();
  cpSync(join(SOURCE, "agui-1/schemas.ts"), join(installed.dir, "src/api/schemas.ts"));
  await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "--save-exact", "@ag-ui/core@1.0.0"], { cwd: installed.dir });
  return installed;
}

before(async () => {
  [fixture, fixtureV1, browser] = await Promise.all([install(), installV1(), launch()]);
});

after(async () => {
  await browser?.close();
  await stopAgent(agent);
  await stopAgent(agentV1);
  fixture?.cleanup();
  fixtureV1?.cleanup();
});

/** The lines of code of a TypeScript file: neither blank nor comment. */
function linesOfCode(text) {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("//"));
}

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

// ---- the page -------------------------------------------------------------------------------------

/** A fresh browser context (its own localStorage) with the app at `hash`. */
async function openApp(hash = "#/chat", { context = null, beforeGoto = null } = {}) {
  assert.ok(agentUrl, "the app was built and the agent serves it (the build test passed)");
  const ctx = context ?? (await browser.newContext());
  const page = await ctx.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(String(e)));
  // Console errors, except the browser's own line for an HTTP error the test asked for (a 401).
  page.on("console", (m) => m.type() === "error" && !/^Failed to load resource/.test(m.text()) && page.errors.push(`console: ${m.text()}`));
  await beforeGoto?.(page);
  await page.goto(`${agentUrl}/?toolTimeoutMs=${TOOL_TIMEOUT_MS}&stalledAfter=${STALLED_AFTER_MS}${hash}`);
  return { context: ctx, page };
}

/** Waits until the chat's tools are listed: the catalog, the code-defined tool and the agent's. */
async function chatReady(page) {
  for (const name of ["get_browser_time", "get_weather", "confirm_action", "search_docs"]) {
    await page.waitForSelector(`#tools[data-ready=true] input[data-tool=${name}]`, { timeout: WAIT });
  }
}

async function done({ context, page }) {
  assert.deepEqual(page.errors, [], "no uncaught errors or console errors in the page");
  await context.close();
}

const settled = (page) => page.getAttribute("#status", "data-settled").then(Number);

/** Sends a message; resolves when that run has settled, with its status. */
async function say(page, text) {
  const before = await settled(page);
  await page.fill("#input", text);
  await page.click("#send");
  await page.waitForFunction((n) => Number(document.querySelector("#status").dataset.settled) > n, before, { timeout: WAIT });
  return page.getAttribute("#status", "data-status");
}

/** Sends a message without waiting for its run. */
async function send(page, text) {
  await page.fill("#input", text);
  await page.click("#send");
}

async function waitSettled(page, count) {
  await page.waitForFunction((n) => Number(document.querySelector("#status").dataset.settled) >= n, count, { timeout: WAIT });
}

/** The thread the page shows (from its URL: `#/chat/{id}`), or null for a new chat. */
async function threadOf(page) {
  const hash = await page.evaluate(() => location.hash);
  const m = /^#\/chat\/(.+)$/.exec(hash);
  return m ? decodeURIComponent(m[1]) : null;
}

const lastAssistantText = (page) =>
  page.$$eval("#messages > li[data-role=assistant] .text", (els) => els.at(-1)?.textContent ?? "");
const roles = (page) => page.$$eval("#messages > li", (els) => els.map((el) => el.dataset.role));
const checked = (page, name) => page.isChecked(`#tools input[data-tool=${name}]`);
const trace = (page) => page.evaluate(() => window.__chatTrace);
const savedToggles = (page, key) => page.evaluate((k) => JSON.parse(localStorage.getItem(k) ?? "null"), key);

/** The run requests the agent received: the thread's, or (no thread) every one. */
async function requests(thread) {
  const query = thread === undefined ? "" : `?threadId=${encodeURIComponent(thread)}`;
  const res = await fetch(`${agentUrl}/test/requests${query}`);
  return res.json();
}

const toolNames = (request) => (request.body.tools ?? []).map((t) => t.name).sort();

// ---- building -------------------------------------------------------------------------------------

test("the app's source casts none of chat-runtime's types and its tsconfig is strict with skipLibCheck false", () => {
  const sources = files(join(SOURCE, "src")).filter((f) => /\.tsx?$/.test(f));
  assert.ok(sources.length >= 10, `the app's sources: ${sources}`);
  const casts = [];
  for (const file of sources) {
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (/\bas\s+(unknown|any)\b|@ts-(ignore|expect-error|nocheck)|<any>/.test(line)) casts.push(`${file}:${i + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(casts, [], "no `as unknown as`, `as any` or @ts- directive");
  const tsconfig = readFileSync(join(SOURCE, "tsconfig.json"), "utf8");
  assert.match(tsconfig, /"strict":\s*true/);
  assert.match(tsconfig, /"skipLibCheck":\s*false/);
  assert.match(tsconfig, /"include":\s*\["src"\]/);
  const pkg = JSON.parse(readFileSync(join(SOURCE, "package.json"), "utf8"));
  const versions = { ...pkg.dependencies, ...pkg.devDependencies };
  for (const [name, version] of Object.entries(versions)) assert.match(version, /^\d+\.\d+\.\d+$/, `${name} is pinned exactly`);
  assert.equal(versions["@ag-ui/core"], "0.0.57");
});

/**
 * The modules that adapt the app to chat-runtime: the glue file, and every other module of src/
 * that imports chat-runtime, except the app's tools (src/chat/tools/: the features the runtime
 * runs) and its React components (.tsx files that render what the hooks return: the tools menu,
 * the error notice, the trace).
 */
function adapting() {
  const imports = /from\s+"chat-runtime(\/react)?"/;
  const others = files(join(SOURCE, "src")).filter(
    (f) => f !== GLUE && f.endsWith(".ts") && !f.includes(`${join("src", "chat", "tools")}`) && imports.test(readFileSync(f, "utf8")),
  );
  return [GLUE, ...others];
}

test(`the glue: Biome-formatted (80 columns), the modules that adapt to chat-runtime are at most ${GLUE_MAX_LINES} lines of code`, async () => {
  // `biome format` without --write fails when a file is not as Biome's defaults write it.
  await run(process.execPath, [BIOME, "format", "src", "agui-1", "vite.config.ts"], { cwd: SOURCE });
  const counted = adapting().map((file) => [file, linesOfCode(readFileSync(file, "utf8"))]);
  const total = counted.reduce((n, [, lines]) => n + lines.length, 0);
  const listing = counted.map(([file, lines]) => `${file}: ${lines.length}\n${lines.join("\n")}`).join("\n");
  assert.ok(total <= GLUE_MAX_LINES, `${total} lines of code that adapt to chat-runtime:\n${listing}`);
  // The docs quote that count and no other.
  const docs = readFileSync(join(ROOT, "docs/react.md"), "utf8");
  assert.deepEqual([...docs.matchAll(/\*\*(\d+) lines of code\*\*/g)].map((m) => Number(m[1])), [total], "docs/react.md quotes the count");
  // What wires the runtime in (the provider and its options, the store feed and the 0.0.x mapping,
  // the thread with its history, the agent's tools, the preload) is in the glue and nowhere else.
  const wiring = /\b(ChatRuntimeProvider|initChatRuntime|useThread|syncMessages|toAguiV0Message|applyMessages|setMessages|setBackendTools|backendTools)\b|events:\s*\[[^\]]*"messages"/;
  const elsewhere = [];
  for (const file of files(join(SOURCE, "src")).filter((f) => /\.tsx?$/.test(f) && f !== GLUE)) {
    for (const line of linesOfCode(readFileSync(file, "utf8"))) if (wiring.test(line)) elsewhere.push(`${file}: ${line}`);
  }
  assert.deepEqual(elsewhere, [], "the runtime is wired in the glue only (its lines of code)");
  const lines = counted[0][1];
  for (const name of ["ChatRuntimeProvider", "syncMessages", "toAguiV0Message", "useThread", "initChatRuntime", "backendTools"]) {
    assert.ok(lines.some((line) => line.includes(name)), `the glue uses ${name}`);
  }
});

test("toAguiV0Message and syncMessages of the installed package: 0.0.x shapes, identity kept, the store fed by id", async () => {
  const { applyMessages, syncMessages, toAguiV0Message } = await import(pathToFileURL(join(fixture.dir, "node_modules/chat-runtime/chat_runtime.js")).href);
  const react = await import(pathToFileURL(join(fixture.dir, "node_modules/chat-runtime/react.js")).href);
  assert.equal(react.toAguiV0Message, toAguiV0Message, "chat-runtime/react re-exports the same function");
  assert.equal(react.syncMessages, syncMessages);

  // Messages 0.0.x has as they are: the same objects.
  const same = [
    { id: "d", role: "developer", content: "be brief" },
    { id: "u1", role: "user", content: "hi" },
    { id: "u2", role: "user", content: [{ type: "text", text: "look" }, { type: "image", source: { type: "url", value: "https://x/cat.png" }, metadata: { alt: "cat" } }] },
    { id: "a", role: "assistant", content: "ok", toolCalls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }] },
    { id: "t1", role: "tool", toolCallId: "c", content: "18 degrees", error: "x" },
    { id: "act", role: "activity", activityType: "plan", content: { steps: [] } },
    { id: "r", role: "reasoning", content: "hmm" },
  ];
  for (const message of same) assert.equal(toAguiV0Message(message), message, message.id);

  // The two 1.0 shapes: a file source becomes a text part naming it; a tool's parts become one string.
  const user = { id: "u3", role: "user", content: [{ type: "text", text: "see" }, { type: "document", source: { type: "file", value: "file-1", mimeType: "application/pdf" } }], metadata: { k: 1 } };
  assert.deepEqual(toAguiV0Message(user), { ...user, content: [user.content[0], { type: "text", text: "[document: file-1]" }] });
  assert.equal(toAguiV0Message(user).content[0], user.content[0], "unchanged parts keep their objects");
  const tool = {
    id: "t2",
    role: "tool",
    toolCallId: "c2",
    content: [{ type: "text", text: "a chart: " }, { type: "image", source: { type: "url", value: "https://x/c.png" } }, { type: "image", source: { type: "data", value: "AAAA", mimeType: "image/png" } }],
  };
  assert.deepEqual(toAguiV0Message(tool), { ...tool, content: "a chart: [image: https://x/c.png][image]" });

  // syncMessages: one write per `messages` event, with an updater that maps and merges by id.
  let listener = null;
  let options = null;
  const runtime = { subscribe: (l, o) => ((listener = l), (options = o), () => (listener = null)) };
  const store = new Map();
  const stop = syncMessages(runtime, { map: toAguiV0Message, write: (threadId, update) => store.set(threadId, update(store.get(threadId))) });
  assert.deepEqual(options, { events: ["messages"] });
  listener({ type: "messages", threadId: "t", messages: [same[1], tool] });
  const first = store.get("t");
  assert.deepEqual(first, [same[1], { ...tool, content: "a chart: [image: https://x/c.png][image]" }]);
  assert.equal(first[0], same[1]);
  listener({ type: "messages", threadId: "t", messages: [{ ...same[1] }] });
  assert.equal(store.get("t"), first, "nothing changed: the store's own array back");
  listener({ type: "messages", threadId: "t", messages: [{ ...same[1], content: "hi!" }] });
  assert.deepEqual(store.get("t").map((m) => m.content), ["hi!", "a chart: [image: https://x/c.png][image]"]);
  assert.equal(store.get("t")[1], first[1], "the message that did not change keeps its object");
  assert.deepEqual(applyMessages(first, []), first);
  stop();
  assert.equal(listener, null, "the unsubscribe is the runtime's");
});

test("tsc --noEmit passes on the installed tarball (TypeScript 6, strict, skipLibCheck false)", async () => {
  const installed = JSON.parse(readFileSync(join(fixture.dir, "node_modules/@ag-ui/core/package.json"), "utf8"));
  assert.equal(installed.version, "0.0.57");
  await run(process.execPath, [join(fixture.dir, "node_modules/typescript/bin/tsc"), "--noEmit", "-p", "."], { cwd: fixture.dir });
});

test("vite build passes; the agent serves the build", async () => {
  await run(process.execPath, [join(fixture.dir, "node_modules/vite/bin/vite.js"), "build"], { cwd: fixture.dir });
  const dist = join(fixture.dir, "dist");
  const built = files(dist).map((f) => f.slice(dist.length + 1));
  assert.ok(built.some((f) => /^assets\/.*\.wasm$/.test(f)), `the package's wasm is an emitted asset: ${built}`);
  assert.ok(built.includes("tools/tools.json") && built.includes("history/seeded.json"), `public/ is copied: ${built}`);
  ({ child: agent, url: agentUrl } = await startAgent({ paceMs: 5, statics: [`/=${dist}`], timeoutMs: WAIT }));
});

// What only the Coder build holds (its routes, its wire members), found in the package's Coder wasm
// and in no file of an app that imports `chat-runtime` and `chat-runtime/react` alone.
const CODER_MARKERS = ["coder_session_token", "unsafe_dynamic_tools", "tool-results", "Coder-Session-Token"];

test("an AG-UI app's build holds no Coder code: one wasm, the AG-UI build's, and none of the Coder build's strings", () => {
  const dist = join(fixture.dir, "dist");
  const built = files(dist);
  assert.ok(built.length > 0, "the app was built (the vite build test ran)");
  const pkg = join(fixture.dir, "node_modules/chat-runtime");
  const coderWasm = readFileSync(join(pkg, "coder/chat_runtime_bg.wasm"));
  // The markers are the Coder build's: the check below could fail.
  for (const marker of CODER_MARKERS) assert.ok(coderWasm.includes(marker), `the Coder build holds ${marker}`);
  const wasms = built.filter((f) => f.endsWith(".wasm"));
  assert.equal(wasms.length, 1, `one wasm in the app: ${wasms}`);
  assert.ok(readFileSync(wasms[0]).equals(readFileSync(join(pkg, "chat_runtime_bg.wasm"))), "the app's wasm is the AG-UI build");
  for (const file of built) {
    const bytes = readFileSync(file);
    for (const marker of CODER_MARKERS) assert.ok(!bytes.includes(marker), `${file.slice(dist.length + 1)} holds ${marker}`);
  }
});

test("@ag-ui/core 1.0.0: the same glue type-checks (tsc --noEmit) and builds (vite build)", async () => {
  const installed = JSON.parse(readFileSync(join(fixtureV1.dir, "node_modules/@ag-ui/core/package.json"), "utf8"));
  assert.equal(installed.version, "1.0.0");
  assert.equal(readFileSync(join(fixtureV1.dir, "src/chat/runtime.tsx"), "utf8"), readFileSync(GLUE, "utf8"));
  await run(process.execPath, [join(fixtureV1.dir, "node_modules/typescript/bin/tsc"), "--noEmit", "-p", "."], { cwd: fixtureV1.dir });
  await run(process.execPath, [join(fixtureV1.dir, "node_modules/vite/bin/vite.js"), "build"], { cwd: fixtureV1.dir });
  ({ child: agentV1, url: agentV1Url } = await startAgent({ paceMs: 5, statics: [`/=${join(fixtureV1.dir, "dist")}`], timeoutMs: WAIT }));
});

// ---- in the browser -------------------------------------------------------------------------------

/** The scenarios, run against the 0.0.57 build here and against the 1.0.0 build at the end. */
const scenarios = [];
function scenario(name, fn) {
  scenarios.push([name, fn]);
  test(name, fn);
}

scenario("lazy start: a page without a chat loads no wasm; hovering New chat preloads it (initChatRuntime)", async () => {
  const app = await openApp("#/", {
    beforeGoto: (page) => {
      page.requested = [];
      page.on("request", (r) => page.requested.push(new URL(r.url()).pathname));
    },
  });
  const { page } = app;
  await page.waitForSelector("#home", { timeout: WAIT });
  await page.waitForTimeout(500);
  assert.deepEqual(page.requested.filter((p) => p.endsWith(".wasm") || p === "/tools/tools.json"), [], "nothing of the chat is fetched on the home page");

  const wasm = page.waitForRequest((r) => r.url().endsWith(".wasm"), { timeout: WAIT });
  await page.hover("#new-chat");
  await wasm;
  await page.waitForTimeout(300);
  assert.ok(!page.requested.includes("/tools/tools.json"), "preloading initialises the module only: no runtime, no tools.json yet");

  await page.click("#new-chat");
  await chatReady(page);
  assert.ok(page.requested.includes("/tools/tools.json"), "the chat's first hook started the runtime and loaded the catalog");
  assert.equal(page.requested.filter((p) => p.endsWith(".wasm")).length, 1, "the wasm is fetched once");
  await done(app);
});

scenario("new chat: the first message creates the thread, the default-on tool runs, the approval card has no deadline, approve -> answer", async () => {
  const app = await openApp("#/chat");
  const { page } = app;
  await chatReady(page);
  assert.equal(await page.getAttribute("#thread-title", "data-thread"), "", "a new chat has no thread");
  assert.equal(await checked(page, "get_browser_time"), true, "defaultEnabled in tools.json");
  assert.equal(await checked(page, "confirm_action"), true, "defaultEnabled in useFrontendTool");
  assert.equal(await checked(page, "get_weather"), false, "a tool without defaultEnabled starts off");
  assert.equal(await page.getAttribute("#tools input[data-tool=search_docs]", "data-locked"), "true", "the agent's own tool (setBackendTools)");
  assert.equal(await page.textContent("#active-count"), "2");

  await send(page, "What time is it? Please delete all my notes.");
  await page.waitForSelector(".approval", { timeout: WAIT });
  const thread = await threadOf(page);
  assert.match(thread ?? "", /^[0-9a-f-]{36}$/, "the new chat moved to its thread's URL");
  assert.equal(await page.getAttribute("#thread-title", "data-thread"), thread);
  assert.equal(await page.textContent(".approval .approval-action"), "delete all my notes");
  await page.waitForSelector("#tool-trace li[data-tool=get_browser_time][data-state=done]", { timeout: WAIT });

  // Well past the default deadline: the approval tool has none (timeoutMs: null). And past
  // `stalledAfter`: the stream is silent, but the thread waits for a person, not for the server.
  await page.waitForTimeout(TOOL_TIMEOUT_MS * 2.5);
  assert.equal(await page.$$eval(".approval", (els) => els.length), 1, "the card is still waiting");
  assert.equal(await page.$$eval("#stalled", (els) => els.length), 0, "no stall notice while a person decides");
  assert.equal(await page.getAttribute("#tool-trace li[data-tool=confirm_action]", "data-state"), "running");
  assert.equal(await page.getAttribute("#status", "data-running"), "true");

  await page.click(".approval .approval-approve");
  await waitSettled(page, 1);
  assert.equal(await page.getAttribute("#status", "data-status"), "completed");
  assert.match(await page.textContent("#status"), /completed \(2 rounds\)/);
  assert.match(await lastAssistantText(page), /^Your browser says it is .+\. Done: delete all my notes\.$/);
  assert.equal(await page.$$eval(".approval", (els) => els.length), 0, "the card went away");

  // The react-query cache (fed by `messages` events) holds the whole thread; two readers agree.
  assert.deepEqual(await roles(page), ["user", "assistant", "tool", "tool", "assistant"]);
  assert.equal(await page.textContent("#message-count"), "5");

  // omitRequestFields: no runId, parentRunId or state in either round of the thread.
  const sent = await requests(thread);
  assert.equal(sent.length, 2, "one request for the send, one for the restart with the two results");
  for (const request of sent) {
    assert.deepEqual(Object.keys(request.body).filter((k) => ["runId", "parentRunId", "state"].includes(k)), []);
    assert.equal(request.body.threadId, thread);
    assert.deepEqual(toolNames(request), ["confirm_action", "get_browser_time"]);
    assert.match(request.headers.authorization ?? "", /^Bearer token-/, "sent through the app's auth fetch");
  }
  assert.deepEqual(sent[0].body.messages.map((m) => [m.role, m.content]), [["user", [{ type: "text", text: "What time is it? Please delete all my notes." }]]]);
  const results = sent[1].body.messages.filter((m) => m.role === "tool");
  assert.equal(results.length, 2);
  assert.ok(results.some((m) => m.content === '{"confirmed":true}'), JSON.stringify(results));
  await done(app);
});

scenario("toggles: new-chat choices are carried to the thread, an explicit off beats defaultEnabled, a thread's toggles work after the catalog loaded", async () => {
  const app = await openApp("#/chat");
  const { page, context } = app;
  await chatReady(page);
  await page.uncheck("#tools input[data-tool=get_browser_time]");
  await page.check("#tools input[data-tool=get_weather]");
  await page.waitForFunction(() => document.querySelector("#active-count").textContent === "2");
  assert.deepEqual(await savedToggles(page, "chat:tools:default"), { get_browser_time: false, get_weather: true });

  assert.equal(await say(page, "What time is it?"), "completed");
  const thread = await threadOf(page);
  assert.ok(thread, "the new chat became a thread");
  assert.match(await lastAssistantText(page), /^I can't check the time: the get_browser_time tool is turned off/);
  let sent = await requests(thread);
  assert.deepEqual(toolNames(sent[0]), ["confirm_action", "get_weather"], "the new chat's toggles went with its first run");

  // The thread's toggle store was created after the catalog had loaded (issue 18, point 1).
  assert.equal(await checked(page, "get_browser_time"), false);
  assert.equal(await checked(page, "get_weather"), true);
  await page.check("#tools input[data-tool=get_browser_time]");
  await page.waitForFunction(() => document.querySelector("#active-count").textContent === "3");
  assert.equal((await savedToggles(page, `chat:tools:${thread}`)).get_browser_time, true);
  assert.equal(await say(page, "What time is it?"), "completed");
  assert.match(await lastAssistantText(page), /^Your browser says it is /);
  sent = await requests(thread);
  assert.deepEqual(toolNames(sent.at(-1)), ["confirm_action", "get_browser_time", "get_weather"]);

  // Another tab: the thread's saved toggles; a change there shows up here without a reload.
  const other = await openApp(`#/chat/${encodeURIComponent(thread)}`, { context });
  await chatReady(other.page);
  assert.equal(await checked(other.page, "get_browser_time"), true);
  await other.page.uncheck("#tools input[data-tool=get_weather]");
  await page.waitForFunction(() => !document.querySelector("#tools input[data-tool=get_weather]").checked, null, { timeout: WAIT });
  assert.deepEqual(other.page.errors, []);
  await other.page.close();

  // A later new chat in this browser starts from the saved defaults (explicit off wins) ...
  const next = await openApp("#/chat", { context });
  await chatReady(next.page);
  assert.equal(await checked(next.page, "get_browser_time"), false, "the saved default beats defaultEnabled");
  assert.equal(await checked(next.page, "get_weather"), true);
  await next.page.close();
  // ... and one in a fresh browser from defaultEnabled.
  const fresh = await openApp("#/chat");
  await chatReady(fresh.page);
  assert.equal(await checked(fresh.page, "get_browser_time"), true);
  assert.equal(await checked(fresh.page, "get_weather"), false);
  await done(fresh);
  await done(app);
});

scenario("useFrontendTool: the handler sees the latest state; reject; Stop cancels a tool without deadline", async () => {
  const app = await openApp("#/chat");
  const { page } = app;
  await chatReady(page);

  // "Ask before acting" off after the tool was registered: the handler reads the current value.
  await page.uncheck("#ask-first");
  assert.equal(await say(page, "Please delete all my notes."), "completed");
  assert.equal(await lastAssistantText(page), "Done: delete all my notes.");
  assert.deepEqual((await trace(page)).approvals, [], "no card was shown");

  await page.check("#ask-first");
  await send(page, "Please reset my settings.");
  await page.waitForSelector(".approval", { timeout: WAIT });
  await page.click(".approval .approval-deny");
  await waitSettled(page, 2);
  assert.equal(await page.getAttribute("#status", "data-status"), "completed");
  assert.equal(await lastAssistantText(page), "OK, I did not reset my settings.");

  await send(page, "Delete my photos.");
  await page.waitForSelector(".approval", { timeout: WAIT });
  await page.click("#stop");
  await waitSettled(page, 3);
  assert.equal(await page.getAttribute("#status", "data-status"), "aborted");
  await page.waitForSelector(".approval", { state: "detached", timeout: WAIT });
  const tools = await page.$$eval("#messages > li[data-role=tool] .text", (els) => els.map((el) => el.textContent));
  assert.match(tools.at(-1), /^TOOL ERROR: INTERRUPTED/);
  assert.equal((await trace(page)).approvals.length, 2);
  const thread = await threadOf(page);
  assert.equal((await requests(thread)).length, 5, "2 + 2 rounds, then 1 request: nothing restarted after Stop");
  await done(app);
});

scenario("history: the thread's messages from the app's own GET (react-query) go to the runtime with setMessages; the next run continues them", async () => {
  const seeded = JSON.parse(readFileSync(join(SOURCE, "public/history/seeded.json"), "utf8"));
  const app = await openApp("#/chat/seeded");
  const { page } = app;
  await chatReady(page);
  await page.waitForFunction(() => document.querySelector("#message-count").textContent === "4", null, { timeout: WAIT });
  assert.deepEqual(await roles(page), ["user", "assistant", "tool", "assistant"]);
  assert.match(await page.textContent("#messages > li[data-role=user] .text"), /Here is my cat\. .* \[image\]$/);

  assert.equal(await say(page, "What time is it?"), "completed");
  assert.match(await lastAssistantText(page), /^Your browser says it is /);
  const sent = await requests("seeded");
  assert.equal(sent.length, 2);
  // The 0.0.57 messages reached the server as they were given (the image part and its metadata too).
  assert.deepEqual(sent[0].body.messages.slice(0, 4), seeded);
  assert.equal(sent[0].body.messages.length, 5);
  assert.deepEqual(await roles(page), ["user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant"]);
  assert.equal(await page.textContent("#message-count"), "8");
  await done(app);
});

scenario("reload mid-tool: a history whose last call has no result (useThread's history, pending: \"run\") runs that call once and continues", async () => {
  const seeded = JSON.parse(readFileSync(join(SOURCE, "public/history/reloaded.json"), "utf8"));
  const app = await openApp("#/chat/reloaded");
  const { page } = app;
  await chatReady(page);
  // Nothing typed: the call runs as soon as the history is in, and its result goes to the agent.
  await page.waitForFunction(() => document.querySelector("#message-count").textContent === "4", null, { timeout: WAIT });
  await page.waitForSelector("#status[data-running=false]", { timeout: WAIT });
  assert.deepEqual(await roles(page), ["user", "assistant", "tool", "assistant"]);
  assert.match(await lastAssistantText(page), /^Your browser says it is /);
  const sent = await requests("reloaded");
  assert.equal(sent.length, 1, "one request: the call's result");
  assert.deepEqual(sent[0].body.messages.slice(0, 2), seeded);
  const result = sent[0].body.messages[2];
  assert.equal(result.role, "tool");
  assert.equal(result.toolCallId, "reloaded-call-1");
  assert.doesNotMatch(result.content, /TOOL ERROR/);
  await done(app);
});

scenario("auth: a missing token and a 401 answer end the run run/http 401 with the app's FetchError as cause", async () => {
  const app = await openApp("#/chat");
  const { page } = app;
  await chatReady(page);
  await page.click("#sign-out");
  assert.equal(await say(page, "What time is it?"), "error");
  const thread = await threadOf(page);
  assert.ok(thread);
  const shown = () =>
    page.$eval("#run-error", (el) => ({ ...el.dataset, text: el.querySelector(".error").textContent }));
  assert.deepEqual(await shown(), {
    category: "auth",
    code: "run/http",
    status: "401",
    cause: "FetchError",
    causeStatus: "401",
    text: "Authentication error. Sign in again.",
  });
  assert.equal((await requests(thread)).length, 0, "nothing was sent without a token");

  await page.click("#sign-in-again");
  assert.equal(await say(page, "What time is it?"), "completed");
  assert.equal(await page.$$eval("#run-error", (els) => els.length), 0, "a good run clears the error");
  assert.equal((await requests(thread)).length, 2);

  // The server refuses the token: the app's fetch throws FetchError(401) for the answer.
  const res = await fetch(`${agentUrl}/test/script`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ threadId: thread, responses: [{ status: 401, contentType: "application/json", body: '{"detail":"token expired"}' }] }),
  });
  assert.equal(res.status, 200);
  assert.equal(await say(page, "What time is it?"), "error");
  assert.deepEqual(await shown(), {
    category: "auth",
    code: "run/http",
    status: "401",
    cause: "FetchError",
    causeStatus: "401",
    text: "Authentication error. Sign in again.",
  });
  const sent = await requests(thread);
  assert.equal(sent.length, 3);
  assert.match(sent[2].headers.authorization ?? "", /^Bearer token-/);
  await done(app);
});

scenario("auth: signed out before the chat starts, loadTools rejects tools/fetch 401 with the app's FetchError as cause", async () => {
  const app = await openApp("#/");
  const { page } = app;
  await page.waitForSelector("#home", { timeout: WAIT });
  await page.click("#sign-out");
  await page.click("#new-chat");
  await page.waitForSelector("#tools-error", { timeout: WAIT });
  assert.deepEqual(await page.$eval("#tools-error", (el) => ({ ...el.dataset, text: el.textContent })), {
    code: "tools/fetch",
    status: "401",
    cause: "FetchError",
    text: "Authentication error. Sign in again.",
  });
  assert.equal(await page.$$eval("#tools input[data-tool=get_browser_time]", (els) => els.length), 0, "no catalog");
  await done(app);
});

scenario("a message sent before the wasm module is loaded waits for the runtime and its catalog", async () => {
  let release;
  const gate = new Promise((resolve) => (release = resolve));
  const app = await openApp("#/chat", {
    beforeGoto: (page) => page.route(/\.wasm$/, async (route) => {
      await gate;
      await route.continue();
    }),
  });
  const { page } = app;
  await page.waitForSelector("#input", { timeout: WAIT });
  assert.equal(await page.getAttribute("#status", "data-ready"), "false");
  const before = (await requests()).length;
  await send(page, "What time is it?");
  await page.waitForTimeout(500);
  assert.equal(await page.getAttribute("#status", "data-ready"), "false", "the wasm is still held back");
  assert.equal((await requests()).length, before, "nothing sent yet");
  assert.equal(await settled(page), 0, "the run waits instead of failing");

  release();
  await waitSettled(page, 1);
  assert.equal(await page.getAttribute("#status", "data-status"), "completed");
  assert.match(await lastAssistantText(page), /^Your browser says it is /);
  const thread = await threadOf(page);
  const sent = await requests(thread);
  assert.equal(sent.length, 2);
  assert.ok(toolNames(sent[0]).includes("get_browser_time"), "the first request waited for tools.json (the default-on tool was offered)");
  await done(app);
});

scenario("a waiting approval survives leaving the chat page and coming back (the tool registered above the router)", async () => {
  const app = await openApp("#/chat");
  const { page } = app;
  await chatReady(page);
  await send(page, "Please delete all my notes.");
  await page.waitForSelector(".approval", { timeout: WAIT });
  const thread = await threadOf(page);
  const call = await page.getAttribute(".approval", "data-call");

  // Away from the chat (its page unmounts), past the default tool deadline, and back.
  await page.click("nav a[href='#/']");
  await page.waitForSelector("#home", { timeout: WAIT });
  await page.waitForTimeout(TOOL_TIMEOUT_MS * 1.5);
  await page.evaluate((id) => (location.hash = `#/chat/${encodeURIComponent(id)}`), thread);
  await page.waitForSelector(".approval", { timeout: WAIT });
  assert.equal(await page.getAttribute(".approval", "data-call"), call, "the same call's card");
  assert.equal(await page.getAttribute("#status", "data-running"), "true", "the run kept waiting");

  await page.click(".approval .approval-approve");
  await page.waitForFunction(() => {
    const texts = [...document.querySelectorAll("#messages > li[data-role=assistant] .text")];
    return texts.at(-1)?.textContent === "Done: delete all my notes.";
  }, null, { timeout: WAIT });
  await page.waitForSelector("#status[data-running=false]", { timeout: WAIT });
  const sent = await requests(thread);
  assert.equal(sent.length, 2, "the send, then the restart with the answer");
  const results = sent[1].body.messages.filter((m) => m.role === "tool");
  assert.deepEqual(results.map((m) => m.content), ['{"confirmed":true}'], "answered by the user, not INTERRUPTED");
  await done(app);
});

scenario("a wasm that answers 404 (a rolling deploy) leaves the app's shell; the error shows; the next send recovers once it answers 200", async () => {
  let missing = true;
  const app = await openApp("#/chat", {
    beforeGoto: (page) =>
      page.route(/\.wasm$/, (route) => (missing ? route.fulfill({ status: 404, contentType: "text/plain", body: "not found" }) : route.continue())),
  });
  const { page } = app;
  // The provider rendered its children: the shell (nav) and the chat page are there, with the error.
  await page.waitForSelector("#run-error", { timeout: WAIT });
  assert.deepEqual(await page.$eval("#run-error", (el) => ({ category: el.dataset.category, code: el.dataset.code })), {
    category: "unavailable",
    code: "react/start-failed",
  });
  assert.equal(await page.textContent("#run-error .error"), "The chat could not load. Try again.");
  assert.ok(await page.$("nav a[href='#/']"), "the app's shell stays");
  assert.ok(await page.$("#input"), "the chat page stays");
  assert.equal(await page.getAttribute("#tools-error", "data-code"), "react/start-failed", "useToolToggles reports it too");

  // The wasm is back: the next send starts the runtime again, and the run goes through.
  missing = false;
  assert.equal(await say(page, "What time is it?"), "completed");
  assert.match(await lastAssistantText(page), /^Your browser says it is /);
  assert.equal(await page.$$eval("#run-error", (els) => els.length), 0, "the error went with the recovery");
  await chatReady(page);
  await done(app);
});

// ---- the same scenarios on @ag-ui/core 1.0.0 ------------------------------------------------------

for (const [name, fn] of scenarios) {
  test(`@ag-ui/core 1.0.0: ${name}`, async () => {
    assert.ok(agentV1Url, "the 1.0.0 build is served (its build test passed)");
    const served = agentUrl;
    agentUrl = agentV1Url;
    try {
      await fn();
    } finally {
      agentUrl = served;
    }
  });
}
