// What the benchmark bundles of @ag-ui/client: its whole public API (esbuild, minified).
export * from "@ag-ui/client";
