// Vite + React 19 without @vitejs/plugin-react: Vite's built-in transform compiles the .jsx files
// (automatic JSX runtime). The dev server proxies the agent's API and the tools to the demo agent
// (AGENT_URL, default http://127.0.0.1:8080: `make demo` or `cargo run -p chat-runtime-agent`).
import { defineConfig } from "vite";

const agent = process.env.AGENT_URL ?? "http://127.0.0.1:8080";

export default defineConfig({
  // Vite 8 transforms with Oxc; esbuild's option is kept for Vite versions before 8.
  oxc: { jsx: { runtime: "automatic" } },
  server: {
    proxy: {
      // ws: the Coder backend's chat stream is a WebSocket (/api/v2/chats/{id}/stream).
      "/api": { target: agent, ws: true },
      "/tools": agent,
      "/test": agent,
    },
  },
  logLevel: "warn",
});
