// Subtensor-specific knowledge shared by the devnet, the ingestor, the query side and the gateway:
// addresses (SS58, the H160 mapping), units and their exact formatting, and the coin/USD feed's ABI.
export { INVALID_ADDRESS, InvalidAddressError, isInvalidAddressError } from "./address/errors.js";
export { evmAddressToAccountId } from "./address/evmMapping.js";
export {
  type AccountId,
  accountFromEvmAddress,
  accountFromPublicKey,
  accountKind,
  checkAccountAddress,
  parseAccount,
  tryParseAccount,
} from "./address/parseAccount.js";
export { type DecodedSs58, SUBTENSOR_SS58_PREFIX, ss58Decode, ss58Encode } from "./address/ss58.js";
export { PRICE_FEED_DECIMALS, priceFeedAbi } from "./price/priceFeedAbi.js";
export {
  formatRaoAsTao,
  formatRatio,
  formatScaled,
  formatU16Ratio,
  formatU64Ratio,
  parseScaled,
  RAO_PER_TAO,
  ROOT_NETUID,
  raoToWei,
  TAO_DECIMALS,
  U16_MAX,
  U16_RATIO_DECIMALS,
  U64_MAX,
  U64_RATIO_DECIMALS,
  utf8Text,
  WEI_PER_RAO,
  weiToRao,
} from "./units/units.js";
