// Imported through a tools.json that was redirected here: relative to /tools/moved/.
export function whereAmI() {
  return new URL(import.meta.url).pathname;
}
