export { INVALID_ADDRESS, InvalidAddressError, isInvalidAddressError } from "./errors.js";
export { SUBTENSOR_SS58_PREFIX, ss58Decode, ss58Encode, type DecodedSs58 } from "./ss58.js";
export { evmAddressToAccountId } from "./evmMapping.js";
export {
  accountFromEvmAddress,
  accountFromPublicKey,
  accountKind,
  checkAccountAddress,
  parseAccount,
  type AccountId,
  tryParseAccount,
} from "./parseAccount.js";
