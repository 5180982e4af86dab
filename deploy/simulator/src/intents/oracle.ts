import { bytes32ToAddress, fullSettlerAbi, OrderStatus } from "@platform/devnet";
import type { Logger } from "@platform/log";
import type { Account, Address, Hex } from "viem";
import { chainById, type SettlerChain } from "./settlerChains.js";
import type { SettlerLog } from "./settlerEventFeed.js";

/** The `Filled` event's arguments as viem decodes them (only what the oracle reads). */
export interface FilledArgs {
  orderId: Hex;
  originChainId: bigint;
  repaymentAddress: Hex;
}

/** Rounds an order stays queued while its origin does not know it yet (its Open not mined or seen there). */
const MAX_ATTEMPTS = 20;

/**
 * The devnet oracle: watches `Filled` on every settler chain and attests each fill on the order's
 * origin with `settle`, paying the escrow to the repayment address the filler named. It settles only
 * orders the origin still holds OPENED, so a refunded or settled order is left alone.
 */
export function createOracle(options: { chains: readonly SettlerChain[]; account: Account; log: Logger }) {
  const { chains, account, log } = options;
  const queue = new Map<Hex, { originChainId: bigint; repayment: Address; attempts: number }>();
  let settled = 0;

  return {
    get settled() {
      return settled;
    },
    take(fills: ReadonlyArray<SettlerLog<FilledArgs>>): void {
      for (const fill of fills) {
        if (chainById(chains, fill.args.originChainId) === undefined) continue;
        queue.set(fill.args.orderId, {
          originChainId: fill.args.originChainId,
          repayment: bytes32ToAddress(fill.args.repaymentAddress),
          attempts: 0,
        });
      }
    },
    async work(): Promise<void> {
      for (const [orderId, entry] of queue) {
        const origin = chainById(chains, entry.originChainId)!;
        try {
          const status = await origin.publicClient.readContract({
            address: origin.settler,
            abi: fullSettlerAbi,
            functionName: "orderStatus",
            args: [orderId],
          });
          if (status === OrderStatus.OPENED) {
            const hash = await origin.wallet(account).writeContract({
              address: origin.settler,
              abi: fullSettlerAbi,
              functionName: "settle",
              args: [orderId, entry.repayment],
            });
            const receipt = await origin.publicClient.waitForTransactionReceipt({ hash, timeout: 60_000 });
            if (receipt.status !== "success") throw new Error(`settle ${hash} reverted`);
            settled++;
            log.info({ orderId, originChainId: origin.chainId }, "order settled");
            queue.delete(orderId);
          } else if (status === OrderStatus.UNKNOWN) {
            if (++entry.attempts >= MAX_ATTEMPTS) queue.delete(orderId);
          } else {
            log.info(
              { orderId, originChainId: origin.chainId, status },
              "order no longer open on its origin: not settling it",
            );
            queue.delete(orderId);
          }
        } catch (error) {
          log.warn({ orderId, attempts: entry.attempts, err: error }, "settle failed");
          if (++entry.attempts >= MAX_ATTEMPTS) queue.delete(orderId);
        }
      }
    },
  };
}
