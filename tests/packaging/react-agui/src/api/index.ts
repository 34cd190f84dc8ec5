export * from "./agents";
export * from "./threads";
