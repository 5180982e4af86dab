import { fullSettlerAbi } from "@platform/devnet";
import type { Log } from "viem";
import type { SettlerChain } from "./settlerChains.js";

type SettlerEventName = "Open" | "Filled";

/** A decoded FullSettler log: its arguments, where it was, and which chain emitted it. */
export interface SettlerLog<Args> {
  chain: SettlerChain;
  args: Args;
  blockNumber: bigint;
  transactionHash: `0x${string}`;
}

/** Blocks asked for in one `eth_getLogs`; a node may refuse much wider ranges. */
const MAX_RANGE = 1_000n;

/**
 * Follows one FullSettler event on one chain from a starting block: each `poll` returns the logs of
 * the blocks mined since the last call. The simulator is a participant, not the mirror: what it acts
 * on is re-checked against contract state before it sends anything, so it need not track reorgs.
 */
export function settlerEventFeed<Args>(chain: SettlerChain, eventName: SettlerEventName, fromBlock: bigint) {
  let next = fromBlock;
  return {
    async poll(): Promise<SettlerLog<Args>[]> {
      const head = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
      if (head < next) return [];
      const toBlock = head - next + 1n > MAX_RANGE ? next + MAX_RANGE - 1n : head;
      const logs = (await chain.publicClient.getContractEvents({
        address: chain.settler,
        abi: fullSettlerAbi,
        eventName,
        fromBlock: next,
        toBlock,
        strict: true,
      })) as unknown as Array<Log<bigint, number, false> & { args: Args }>;
      next = toBlock + 1n;
      return logs.map((log) => ({
        chain,
        args: log.args,
        blockNumber: log.blockNumber,
        transactionHash: log.transactionHash,
      }));
    },
  };
}
