import { bytesToHex, getAddress, hexToBytes, isAddress } from "viem";
import { InvalidAddressError } from "./errors.js";
import { evmAddressToAccountId } from "./evmMapping.js";
import { SUBTENSOR_SS58_PREFIX, ss58Decode, ss58Encode } from "./ss58.js";

/**
 * An account as the platform carries it; structurally the proto `common.v1.AccountId`, declared here
 * so this library does not depend on the generated code.
 */
export interface AccountId {
  /** SS58 with prefix 42. */
  ss58: string;
  /** 0x-prefixed lowercase 32-byte public key / account id. */
  publicKey: string;
  /** EIP-55 H160 this account is mapped from, when it was given as one. */
  evmH160?: string | undefined;
}

const HEX_32 = /^0x[0-9a-fA-F]{64}$/;
const HEX_20 = /^0x[0-9a-fA-F]{40}$/;

/**
 * The account a 32-byte public key (account id) is, with its SS58 and lowercase hex forms. Shared
 * and frozen: the same key gives the same object while it is remembered.
 *
 * Remembered because SS58 costs a base58 encode and a blake2b checksum in JS, and the native source
 * names the same accounts block after block, every position of a mainnet-sized holder set
 * (bench/native/scale measures it). At most ACCOUNTS_REMEMBERED, the oldest forgotten first.
 */
export function accountFromPublicKey(publicKey: Uint8Array | `0x${string}`): AccountId {
  const hex = typeof publicKey === "string" ? publicKey.toLowerCase() : bytesToHex(publicKey);
  const known = remembered.get(hex);
  if (known !== undefined) return known;
  const bytes = typeof publicKey === "string" ? hexToBytes(publicKey) : publicKey;
  const account: AccountId = Object.freeze({
    ss58: ss58Encode(bytes, SUBTENSOR_SS58_PREFIX),
    publicKey: bytesToHex(bytes),
    evmH160: undefined,
  });
  if (remembered.size >= ACCOUNTS_REMEMBERED) remembered.delete(remembered.keys().next().value!);
  remembered.set(hex, account);
  return account;
}

const ACCOUNTS_REMEMBERED = 300_000;
const remembered = new Map<string, AccountId>();

/** The account an EVM address is mapped to, remembering the (checksummed) H160 it came from. */
export function accountFromEvmAddress(h160: `0x${string}`): AccountId {
  const account = accountFromPublicKey(evmAddressToAccountId(h160));
  return { ...account, evmH160: getAddress(h160) };
}

/** What an input is, once it is known to be an account address. */
type AddressForm = { kind: "publicKey" } | { kind: "evm" } | { kind: "ss58"; publicKey: `0x${string}` };

// An SS58 address's check costs a base58 decode and a blake2b checksum in JS; the
// gateway checks every account read's address, and data-query parses it again, while the addresses
// asked about repeat (wallets poll theirs). So the public keys of recently seen valid addresses
// are kept, the oldest forgotten first (bench/data's mix measures what the decode costs).
const SS58_KEPT = 50_000;
const ss58PublicKeys = new Map<string, `0x${string}`>();

function ss58PublicKeyOf(input: string): `0x${string}` {
  const known = ss58PublicKeys.get(input);
  if (known !== undefined) return known;
  const decoded = ss58Decode(input);
  if (decoded.prefix !== SUBTENSOR_SS58_PREFIX) {
    throw new InvalidAddressError(input, `SS58 prefix ${decoded.prefix} is not Subtensor's ${SUBTENSOR_SS58_PREFIX}`);
  }
  const publicKey = bytesToHex(decoded.accountId);
  if (ss58PublicKeys.size >= SS58_KEPT) ss58PublicKeys.delete(ss58PublicKeys.keys().next().value!);
  ss58PublicKeys.set(input, publicKey);
  return publicKey;
}

function formOf(input: string): AddressForm {
  if (HEX_32.test(input)) return { kind: "publicKey" };
  if (HEX_20.test(input)) {
    // Mixed case claims an EIP-55 checksum; a wrong one is most likely a typo, so it is refused.
    // One case throughout claims none (as the gateway's EVM addresses: all lower or all upper).
    const hex = input.slice(2);
    const oneCase = hex === hex.toLowerCase() || hex === hex.toUpperCase();
    if (!oneCase && !isAddress(input, { strict: true })) throw new InvalidAddressError(input, "bad EIP-55 checksum");
    return { kind: "evm" };
  }
  if (input.startsWith("0x")) {
    throw new InvalidAddressError(input, "hex must be a 32-byte public key or a 20-byte EVM address");
  }
  return { kind: "ss58", publicKey: ss58PublicKeyOf(input) };
}

/**
 * Parses what a client may give as an account: SS58 with Subtensor's prefix 42, a 0x 32-byte public
 * key, or a 0x 20-byte EVM address (mapped with HashedAddressMapping). Throws InvalidAddressError.
 */
export function parseAccount(input: string): AccountId {
  const form = formOf(input);
  switch (form.kind) {
    case "publicKey":
      return accountFromPublicKey(input.toLowerCase() as `0x${string}`);
    case "evm":
      return mappedAccountOf(input as `0x${string}`);
    case "ss58":
      // Base58 text and bytes map one to one, so the input is already the canonical SS58: no re-encoding.
      return { ss58: input, publicKey: form.publicKey, evmH160: undefined };
  }
}

// The EVM mapping costs two hashes in JS (blake2b-256, then the SS58 checksum) and two hex
// conversions, a large share of data-query's CPU for a balance read of an EVM address (bench/data); the accounts a
// service is asked about repeat (wallets and dashboards poll theirs), so, like viem's own cache of
// checksums, the mapping of recent addresses is kept. Answers are frozen: callers share them.
const MAPPED_KEPT = 10_000;
const mapped = new Map<string, Readonly<AccountId>>();

function mappedAccountOf(h160: `0x${string}`): AccountId {
  let account = mapped.get(h160);
  if (account === undefined) {
    if (mapped.size >= MAPPED_KEPT) mapped.clear();
    account = Object.freeze(accountFromEvmAddress(h160));
    mapped.set(h160, account);
  }
  return account;
}

/**
 * Checks that parseAccount would take the input, without working out the account (no mapping hash,
 * no SS58 encoding): for validation at an edge that passes the input on. Throws InvalidAddressError.
 */
export function checkAccountAddress(input: string): void {
  formOf(input);
}

/** parseAccount without the throw, for validators that only need a yes/no. */
export function tryParseAccount(input: string): AccountId | undefined {
  try {
    return parseAccount(input);
  } catch (error) {
    if (error instanceof InvalidAddressError) return undefined;
    throw error;
  }
}

/** How the API labels an account: a native key, or an EVM address mapped onto one. */
export function accountKind(account: AccountId): "substrate" | "evm_mapped" {
  return account.evmH160 === undefined ? "substrate" : "evm_mapped";
}
