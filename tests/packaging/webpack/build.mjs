// webpack 5 through its Node API, with nothing chat-runtime specific: no experiments, no loaders.
// The package's `new URL("chat_runtime_bg.wasm", import.meta.url)` becomes an asset on its own.
import { copyFileSync, mkdirSync } from "node:fs";
import webpack from "webpack";

const config = {
  mode: "production",
  context: process.cwd(),
  entry: "./src/index.js",
  output: { path: `${process.cwd()}/dist`, filename: "main.js", clean: true },
};

webpack(config, (error, stats) => {
  if (error || stats.hasErrors()) {
    console.error(error ?? stats.toString({ all: false, errors: true, warnings: true }));
    process.exit(1);
  }
  mkdirSync("dist", { recursive: true });
  copyFileSync("index.html", "dist/index.html");
  console.log(stats.toString({ all: false, assets: true }));
});
