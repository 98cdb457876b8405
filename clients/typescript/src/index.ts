/* The package's entry point: the client (client.ts) and the runner adapters (runner.ts). */
export * from "./client.js";
export * from "./runner.js";
