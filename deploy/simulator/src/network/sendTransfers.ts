import { WEI_PER_RAO } from "@platform/subtensor";
import type { Address, Hash, PrivateKeyAccount } from "viem";
import type { NetworkContext } from "./context.js";

export interface SendTransfersOptions {
  /** Rao per transfer; defaults to 0.001 TAO. */
  amountRao?: bigint;
  /** Transfers per mined block on an automining chain; the block gas limit holds about 1,400. */
  perBlock?: number;
}

/**
 * Sends `count` native transfers from `from` to `to`, fast: signed locally with consecutive nonces,
 * sent in JSON-RPC batches, and on an automining chain mined `perBlock` at a time (automine is
 * switched off meanwhile and restored after), so 1,000 transactions take a few blocks instead of 1,000.
 * On an interval-mining chain the node packs them into its blocks. Resolves once all are mined.
 */
export async function sendTransfers(
  ctx: NetworkContext,
  from: PrivateKeyAccount,
  to: Address,
  count: number,
  options: SendTransfersOptions = {},
): Promise<Hash[]> {
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`count must be a non-negative integer, got ${count}`);
  const value = (options.amountRao ?? 1_000_000n) * WEI_PER_RAO;
  const perBlock = options.perBlock ?? 500;
  const { publicClient, batchClient, testClient } = ctx;
  const [nonce, fees, automine] = await Promise.all([
    publicClient.getTransactionCount({ address: from.address, blockTag: "pending" }),
    publicClient.estimateFeesPerGas(),
    testClient.getAutomine(),
  ]);
  // Headroom for the base fee rising over the batch's blocks.
  const maxFeePerGas = fees.maxFeePerGas * 2n;
  const maxPriorityFeePerGas = fees.maxPriorityFeePerGas;

  const hashes: Hash[] = [];
  if (automine) await testClient.setAutomine(false);
  try {
    for (let start = 0; start < count; start += perBlock) {
      const size = Math.min(perBlock, count - start);
      const signed = await Promise.all(
        Array.from({ length: size }, (_, offset) =>
          from.signTransaction({
            type: "eip1559",
            chainId: ctx.chain.id,
            nonce: nonce + start + offset,
            to,
            value,
            gas: 21_000n,
            maxFeePerGas,
            maxPriorityFeePerGas,
          }),
        ),
      );
      hashes.push(
        ...(await Promise.all(
          signed.map((serializedTransaction) => batchClient.request({ method: "eth_sendRawTransaction", params: [serializedTransaction] })),
        )),
      );
      if (automine) await testClient.mine({ blocks: 1 });
    }
  } finally {
    if (automine) await testClient.setAutomine(true);
  }
  if (hashes.length > 0) {
    const last = await publicClient.waitForTransactionReceipt({ hash: hashes[hashes.length - 1]!, timeout: 120_000 });
    if (last.status !== "success") throw new Error(`sendTransfers: transfer ${last.transactionHash} failed`);
  }
  return hashes;
}
