export { blake2_128Concat, concatBytes, identityHasher, storagePrefix, twox128, twox64Concat } from "./hashers.js";
export {
  encodeBytes,
  encodeCompact,
  encodeU128,
  encodeU16,
  encodeU64,
  SCALE_DECODE_FAILED,
  ScaleDecodeError,
  scaleReader,
  utf8Text,
  type ScaleReader,
} from "./scale.js";
export {
  STORAGE_QUERY_PALLETS,
  storageQueryAllows,
  subtensorStorageDecoders,
  subtensorStorageDefaults,
  subtensorStorageKeys,
  type ChainIdentityV2,
  type SubnetIdentityV3,
} from "./storageItems.js";
export { xxhash64 } from "./xxhash64.js";
