// Subtensor-specific knowledge shared by the devnet, the ingestor, the query side and the gateway:
// addresses (SS58, the H160 mapping), units and their exact formatting, and the coin/USD feed's ABI.
export * from "./address/index.js";
export * from "./units/index.js";
export * from "./price/index.js";
