/**
 * The tc service's Redis keyspace (service state, `tc:` prefix). It is a projection of
 * `tc.acceptances.v1` and can be rebuilt from it.
 *
 * - `tc:wallet:<EIP-55 address>` hash: `acceptedVersion` (integer), `acceptedAt` (RFC 3339) — the
 *   wallet's latest acceptance.
 */
export const tcKeys = {
  wallet: (checksummedAddress: string) => `tc:wallet:${checksummedAddress}`,
};
