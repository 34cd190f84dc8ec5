// Serves the demo page and the built package on 127.0.0.1 (no dependencies).
//   /            -> demo/index.html
//   /pkg/...     -> pkg/ (the wasm-pack build)
//   /fixtures/...-> tests/fixtures/ (recorded AG-UI streams to decode)
//   anything else under demo/
// Usage: node demo/serve.mjs [--port 8080]   (PORT in the environment works too; 0 picks a free port)
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const mounts = [
  ["/pkg/", join(root, "pkg")],
  ["/fixtures/", join(root, "tests", "fixtures")],
  ["/", join(root, "demo")],
];
const types = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".sse": "text/event-stream; charset=utf-8",
  ".svg": "image/svg+xml",
  ".ts": "text/plain; charset=utf-8",
};

/** Maps a URL path to a file under one of the mounts, refusing anything that escapes it. */
function resolvePath(urlPath) {
  for (const [prefix, dir] of mounts) {
    if (!urlPath.startsWith(prefix)) continue;
    const rel = decodeURIComponent(urlPath.slice(prefix.length)) || "index.html";
    const file = normalize(join(dir, rel));
    if (file !== dir && !file.startsWith(dir + sep)) return null;
    return file;
  }
  return null;
}

export function startServer({ port = 8080, host = "127.0.0.1" } = {}) {
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, "http://localhost");
      let file = resolvePath(url.pathname);
      if (file && (await stat(file).catch(() => null))?.isDirectory()) file = join(file, "index.html");
      const body = file && (await readFile(file).catch(() => null));
      if (!body) {
        res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
        return;
      }
      res.writeHead(200, {
        "content-type": types[extname(file)] ?? "application/octet-stream",
        "cache-control": "no-store",
      });
      res.end(body);
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" }).end(String(error));
    }
  });
  return new Promise((done, fail) => {
    server.once("error", fail);
    server.listen(port, host, () => done(server));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const flag = process.argv.indexOf("--port");
  const port = Number(flag >= 0 ? process.argv[flag + 1] : process.env.PORT ?? 8080);
  const server = await startServer({ port });
  const { port: bound } = server.address();
  console.log(`chat-runtime demo: http://127.0.0.1:${bound}/  (Ctrl-C stops)`);
  const stop = () => server.close(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
