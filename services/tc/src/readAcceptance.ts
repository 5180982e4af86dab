import type { Redis } from "@platform/store";
import { tcKeys } from "./keys.js";

export interface Acceptance {
  acceptedVersion: number;
  acceptedAt: string;
}

/** The wallet's latest recorded acceptance, or undefined if it never accepted. */
export async function readAcceptance(redis: Redis, wallet: `0x${string}`): Promise<Acceptance | undefined> {
  const [version, acceptedAt] = await redis.hmget(tcKeys.wallet(wallet), "acceptedVersion", "acceptedAt");
  if (version == null || acceptedAt == null) return undefined;
  return { acceptedVersion: Number(version), acceptedAt };
}
