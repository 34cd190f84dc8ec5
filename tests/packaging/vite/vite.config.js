// Nothing chat-runtime specific: Vite 8 serves (dev) and bundles (build) the package's
// `new URL("chat_runtime_bg.wasm", import.meta.url)` as it is.
import { defineConfig } from "vite";

export default defineConfig({ logLevel: "warn" });
