export { SUBTENSOR_CHAIN_SPEC_SHA256, ChainSpecChecksumError, subtensorChainSpec } from "./chainSpec.js";
