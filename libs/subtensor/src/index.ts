// Subtensor-specific knowledge shared by the devnet, the ingestor, the query side and the gateway.
export * from "./precompiles/index.js";
export * from "./address/index.js";
export * from "./storage/index.js";
