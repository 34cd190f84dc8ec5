// deploy/helm/chat-frontend under Helm's own engine (Helm v4's Go SDK through PyPI's helm-python-sdk,
// in target/helm-venv: `make helm-sdk`), driven by tests/deploy/helm.py: the chart lints, renders
// for the example values, the rendered tools folder passes `chat-runtime check-tools` (the runtime's
// catalog rules), and values.schema.json rejects bad values. Needs `make build` for the checker.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CHART = join(ROOT, "deploy/helm/chat-frontend");
const EXAMPLE = join(ROOT, "deploy/helm/examples/values.yaml");
const PYTHON = process.env.HELM_PYTHON ?? join(ROOT, "target/helm-venv/bin/python");
const temp = mkdtempSync(join(tmpdir(), "chat-runtime-helm-"));
after(() => rmSync(temp, { recursive: true, force: true }));

let n = 0;
/** Runs tests/deploy/helm.py; `values` is a path, an object (written as JSON) or "-". */
function helm(command, values = "-") {
  assert.ok(existsSync(PYTHON), `${PYTHON} is missing: run \`make helm-sdk\``);
  let file = values;
  if (typeof values === "object") {
    file = join(temp, `values-${++n}.json`);
    writeFileSync(file, JSON.stringify(values));
  }
  const out = execFileSync(PYTHON, [join(ROOT, "tests/deploy/helm.py"), command, CHART, file], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  return JSON.parse(out);
}

const byKind = (manifests, kind, name) =>
  Object.values(manifests)
    .flat()
    .find((m) => m.kind === kind && (name === undefined || m.metadata.name === name));

test("helm lint --strict: no warnings and no errors for the example values", () => {
  const report = helm("lint", EXAMPLE);
  assert.deepEqual(report.errors, []);
  assert.deepEqual(report.messages.filter((m) => m.severity >= 2), [], JSON.stringify(report.messages));
});

test("the example values render: the tools ConfigMap (tools.json + the inline module), one projected tools/ volume with the external ConfigMap, nginx's server block with its EDIT lines set", () => {
  const { manifests, error } = helm("render", EXAMPLE);
  assert.equal(error, undefined);
  const tools = byKind(manifests, "ConfigMap", "chat-frontend-tools");
  assert.deepEqual(Object.keys(tools.data).sort(), ["tools.json", "weather.js"]);
  const manifest = JSON.parse(tools.data["tools.json"]);
  assert.deepEqual(manifest.map((e) => [e.importPath, e.entrypoint]), [["/tools/weather.js", "getWeather"], ["/tools/clock.js", "getBrowserTime"]]);
  assert.equal(manifest[0].timeoutMs, 5000);
  assert.equal(manifest[1].defaultEnabled, true);
  assert.ok(manifest.every((e) => !("source" in e) && !("name" in e)), "the chart's own keys stay out of tools.json");
  assert.match(tools.data["weather.js"], /^\/\/ get_weather[\s\S]*export async function getWeather\(\{ city \}\)/);

  const deployment = byKind(manifests, "Deployment");
  const pod = deployment.spec.template.spec;
  const toolsVolume = pod.volumes.find((v) => v.name === "tools");
  assert.deepEqual(toolsVolume.projected.sources, [
    { configMap: { name: "chat-frontend-tools" } },
    { configMap: { name: "team-tools", items: [{ key: "clock.js", path: "clock.js" }] } },
  ]);
  const mounts = pod.containers[0].volumeMounts;
  const toolsMount = mounts.find((m) => m.name === "tools");
  assert.equal(toolsMount.mountPath, "/usr/share/nginx/html/tools");
  assert.equal(toolsMount.subPath, undefined, "no subPath: a subPath mount never sees a ConfigMap update");

  const nginx = byKind(manifests, "ConfigMap", "chat-frontend-nginx").data["default.conf"];
  const expected = readFileSync(join(ROOT, "deploy/nginx.conf"), "utf8")
    .replace("proxy_pass http://agent:8000;", "proxy_pass http://chat-backend:8000;")
    .trimEnd();
  assert.equal(nginx, expected, "deploy/nginx.conf, its proxy_pass set from frontend.apiUpstream");
  assert.ok(mounts.some((m) => m.mountPath === "/etc/nginx/conf.d/default.conf" && m.subPath === "default.conf"));
});

test("the rendered tools folder (the chart's ConfigMap plus the external module) passes chat-runtime check-tools", () => {
  const bin = join(ROOT, "pkg/bin/chat-runtime.js");
  assert.ok(existsSync(bin), `${bin} is missing: run \`make build\``);
  const { manifests } = helm("render", EXAMPLE);
  const dir = join(temp, "tools");
  mkdirSync(dir);
  for (const [key, text] of Object.entries(byKind(manifests, "ConfigMap", "chat-frontend-tools").data)) writeFileSync(join(dir, key), text);
  // team-tools' clock.js, as `kubectl create configmap team-tools --from-file=clock.js` would hold it.
  copyFileSync(join(ROOT, "demo/tools/clock.js"), join(dir, "clock.js"));
  const r = spawnSync(process.execPath, [bin, "check-tools", dir], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /: 2 tools load; 0 errors, 0 warnings\n$/);
  // Without the external ConfigMap's module, the same folder fails: the check looks at the files.
  rmSync(join(dir, "clock.js"));
  const missing = spawnSync(process.execPath, [bin, "check-tools", dir], { encoding: "utf8" });
  assert.equal(missing.status, 1);
  assert.match(missing.stdout, /^clock\.js: #1 get_browser_time: check\/missing-module: /m);
});

test("the defaults render without tools: no tools ConfigMap, no tools volume", () => {
  const { manifests, error } = helm("render");
  assert.equal(error, undefined);
  assert.equal(byKind(manifests, "ConfigMap", "chat-frontend-tools"), undefined);
  const pod = byKind(manifests, "Deployment").spec.template.spec;
  assert.deepEqual(pod.volumes.map((v) => v.name), ["nginx-conf"]);
});

test("frontend.port and frontend.htmlRoot set nginx's listen and root lines and where tools/ is mounted", () => {
  const { manifests } = helm("render", { frontend: { port: 9000, htmlRoot: "/srv/app", tools: { configMaps: [{ name: "team-tools" }] } } });
  const conf = byKind(manifests, "ConfigMap", "chat-frontend-nginx").data["default.conf"];
  assert.match(conf, /^    listen 9000;/m);
  assert.match(conf, /^    root \/srv\/app;/m);
  const container = byKind(manifests, "Deployment").spec.template.spec.containers[0];
  assert.equal(container.ports[0].containerPort, 9000);
  assert.equal(container.volumeMounts.find((m) => m.name === "tools").mountPath, "/srv/app/tools");
});

test("two inline entries giving one file different sources: the render fails and says which", () => {
  const entry = (name, source) => ({ tool: { name, description: name }, importPath: "/tools/shared.js", entrypoint: name, source });
  const { error } = helm("render", { frontend: { tools: { inline: [entry("a", "export const a = 1;"), entry("b", "export const b = 2;")] } } });
  assert.match(error ?? "", /frontend\.tools\.inline\[1\]: another entry already gave shared\.js a different source/);
  const same = helm("render", { frontend: { tools: { inline: [entry("a", "export const a = 1, b = 2;"), entry("b", "export const a = 1, b = 2;")] } } });
  assert.equal(same.error, undefined, "the same source twice is one file");
});

// ---- values.schema.json ----------------------------------------------------------------------

const good = {
  tool: { name: "get_weather", description: "Weather" },
  importPath: "/tools/weather.js",
  entrypoint: "getWeather",
};
const withInline = (entry) => ({ frontend: { tools: { inline: [entry] } } });
const withConfigMap = (ref) => ({ frontend: { tools: { configMaps: [ref] } } });

test("values.schema.json accepts the example, the defaults and a minimal entry", () => {
  assert.deepEqual(helm("validate", EXAMPLE), { ok: true });
  assert.deepEqual(helm("validate"), { ok: true });
  assert.deepEqual(helm("validate", withInline(good)), { ok: true });
  assert.deepEqual(helm("validate", withInline({ ...good, timeoutMs: null, followUp: false })), { ok: true });
  assert.deepEqual(helm("validate", withConfigMap({ name: "team-tools" })), { ok: true });
});

const BAD = [
  ["a tool name with a space", withInline({ ...good, tool: { name: "get weather", description: "x" } }), /name/],
  ["no entrypoint", withInline({ tool: good.tool, importPath: good.importPath }), /entrypoint/],
  ["an entrypoint that is not an identifier", withInline({ ...good, entrypoint: "get-weather" }), /entrypoint/],
  ["timeoutMs 0", withInline({ ...good, timeoutMs: 0 }), /timeoutMs/],
  ["a blank description", withInline({ ...good, tool: { name: "x", description: "  " } }), /description/],
  ["parameters of type array", withInline({ ...good, tool: { ...good.tool, parameters: { type: "array" } } }), /parameters|type/],
  ["a misspelt key (sorce)", withInline({ ...good, sorce: "export const getWeather = () => 1;" }), /sorce|additional/i],
  ["file tools.json (would replace the manifest)", withInline({ ...good, source: "x", file: "tools.json" }), /file/],
  ["an unknown key under tools (inlin)", { frontend: { tools: { inlin: [] } } }, /inlin|additional/i],
  ["a ConfigMap name in capitals", withConfigMap({ name: "Team_Tools" }), /name/],
  ["an item path out of the folder", withConfigMap({ name: "team-tools", items: [{ key: "x.js", path: "../x.js" }] }), /path/],
  ["apiUpstream with a path", { frontend: { apiUpstream: "http://backend:8000/api/" } }, /apiUpstream/],
  ["port as a string", { frontend: { port: "8080" } }, /port/],
];

for (const [what, values, message] of BAD) {
  test(`values.schema.json rejects ${what}; helm template refuses to render it`, () => {
    const result = helm("validate", values);
    assert.equal(result.ok, false, `accepted: ${JSON.stringify(values)}`);
    assert.match(result.error, message);
    assert.match(helm("render", values).error ?? "", /values don't meet the specifications of the schema/);
  });
}

// ---- deploy/helm/snippets: the tools folder added to an existing chart -----------------------
//
// The chart an app already has (the chat pack's): an nginx Deployment serving the built app, with
// only config.json mounted from a ConfigMap by subPath, its tools baked into the image. The app
// copies deploy/helm/snippets/chat-tools.yaml into templates/, merges snippets/values.yaml into its
// values and adds the two `include` lines to its Deployment (deploy/README.md, Helm); its built tools
// folder goes into files/tools/.

const SNIPPETS = join(ROOT, "deploy/helm/snippets");
const APP_TOOLS = join(ROOT, "demo/tools"); // an app's built tools: tools.json and its modules (make demo-tools)

const appDeployment = (withTools) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-chat-pack
spec:
  replicas: 1
  selector:
    matchLabels: { app: chat-pack }
  template:
    metadata:
      labels: { app: chat-pack }
    spec:
      containers:
        - name: nginx
          image: "{{ .Values.image }}"
          ports:
            - containerPort: 8080
          volumeMounts:
            - name: config
              mountPath: /usr/share/nginx/html/config.json
              subPath: config.json
              readOnly: true${withTools ? `
            {{- include "chat-tools.volumeMount" . | nindent 12 }}` : ""}
      volumes:
        - name: config
          configMap:
            name: {{ .Release.Name }}-chat-pack-config${withTools ? `
        {{- include "chat-tools.volume" . | nindent 8 }}` : ""}
`;

const appConfigMap = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-chat-pack-config
data:
  config.json: {{ .Values.config | toJson | quote }}
`;

const appValues = `image: nginxinc/nginx-unprivileged:1.27-alpine
config:
  apiUrl: /api
`;

/**
 * The existing app's chart in a temp dir; `withTools`: the snippet adopted (`values`: its values
 * block merged too), `tools`: files/tools/.
 */
function appChart({ withTools = false, values: withValues = withTools, tools = withTools } = {}) {
  const dir = join(temp, `app-${++n}`);
  mkdirSync(join(dir, "templates"), { recursive: true });
  writeFileSync(join(dir, "Chart.yaml"), "apiVersion: v2\nname: chat-pack\nversion: 1.0.0\nappVersion: \"1.0.0\"\nicon: https://example.com/icon.png\n");
  writeFileSync(join(dir, "templates/deployment.yaml"), appDeployment(withTools));
  writeFileSync(join(dir, "templates/configmap.yaml"), appConfigMap);
  let values = appValues;
  if (withTools) {
    copyFileSync(join(SNIPPETS, "chat-tools.yaml"), join(dir, "templates/chat-tools.yaml"));
  }
  if (withValues) values += `\n${readFileSync(join(SNIPPETS, "values.yaml"), "utf8")}`;
  writeFileSync(join(dir, "values.yaml"), values);
  if (tools) {
    mkdirSync(join(dir, "files/tools"), { recursive: true });
    for (const file of readdirSync(APP_TOOLS)) copyFileSync(join(APP_TOOLS, file), join(dir, "files/tools", file));
  }
  return dir;
}

/** helm.py on a chart of our own (the chat-frontend chart is `helm()`'s). */
function helmOn(chart, command, values = "-") {
  let file = values;
  if (typeof values === "object") {
    file = join(temp, `values-${++n}.json`);
    writeFileSync(file, JSON.stringify(values));
  }
  const out = execFileSync(PYTHON, [join(ROOT, "tests/deploy/helm.py"), command, chart, file], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  return JSON.parse(out);
}

/** The Deployment without the chat-tools volume and mount: what the app had. */
function withoutTools(deployment) {
  const copy = structuredClone(deployment);
  const pod = copy.spec.template.spec;
  pod.volumes = pod.volumes.filter((v) => v.name !== "chat-tools");
  for (const c of pod.containers) c.volumeMounts = c.volumeMounts.filter((m) => m.name !== "chat-tools");
  return copy;
}

test("snippets: an existing chart with chat-tools.yaml renders its tools/ folder as a ConfigMap (tools.json and every module a key), projected at the nginx root's tools/, config.json's subPath mount untouched", () => {
  const before = helmOn(appChart(), "render");
  assert.equal(before.error, undefined);
  const { manifests, error } = helmOn(appChart({ withTools: true }), "render");
  assert.equal(error, undefined);

  const tools = byKind(manifests, "ConfigMap", "chat-chat-tools");
  assert.ok(tools, "the tools ConfigMap <release>-chat-tools");
  const files = readdirSync(APP_TOOLS).sort();
  assert.ok(files.includes("tools.json") && files.length > 1);
  assert.deepEqual(Object.keys(tools.data).sort(), files);
  for (const file of files) assert.equal(tools.data[file], readFileSync(join(APP_TOOLS, file), "utf8"), `${file} as it is`);

  const deployment = byKind(manifests, "Deployment");
  const pod = deployment.spec.template.spec;
  const volume = pod.volumes.find((v) => v.name === "chat-tools");
  assert.deepEqual(volume, { name: "chat-tools", projected: { sources: [{ configMap: { name: "chat-chat-tools" } }] } });
  const mount = pod.containers[0].volumeMounts.find((m) => m.name === "chat-tools");
  assert.deepEqual(mount, { name: "chat-tools", mountPath: "/usr/share/nginx/html/tools", readOnly: true }, "no subPath: a subPath mount never sees a ConfigMap update");

  // Everything else is what the app had: config.json still mounted by subPath, nothing else moved.
  const old = byKind(before.manifests, "Deployment");
  assert.deepEqual(withoutTools(deployment), old);
  assert.deepEqual(pod.containers[0].volumeMounts.find((m) => m.name === "config"), {
    name: "config",
    mountPath: "/usr/share/nginx/html/config.json",
    subPath: "config.json",
    readOnly: true,
  });
  assert.deepEqual(byKind(manifests, "ConfigMap", "chat-chat-pack-config"), byKind(before.manifests, "ConfigMap", "chat-chat-pack-config"));
});

test("snippets: the rendered tools ConfigMap, written out as the folder the pod sees, passes chat-runtime check-tools", () => {
  const bin = join(ROOT, "pkg/bin/chat-runtime.js");
  assert.ok(existsSync(bin), `${bin} is missing: run \`make build\``);
  const { manifests } = helmOn(appChart({ withTools: true }), "render");
  const dir = join(temp, `mounted-${++n}`);
  mkdirSync(dir);
  for (const [key, text] of Object.entries(byKind(manifests, "ConfigMap", "chat-chat-tools").data)) writeFileSync(join(dir, key), text);
  const r = spawnSync(process.execPath, [bin, "check-tools", dir], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /: 5 tools load; 0 errors, 0 warnings\n$/);
});

test("snippets: chatTools.configMaps project ConfigMaps made elsewhere into the same tools/ folder, after the chart's own", () => {
  const values = { chatTools: { configMaps: [{ name: "team-tools", items: [{ key: "clock.js", path: "clock.js" }] }, { name: "more-tools", optional: true }] } };
  const { manifests, error } = helmOn(appChart({ withTools: true }), "render", values);
  assert.equal(error, undefined);
  const pod = byKind(manifests, "Deployment").spec.template.spec;
  assert.deepEqual(pod.volumes.find((v) => v.name === "chat-tools").projected.sources, [
    { configMap: { name: "chat-chat-tools" } },
    { configMap: { name: "team-tools", items: [{ key: "clock.js", path: "clock.js" }] } },
    { configMap: { name: "more-tools", optional: true } },
  ]);
  // Only ConfigMaps made elsewhere (no files/tools/ in the chart): no ConfigMap of the chart's own.
  const external = helmOn(appChart({ withTools: true, tools: false }), "render", values);
  assert.equal(byKind(external.manifests, "ConfigMap", "chat-chat-tools"), undefined);
  const sources = byKind(external.manifests, "Deployment").spec.template.spec.volumes.find((v) => v.name === "chat-tools").projected.sources;
  assert.deepEqual(sources.map((s) => s.configMap.name), ["team-tools", "more-tools"]);
});

test("snippets: chatTools.mountPath moves the folder; without the values block the defaults apply; with no tools at all the Deployment is the app's own", () => {
  const mountOf = (rendered) => byKind(rendered.manifests, "Deployment").spec.template.spec.containers[0].volumeMounts.find((m) => m.name === "chat-tools");
  const moved = helmOn(appChart({ withTools: true }), "render", { chatTools: { mountPath: "/srv/app/tools" } });
  assert.equal(mountOf(moved).mountPath, "/srv/app/tools");
  const unmerged = helmOn(appChart({ withTools: true, values: false }), "render");
  assert.equal(unmerged.error, undefined);
  assert.equal(mountOf(unmerged).mountPath, "/usr/share/nginx/html/tools");
  assert.ok(byKind(unmerged.manifests, "ConfigMap", "chat-chat-tools"), "files/tools/* by default");

  const before = helmOn(appChart(), "render");
  const none = helmOn(appChart({ withTools: true, tools: false }), "render");
  assert.equal(none.error, undefined);
  assert.equal(byKind(none.manifests, "ConfigMap", "chat-chat-tools"), undefined);
  assert.deepEqual(byKind(none.manifests, "Deployment"), byKind(before.manifests, "Deployment"));
});

test("snippets: the existing chart with chat-tools.yaml passes helm lint --strict", () => {
  const report = helmOn(appChart({ withTools: true }), "lint");
  assert.deepEqual(report.errors, []);
  assert.deepEqual(report.messages.filter((m) => m.severity >= 2), [], JSON.stringify(report.messages));
});
