// The smallest useful @ag-ui/client bundle: HttpAgent only (tree-shaken), for the size table.
export { HttpAgent } from "@ag-ui/client";
