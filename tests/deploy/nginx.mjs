// Runs Debian's nginx (/usr/sbin/nginx, `make nginx` installs it) in the foreground with deploy/nginx.conf
// as its one server block, under a temp prefix of its own: its config, logs, temp dirs and pid file.
// The three lines deploy/nginx.conf marks EDIT are replaced, each exactly once, as a user edits them:
// `listen` (a free port on 127.0.0.1), `root` (the app dir) and `proxy_pass` (the AG-UI server).
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { freePort, startProcess } from "../support/spawn.mjs";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const NGINX = process.env.NGINX ?? "/usr/sbin/nginx";

/** deploy/nginx.conf with its EDIT lines set; fails if a line is not there exactly once. */
export function serverBlock({ port, root, upstream }) {
  let text = readFileSync(join(ROOT, "deploy/nginx.conf"), "utf8");
  const edits = [
    [/^(\s*)listen 8080;(.*)$/m, `$1listen 127.0.0.1:${port};$2`],
    [/^(\s*)root \/usr\/share\/nginx\/html;(.*)$/m, `$1root ${root};$2`],
    [/^(\s*)proxy_pass http:\/\/agent:8000;(.*)$/m, `$1proxy_pass ${upstream};$2`],
  ];
  for (const [pattern, replacement] of edits) {
    const global = new RegExp(pattern.source, "gm");
    assert.equal(text.match(global)?.length, 1, `deploy/nginx.conf: expected one line matching ${pattern}`);
    text = text.replace(pattern, replacement);
  }
  return text;
}

/**
 * Starts nginx on a free port serving `root`, proxying /api/ to `upstream`. Resolves with
 * `{ url, prefix, accessLog, stop }` once it answers. The access log has one line per request:
 * `<uri> <status> <If-None-Match sent> <Content-Encoding>`.
 */
export async function startNginx({ prefix, root, upstream }) {
  assert.ok(existsSync(NGINX), `${NGINX} is missing: run \`make nginx\` (apt-get install nginx)`);
  const port = await freePort();
  for (const dir of ["logs", "tmp"]) mkdirSync(join(prefix, dir), { recursive: true });
  writeFileSync(join(prefix, "server.conf"), serverBlock({ port, root, upstream }));
  const accessLog = join(prefix, "logs/access.log");
  // As root, the workers would switch to `nobody`, who cannot read the test's temp dirs.
  const user = process.getuid?.() === 0 ? "user root;\n" : "";
  writeFileSync(
    join(prefix, "nginx.conf"),
    `${user}worker_processes 1;
events { worker_connections 256; }
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    log_format check '$request_uri $status "$http_if_none_match" "$sent_http_content_encoding"';
    access_log ${accessLog} check;
    client_body_temp_path ${prefix}/tmp/body;
    proxy_temp_path ${prefix}/tmp/proxy;
    fastcgi_temp_path ${prefix}/tmp/fastcgi;
    uwsgi_temp_path ${prefix}/tmp/uwsgi;
    scgi_temp_path ${prefix}/tmp/scgi;
    include ${prefix}/server.conf;
}
`,
  );
  const url = `http://127.0.0.1:${port}`;
  const { output, stop } = await startProcess(
    NGINX,
    ["-p", prefix, "-c", join(prefix, "nginx.conf"), "-e", "stderr", "-g", `daemon off; pid ${prefix}/nginx.pid; error_log stderr;`],
    // SIGQUIT: graceful, the workers finish and exit with the master.
    { name: "nginx", ready: { url: `${url}/` }, stopSignal: "SIGQUIT" },
  );
  return { url, prefix, accessLog, output, stop };
}

/** The access log's lines since `from` (a line count), parsed. */
export function accessLines(accessLog, from = 0) {
  const lines = existsSync(accessLog) ? readFileSync(accessLog, "utf8").split("\n").filter(Boolean) : [];
  return lines.slice(from).map((line) => {
    const [, uri, status, inm, encoding] = /^(\S+) (\d+) "(.*)" "(.*)"$/.exec(line) ?? [];
    return { uri, status: Number(status), ifNoneMatch: inm === "-" ? "" : inm, encoding: encoding === "-" ? "" : encoding };
  });
}
