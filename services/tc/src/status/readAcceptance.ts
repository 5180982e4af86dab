import { PROJECTION_COMPLETE, type ProjectionSupervisor } from "@platform/bus";
import type { Redis } from "@platform/store";
import type { Address } from "viem";
import { dependencyUnavailable } from "../acceptErrors.js";
import { tcKeys } from "../keys.js";
import { fromTcStore } from "../storeErrors.js";

/** Lets a reader that found the projection missing ask for a check now rather than at the next interval. */
export type ProjectionStatus = Pick<ProjectionSupervisor, "poke">;

export interface Acceptance {
  acceptedVersion: number;
  acceptedAt: string;
}

/** Reads a wallet hash back; undefined for a missing (empty) or damaged hash, which counts as never accepted. */
export function acceptanceFromHash(version: string | null, acceptedAt: string | null): Acceptance | undefined {
  if (version == null || acceptedAt == null) return undefined;
  const acceptedVersion = Number(version);
  if (!Number.isInteger(acceptedVersion) || acceptedVersion < 1) return undefined;
  return { acceptedVersion, acceptedAt };
}

/**
 * The wallet's latest recorded acceptance, or undefined if it never accepted. "Never" is only
 * trusted while the projection is complete (its marker, read in the same round trip): during a
 * rebuild (Redis lost the data, or the first start is still replaying) this answers UNAVAILABLE
 * instead, so neither the status nor the gate ever gives a wrong answer. Redis failures are
 * UNAVAILABLE too.
 */
export async function readAcceptance(
  redis: Redis,
  projection: ProjectionStatus,
  wallet: Address,
): Promise<Acceptance | undefined> {
  const [[version, acceptedAt], marker] = await fromTcStore(async () => {
    const results =
      (await redis
        .pipeline()
        .hmget(tcKeys.wallet(wallet), "acceptedVersion", "acceptedAt")
        .get(tcKeys.marker)
        .exec()) ?? [];
    const values = results.map(([error, value]) => {
      if (error) throw error;
      return value;
    });
    return [values[0] as (string | null)[], values[1] as string | null] as const;
  });
  if (marker === null) projection.poke();
  if (marker !== PROJECTION_COMPLETE)
    throw dependencyUnavailable("the T&C acceptance records are being rebuilt; try again shortly");
  return acceptanceFromHash(version ?? null, acceptedAt ?? null);
}
