// Vite + React 19 + TypeScript without @vitejs/plugin-react: Vite's built-in transform compiles the
// .tsx files (automatic JSX runtime). The dev server proxies the agent's API and the tools to the
// demo agent (AGENT_URL, default http://127.0.0.1:8080: `make demo-assistant-ui`, gateway mode).
import { defineConfig } from "vite";

const agent = process.env.AGENT_URL ?? "http://127.0.0.1:8080";

export default defineConfig({
  oxc: { jsx: { runtime: "automatic" } },
  server: { proxy: { "/api": agent, "/tools": agent, "/test": agent } },
  // SPLIT_CHAT_RUNTIME=1: chat-runtime's JS (tree-shaken) in a chunk of its own, so its bytes can be
  // measured (tests/packaging/assistant-ui.test.mjs, docs/assistant-ui.md "What it costs").
  build: process.env.SPLIT_CHAT_RUNTIME
    ? {
        rolldownOptions: {
          output: {
            codeSplitting: {
              // Only chat-runtime's own modules: not the assistant-ui code they import.
              includeDependenciesRecursively: false,
              groups: [{ name: "chat-runtime", test: /[\\/]node_modules[\\/]chat-runtime[\\/]/ }],
            },
          },
        },
      }
    : {},
  logLevel: "warn",
});
