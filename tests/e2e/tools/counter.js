// Shared by every tool module: counts evaluations of a module per URL and logs what tools do.
export function countImport(url) {
  globalThis.__imports ??= {};
  globalThis.__imports[url] = (globalThis.__imports[url] ?? 0) + 1;
}

export function log(entry) {
  (globalThis.__log ??= []).push(entry);
}
