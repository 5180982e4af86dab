import { type Chain, hexToNumber, type PublicClient, type Transport } from "viem";

/**
 * True when the node answers `eth_chainId` with the client's chain id within `timeoutMs`; false on
 * any failure, a wrong chain, or the deadline. Never throws, so readiness probes can call it as is.
 * Retries are off: a readiness probe is polled, and retrying inside one probe only hides the outage.
 */
export async function rpcReadiness(
  client: PublicClient<Transport, Chain | undefined>,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const timedOut = new Promise<false>((resolve) =>
    deadline.addEventListener("abort", () => resolve(false), { once: true }),
  );
  const probe = client
    .request({ method: "eth_chainId" }, { retryCount: 0, dedupe: false, signal: deadline })
    .then((id) => client.chain === undefined || hexToNumber(id) === client.chain.id)
    .catch(() => false);
  return Promise.race([probe, timedOut]);
}
