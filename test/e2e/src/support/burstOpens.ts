import {
  type Address,
  encodeAbiParameters,
  encodeFunctionData,
  type Hex,
  keccak256,
  pad,
  parseEther,
  stringToHex,
  toHex,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { fullSettlerAbi } from "./intentsActors.js";
import type { ChainSide } from "./intentsStack.js";

/*
 * A burst of FullSettler opens sent as fast as the node takes them: impersonated senders (no signing),
 * JSON-RPC batches, explicit nonces and gas. Native-coin orders: the mirror follows every Open,
 * whatever the route.
 */

const FULL_ORDER_PARAMS_TYPE =
  "FullOrderParams(uint256 nonce,uint256 destinationChainId,bytes32 inputToken,uint256 inputAmount,bytes32 outputToken,uint256 outputAmount,bytes32 recipient)";
const orderDataType = keccak256(stringToHex(FULL_ORDER_PARAMS_TYPE));
const NATIVE = pad("0x00", { size: 32 });

export interface Burst {
  senders: Address[];
  /** Sends opens `from` (inclusive) to `to` (exclusive) of the burst's `senders.length * perSender`. */
  send(from: number, to: number): Promise<void>;
}

export async function prepareBurst(side: ChainSide, destinationChainId: number, senderCount: number): Promise<Burst> {
  const senders = Array.from({ length: senderCount }, () => privateKeyToAccount(generatePrivateKey()).address);
  await rpcBatch(side.rpcUrl, [
    ...senders.map((user) => ({ method: "anvil_setBalance", params: [user, toHex(parseEther("100"))] })),
    ...senders.map((user) => ({ method: "anvil_impersonateAccount", params: [user] })),
  ]);
  const fillDeadline = Number((await side.publicClient.getBlock()).timestamp) + 3_600;
  return {
    senders,
    async send(from, to) {
      const calls = [];
      for (let index = from; index < to; index++) {
        const user = senders[index % senders.length]!;
        const txNonce = Math.floor(index / senders.length);
        const orderData = encodeAbiParameters(
          [
            {
              type: "tuple",
              components: [
                { type: "uint256" },
                { type: "uint256" },
                { type: "bytes32" },
                { type: "uint256" },
                { type: "bytes32" },
                { type: "uint256" },
                { type: "bytes32" },
              ],
            },
          ],
          [[BigInt(txNonce + 1), BigInt(destinationChainId), NATIVE, 1_000n, NATIVE, 990n, pad(user, { size: 32 })]],
        );
        const data = encodeFunctionData({
          abi: fullSettlerAbi,
          functionName: "open",
          args: [{ fillDeadline, orderDataType, orderData }],
        });
        // A fee cap far above the base fee: full blocks raise it 12.5% each, and anvil drops what no longer pays it.
        calls.push({
          method: "eth_sendTransaction",
          params: [
            {
              from: user,
              to: side.settler,
              data,
              value: toHex(1_000n),
              gas: toHex(200_000n),
              nonce: toHex(txNonce),
              maxFeePerGas: toHex(10n ** 13n),
              maxPriorityFeePerGas: "0x0",
            },
          ],
        });
      }
      const answers = await rpcBatch(side.rpcUrl, calls);
      const failed = answers.find((answer) => answer.error !== undefined);
      if (failed) throw new Error(`eth_sendTransaction failed: ${JSON.stringify(failed.error)}`);
    },
  };
}

export async function rpcBatch(
  rpcUrl: string,
  calls: Array<{ method: string; params: unknown[] }>,
): Promise<Array<{ result?: unknown; error?: unknown }>> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(calls.map((call, id) => ({ jsonrpc: "2.0", id, ...call }))),
  });
  const answers = (await response.json()) as Array<{ id: number; result?: unknown; error?: unknown }>;
  return answers.sort((a, b) => a.id - b.id);
}

/** Every Open the settler emitted since `fromBlock`, in chain order: the truth the mirror must show. */
export async function opensSince(
  side: ChainSide,
  fromBlock: bigint,
): Promise<Array<{ orderId: Hex; user: Address; originData: Hex; txHash: Hex }>> {
  const logs = await side.publicClient.getContractEvents({
    address: side.settler,
    abi: fullSettlerAbi,
    eventName: "Open",
    fromBlock,
    toBlock: "latest",
    strict: true,
  });
  return logs.map((log) => ({
    orderId: log.args.orderId,
    user: log.args.resolvedOrder.user,
    originData: log.args.resolvedOrder.fillInstructions[0]!.originData,
    txHash: log.transactionHash,
  }));
}
