export { precompileAddresses, ROOT_NETUID, type PrecompileName } from "./addresses.js";
export { alphaAbi } from "./alphaAbi.js";
export { metagraphAbi } from "./metagraphAbi.js";
export { stakingV2Abi } from "./stakingV2Abi.js";
export { subnetAbi } from "./subnetAbi.js";
export { PRICE_FEED_DECIMALS, priceFeedAbi } from "./priceFeedAbi.js";
export {
  ALPHA_PRICE_DECIMALS,
  ALPHA_PRICE_SCALE,
  alphaPriceFromReserves,
  formatAlphaPrice,
  formatRaoAsTao,
  formatRatio,
  formatScaled,
  formatU16Ratio,
  formatU64Ratio,
  parseScaled,
  RAO_PER_TAO,
  raoToWei,
  TAO_DECIMALS,
  U16_MAX,
  U16_RATIO_DECIMALS,
  U64_MAX,
  U64_RATIO_DECIMALS,
  WEI_PER_RAO,
  weiToRao,
} from "./units.js";
