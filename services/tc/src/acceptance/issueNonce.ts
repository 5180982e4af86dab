import type { IssueNonceResponse } from "@platform/proto/tc/v1/tc";
import type { Address } from "viem";
import type { SiweRules } from "../siwe/siweRules.js";

/** The IssueNonce answer: the nonce, its lifetime, and exactly the SIWE fields Accept will require. */
export function nonceResponse(wallet: Address, nonce: string, rules: SiweRules, now: Date): IssueNonceResponse {
  return {
    walletAddress: wallet,
    nonce,
    issuedAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + rules.nonceTtlSeconds * 1_000).toISOString(),
    domain: rules.domain,
    uri: rules.uri,
    version: "1",
    chainIds: rules.chainIds.map(String),
    statement: rules.statement,
    resource: rules.resource,
    currentTcVersion: rules.currentTcVersion,
  };
}
