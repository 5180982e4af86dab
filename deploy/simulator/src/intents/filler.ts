import { decodeOriginData, encodeOriginData, type FullOrderData, fullSettlerAbi, NATIVE_TOKEN } from "@platform/devnet";
import type { Logger } from "@platform/log";
import { type Account, type Hex, zeroAddress } from "viem";
import { paysFiller } from "./fillerPolicy.js";
import { chainById, type SettlerChain } from "./settlerChains.js";
import type { SettlerLog } from "./settlerEventFeed.js";

/** The `Open` event's arguments as viem decodes them (only what the filler reads). */
export interface OpenArgs {
  orderId: Hex;
  resolvedOrder: { fillInstructions: ReadonlyArray<{ destinationChainId: bigint; originData: Hex }> };
}

/** Attempts at one order before the filler gives up on it (a node error, a revert it cannot explain). */
const MAX_ATTEMPTS = 5;

/**
 * The filler: takes `Open` events from every settler chain, and fills on the destination each order
 * that pays it and is still fillable, with its own funds (the devnet deploy gave it tokens, native
 * coin and allowances to every settler). The oracle later repays it on the origin.
 */
export function createFiller(options: {
  chains: readonly SettlerChain[];
  account: Account;
  minFeeBps: number;
  log: Logger;
}) {
  const { chains, account, log } = options;
  const queue = new Map<Hex, { data: FullOrderData; attempts: number }>();
  let filled = 0;

  return {
    get filled() {
      return filled;
    },
    take(opens: ReadonlyArray<SettlerLog<OpenArgs>>): void {
      for (const open of opens) {
        const instruction = open.args.resolvedOrder.fillInstructions[0];
        if (instruction === undefined || chainById(chains, instruction.destinationChainId) === undefined) continue;
        const data = decodeOriginData(instruction.originData);
        if (!paysFiller(data, options.minFeeBps)) {
          log.info(
            { orderId: open.args.orderId, originChainId: open.chain.chainId },
            "order leaves no fee: not filling it",
          );
          continue;
        }
        queue.set(open.args.orderId, { data, attempts: 0 });
      }
    },
    /** Fills what is queued, one order at a time (one account, one nonce sequence per chain). */
    async work(): Promise<void> {
      for (const [orderId, entry] of queue) {
        const destination = chainById(chains, entry.data.destinationChainId)!;
        try {
          const outcome = await fillOne(destination, account, orderId, entry.data);
          if (outcome === "filled") filled++;
          log.info(
            { orderId, destinationChainId: destination.chainId, outcome },
            outcome === "filled" ? "order filled" : "order not fillable any more",
          );
          queue.delete(orderId);
        } catch (error) {
          entry.attempts++;
          log.warn({ orderId, attempts: entry.attempts, err: error }, "fill failed");
          if (entry.attempts >= MAX_ATTEMPTS) queue.delete(orderId);
        }
      }
    },
  };
}

async function fillOne(
  destination: SettlerChain,
  account: Account,
  orderId: Hex,
  data: FullOrderData,
): Promise<"filled" | "already filled" | "deadline passed"> {
  const [previous, head] = await Promise.all([
    destination.publicClient.readContract({
      address: destination.settler,
      abi: fullSettlerAbi,
      functionName: "filledBy",
      args: [orderId],
    }),
    destination.publicClient.getBlock({ blockTag: "latest" }),
  ]);
  if (previous !== zeroAddress) return "already filled";
  // The next block is at least a second later; `fill` accepts the deadline itself.
  if (head.timestamp + 1n > BigInt(data.fillDeadline)) return "deadline passed";
  const hash = await destination.wallet(account).writeContract({
    address: destination.settler,
    abi: fullSettlerAbi,
    functionName: "fill",
    args: [orderId, encodeOriginData(data), "0x"],
    value: data.outputToken === NATIVE_TOKEN ? data.outputAmount : 0n,
  });
  const receipt = await destination.publicClient.waitForTransactionReceipt({ hash, timeout: 60_000 });
  if (receipt.status !== "success") throw new Error(`fill ${hash} reverted`);
  return "filled";
}
