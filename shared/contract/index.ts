// The contract between pages and servers, one file per endpoint or
// direction; every type is inferred from its zod/mini schema (shared/zod.ts,
// jitless). Import from here, or from the one file you need where bundle size
// matters (the probe page: a schema module's top-level checks are not
// tree-shaken).
export * from "./version.js";
export * from "./fields.js";
export * from "./parse.js";
export * from "./query-string.js";
export * from "./reasons.js";
export * from "./samples.js";
export * from "./sample-pairs.js";
export * from "./config.js";
export * from "./ws.js";
export * from "./stats.js";
export * from "./charts.js";
export * from "./clients.js";
export * from "./races.js";
export * from "./forensics.js";
export * from "./changes.js";
export * from "./incidents.js";
export * from "./status.js";
export * from "./stress.js";
