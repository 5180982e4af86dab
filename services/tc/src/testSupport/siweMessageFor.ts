import type { IssueNonceResponse } from "@platform/proto/tc/v1/tc";
import type { Address } from "viem";
import { createSiweMessage } from "viem/siwe";

export type MessageFields = Partial<Parameters<typeof createSiweMessage>[0]>;

/**
 * The message a careful client builds from the nonce answer for the wallet at `address` (an EOA,
 * or a contract wallet its owner signs for) on `chainId`, with a 5-minute lifetime.
 */
export function siweMessageFor(
  offer: IssueNonceResponse,
  address: Address,
  chainId: number,
  overrides: MessageFields = {},
): string {
  const issuedAt = new Date();
  return createSiweMessage({
    address,
    chainId,
    domain: offer.domain,
    uri: offer.uri,
    version: "1",
    nonce: offer.nonce,
    statement: offer.statement,
    resources: [offer.resource],
    issuedAt,
    expirationTime: new Date(issuedAt.getTime() + 5 * 60_000),
    ...overrides,
  });
}
