// Vite 8 + @vitejs/plugin-react, nothing chat-runtime needs: the package's .wasm is an asset that
// Vite emits (new URL(..., import.meta.url) in the package's glue).
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

export default defineConfig({
	plugins: [react()],
	logLevel: "warn",
});
