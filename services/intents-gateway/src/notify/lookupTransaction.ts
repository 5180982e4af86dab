import { type Address, getAddress, type Hex } from "viem";
import { chainUnavailable } from "../chains/chainErrors.js";
import type { IntentChain } from "../chains/intentChains.js";

/** What the origin chain's node knows of a notified transaction. */
export interface KnownTransaction {
  /** The signer: fixed by the hash, whether the transaction is pending or mined. */
  from: Address;
  /** False while it waits in the node's pool. */
  mined: boolean;
}

/**
 * One `eth_getTransactionByHash` on the user-triggered client (its quota, not the ingestor's): the
 * notification names a transaction already broadcast, so the node has it pending or mined.
 * Undefined when the node knows no such transaction; a node failure is a 503.
 */
export async function lookupTransaction(chain: IntentChain, txHash: Hex): Promise<KnownTransaction | undefined> {
  let found: { from?: string; blockNumber?: string | null } | null;
  try {
    found = (await chain.client.request({ method: "eth_getTransactionByHash", params: [txHash] })) as typeof found;
  } catch (error) {
    throw chainUnavailable(chain.chainId, error);
  }
  if (found === null || typeof found.from !== "string") return undefined;
  return { from: getAddress(found.from), mined: typeof found.blockNumber === "string" };
}
