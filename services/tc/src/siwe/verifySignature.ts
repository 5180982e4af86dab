import { SignatureKind } from "@platform/proto/events/v1/tc_acceptances";
import {
  type Address,
  type Hex,
  hashMessage,
  isAddressEqual,
  isErc6492Signature,
  isHex,
  recoverAddress,
  size,
} from "viem";
import type { ContractWalletChain } from "./contractWalletChain.js";

/** Wrapped ERC-6492 signatures carry factory calldata; beyond this a signature is refused unread. */
export const MAX_SIGNATURE_BYTES = 10_000;

/** Whether the text can be a signature at all: 0x-prefixed, whole bytes, not empty, bounded. */
export function isSignatureHex(value: string): value is Hex {
  return (
    isHex(value, { strict: true }) &&
    value.length % 2 === 0 &&
    value.length > 2 &&
    (value.length - 2) / 2 <= MAX_SIGNATURE_BYTES
  );
}

/**
 * How the wallet's signature of the message verifies, or undefined when it does not (EIP-4361:
 * EIP-191 personal_sign for accounts, ERC-1271 resolved on the message's chain for contracts).
 *
 * A plain ECDSA signature (64 or 65 bytes) recovering to the address is an EOA's and is settled
 * offline, so EOAs accept even while the chain's RPC is away. Only otherwise is the chain asked:
 * whether the address holds code, then viem's verifyHash (ERC-1271, or the ERC-6492 validator for
 * a wrapped signature of a wallet not deployed yet). An address without code and a signature that
 * is not ERC-6492-wrapped has nobody left to vouch for it. RPC failures propagate as UNAVAILABLE.
 */
export async function verifySignature(
  message: string,
  address: Address,
  signature: Hex,
  chain: ContractWalletChain,
): Promise<SignatureKind | undefined> {
  const hash = hashMessage(message);
  const wrapped = isErc6492Signature(signature);
  if (!wrapped && (size(signature) === 65 || size(signature) === 64)) {
    try {
      if (isAddressEqual(await recoverAddress({ hash, signature }), address)) return SignatureKind.SIGNATURE_KIND_EOA;
    } catch {
      // Not a recoverable ECDSA signature (bad v, s out of range): maybe a contract wallet's.
    }
  }
  const deployed = await chain.hasCode(address);
  if (!deployed && !wrapped) return undefined;
  if (!(await chain.verifyHash(address, hash, signature))) return undefined;
  return deployed ? SignatureKind.SIGNATURE_KIND_ERC1271 : SignatureKind.SIGNATURE_KIND_ERC6492;
}
