// Subtensor-specific knowledge shared by the devnet, the ingestor, the query side and the gateway:
// addresses (SS58, the H160 mapping), units and their exact formatting, and the coin/USD feed's ABI.
export { INVALID_ADDRESS, InvalidAddressError, isInvalidAddressError } from "./address/errors.js";
export { SUBTENSOR_SS58_PREFIX, ss58Decode, ss58Encode, type DecodedSs58 } from "./address/ss58.js";
export { evmAddressToAccountId } from "./address/evmMapping.js";
export {
  accountFromEvmAddress,
  accountFromPublicKey,
  accountKind,
  checkAccountAddress,
  parseAccount,
  type AccountId,
  tryParseAccount,
} from "./address/parseAccount.js";
export {
  formatRaoAsTao,
  formatRatio,
  formatScaled,
  formatU16Ratio,
  formatU64Ratio,
  parseScaled,
  RAO_PER_TAO,
  raoToWei,
  ROOT_NETUID,
  TAO_DECIMALS,
  U16_MAX,
  U16_RATIO_DECIMALS,
  U64_MAX,
  U64_RATIO_DECIMALS,
  utf8Text,
  WEI_PER_RAO,
  weiToRao,
} from "./units/units.js";
export { PRICE_FEED_DECIMALS, priceFeedAbi } from "./price/priceFeedAbi.js";
