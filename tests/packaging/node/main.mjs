// Node: the wasm file is found through the package's exports map and initialised synchronously.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { initSync } from "chat-runtime";
import { check } from "./check.js";

const viaImportMeta = new URL(import.meta.resolve("chat-runtime/chat_runtime_bg.wasm"));
const viaRequire = createRequire(import.meta.url).resolve("chat-runtime/chat_runtime_bg.wasm");
const pkg = JSON.parse(readFileSync(createRequire(import.meta.url).resolve("chat-runtime/package.json"), "utf8"));
const result = await check(() => initSync({ module: readFileSync(viaImportMeta) }));
console.log(JSON.stringify({ ...result, sameFile: viaImportMeta.pathname === viaRequire, version: pkg.version }));
