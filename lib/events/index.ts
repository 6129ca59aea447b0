// The event bus and its kinds table; see bus.ts and kinds.ts.
export * from "./bus.ts";
export * from "./kinds.ts";
