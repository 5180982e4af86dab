import type { CheckGateResponse } from "@platform/proto/tc/v1/tc";
import type { Acceptance } from "./readAcceptance.js";

/** The gate intents-gateway applies to notifications: open only for an acceptance of the current version. */
export function gateOf(currentTcVersion: number, acceptance: Acceptance | undefined): CheckGateResponse {
  return {
    allowed: acceptance?.acceptedVersion === currentTcVersion,
    acceptedVersion: acceptance?.acceptedVersion,
    currentTcVersion,
  };
}
