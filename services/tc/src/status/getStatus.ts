import type { GetStatusResponse } from "@platform/proto/tc/v1/tc";
import type { Acceptance } from "./readAcceptance.js";

/** The status view: accepted only when the wallet's latest acceptance is of the current version. */
export function statusOf(
  wallet: `0x${string}`,
  currentTcVersion: number,
  acceptance: Acceptance | undefined,
): GetStatusResponse {
  return {
    walletAddress: wallet,
    currentTcVersion,
    acceptedVersion: acceptance?.acceptedVersion,
    accepted: acceptance?.acceptedVersion === currentTcVersion,
    acceptedAt: acceptance?.acceptedAt,
  };
}
