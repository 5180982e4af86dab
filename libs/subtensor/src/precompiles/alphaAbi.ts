import { netuidU16 as netuid, returns, viewFunction as view } from "./abiBuilders.js";

/**
 * Alpha precompile (`0x…0808`), every function `view`. Signatures and return types follow the Rust
 * `#[precompile::public]` strings of `precompiles/src/alpha.rs` (research data-api §2.4.2).
 *
 * Units: the two price functions and `getSumAlphaPrice` return TAO per alpha scaled by 1e18 (the chain
 * truncates the price to 9 decimals, then multiplies by 1e9: see `alphaPriceFromRatio`); pool getters
 * return raw u64 rao or nano-alpha; `getTaoWeight`/`getCKBurn` return a raw u64 to divide by u64::MAX;
 * the three emission getters return what was injected in the last block (rao or nano-alpha).
 */
export const alphaAbi = [
  view("getAlphaPrice", [netuid], returns("uint256")),
  view("getMovingAlphaPrice", [netuid], returns("uint256")),
  view("getTaoInPool", [netuid], returns("uint64")),
  view("getAlphaInPool", [netuid], returns("uint64")),
  view("getAlphaOutPool", [netuid], returns("uint64")),
  view("getAlphaIssuance", [netuid], returns("uint64")),
  view("getTaoWeight", [], returns("uint256")),
  view("getCKBurn", [], returns("uint256")),
  view("simSwapTaoForAlpha", [netuid, { name: "tao", type: "uint64" }], returns("uint256")),
  view("simSwapAlphaForTao", [netuid, { name: "alpha", type: "uint64" }], returns("uint256")),
  view("getSubnetMechanism", [netuid], returns("uint16")),
  view("getRootNetuid", [], returns("uint16")),
  view("getEMAPriceHalvingBlocks", [netuid], returns("uint64")),
  view("getSubnetVolume", [netuid], returns("uint256")),
  view("getTaoInEmission", [netuid], returns("uint256")),
  view("getAlphaInEmission", [netuid], returns("uint256")),
  view("getAlphaOutEmission", [netuid], returns("uint256")),
  view("getSumAlphaPrice", [], returns("uint256")),
] as const;
