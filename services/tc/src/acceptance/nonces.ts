import { randomBytes } from "node:crypto";
import type { Redis } from "@platform/store";
import type { Address } from "viem";
import { tcKeys } from "../keys.js";
import { fromTcStore } from "../storeErrors.js";

/**
 * A fresh nonce: 128 random bits as 32 lowercase hex digits, alphanumeric as EIP-4361 requires
 * (`8*( ALPHA / DIGIT )`) and far beyond its "enough entropy" (≥ 96 bits), so nonces cannot be guessed.
 */
export function generateNonce(): string {
  return randomBytes(16).toString("hex");
}

/** Stores the nonce for the wallet until it expires; NX so a (never expected) collision cannot rebind one. */
export async function storeNonce(redis: Redis, nonce: string, wallet: Address, ttlSeconds: number): Promise<void> {
  await fromTcStore(async () => {
    const stored = await redis.set(tcKeys.nonce(nonce), wallet, "EX", ttlSeconds, "NX");
    if (stored !== "OK") throw new Error("nonce collision");
  });
}

/**
 * Consumes the nonce in one atomic GETDEL and says whether it had been issued to the wallet. The
 * nonce is gone afterwards whatever the answer (also when it was issued to another wallet, or when
 * the signature later fails), so no nonce ever serves twice: of concurrent accepts naming one
 * nonce, exactly one gets its value back.
 */
export async function consumeNonce(redis: Redis, nonce: string, wallet: Address): Promise<boolean> {
  const issuedTo = await fromTcStore(() => redis.getdel(tcKeys.nonce(nonce)));
  return issuedTo === wallet;
}
