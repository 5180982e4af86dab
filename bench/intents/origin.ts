import {
  addressToBytes32,
  computeOrderId,
  encodeOrderData,
  fullSettlerAbi,
  NATIVE_TOKEN,
  orderDataTypeHash,
  toFullOrderData,
} from "@platform/devnet";
import { type Address, encodeFunctionData, type Hex, keccak256, type PrivateKeyAccount, parseEther, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

/** The origin chain as the bench drives it: raw JSON-RPC plus what an order needs. */
export interface Origin {
  chainId: number;
  destinationChainId: number;
  rpcUrl: string;
  settler: Address;
  destinationSettler: Address;
}

export interface PreparedOpen {
  orderId: Hex;
  /** Signed `open` transaction, ready for eth_sendRawTransaction. */
  raw: Hex;
  txHash: Hex;
}

/** Gas for one native-coin `open` (measured ~150k); fixed, so nothing is estimated on the clock. */
const OPEN_GAS = 300_000n;
/** Far above the base fee: full blocks raise it 12.5% each, and anvil drops what no longer pays it. */
const MAX_FEE = 10n ** 13n;

let orderNonce = BigInt(Date.now()) * 1_000n;

/** The calldata and order id of a tiny native-coin order from `user`, deadline an hour after `now`. */
export function openCall(origin: Origin, user: Address, nowSeconds: number): { orderId: Hex; data: Hex } {
  const fillDeadline = nowSeconds + 3_600;
  const params = {
    nonce: orderNonce++,
    destinationChainId: BigInt(origin.destinationChainId),
    inputToken: NATIVE_TOKEN,
    inputAmount: 1_000n,
    outputToken: NATIVE_TOKEN,
    outputAmount: 990n,
    recipient: addressToBytes32(user),
  };
  const order = toFullOrderData({
    params,
    user,
    originChainId: BigInt(origin.chainId),
    originSettler: origin.settler,
    destinationSettler: addressToBytes32(origin.destinationSettler),
    fillDeadline,
  });
  const data = encodeFunctionData({
    abi: fullSettlerAbi,
    functionName: "open",
    args: [{ fillDeadline, orderDataType: orderDataTypeHash, orderData: encodeOrderData(params) }],
  });
  return { orderId: computeOrderId(order), data };
}

/** Signs an `open` from a wallet with a known transaction nonce (signing happens before the clock starts). */
export async function prepareOpen(
  origin: Origin,
  account: PrivateKeyAccount,
  txNonce: number,
  nowSeconds: number,
): Promise<PreparedOpen> {
  const { orderId, data } = openCall(origin, account.address, nowSeconds);
  const raw = await account.signTransaction({
    chainId: origin.chainId,
    type: "eip1559",
    to: origin.settler,
    data,
    value: 1_000n,
    gas: OPEN_GAS,
    nonce: txNonce,
    maxFeePerGas: MAX_FEE,
    maxPriorityFeePerGas: 0n,
  });
  return { orderId, raw, txHash: keccak256(raw) };
}

export async function rpc<T>(rpcUrl: string, method: string, params: unknown[]): Promise<T> {
  const [answer] = await rpcBatch(rpcUrl, [{ method, params }]);
  if (answer?.error !== undefined) throw new Error(`${method} failed: ${JSON.stringify(answer.error)}`);
  return answer!.result as T;
}

export async function rpcBatch(
  rpcUrl: string,
  calls: { method: string; params: unknown[] }[],
): Promise<{ result?: unknown; error?: unknown }[]> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(calls.map((call, id) => ({ jsonrpc: "2.0", id, ...call }))),
  });
  const answers = (await response.json()) as { id: number; result?: unknown; error?: unknown }[];
  return answers.sort((a, b) => a.id - b.id);
}

export async function fund(origin: Origin, addresses: readonly Address[]): Promise<void> {
  const answers = await rpcBatch(
    origin.rpcUrl,
    addresses.map((address) => ({ method: "anvil_setBalance", params: [address, toHex(parseEther("1000"))] })),
  );
  const failed = answers.find((answer) => answer.error !== undefined);
  if (failed) throw new Error(`anvil_setBalance failed: ${JSON.stringify(failed.error)}`);
}

export async function chainSeconds(origin: Origin): Promise<number> {
  const block = await rpc<{ timestamp: Hex }>(origin.rpcUrl, "eth_getBlockByNumber", ["latest", false]);
  return Number(BigInt(block.timestamp));
}

/**
 * Sends `count` opens from `senders` impersonated accounts in JSON-RPC batches (no signing, fixed gas,
 * explicit nonces) and mines until the pool is empty: the burst a busy origin chain produces.
 * Returns the order ids.
 */
export async function burstOpens(origin: Origin, count: number, senderCount = 50): Promise<Hex[]> {
  const now = await chainSeconds(origin);
  // Each backlog fills ~50 blocks, raising the base fee 12.5% a block; rounds run back to back
  // would push it past MAX_FEE and anvil would drop the rest of a burst. Start each one at 1 gwei.
  await rpc(origin.rpcUrl, "anvil_setNextBlockBaseFeePerGas", [toHex(10n ** 9n)]);
  const startBlock = BigInt(await rpc<Hex>(origin.rpcUrl, "eth_blockNumber", []));
  const senders = Array.from(
    { length: Math.min(count, senderCount) },
    () => privateKeyToAccount(generatePrivateKey()).address,
  );
  await fund(origin, senders);
  await rpcBatch(
    origin.rpcUrl,
    senders.map((user) => ({ method: "anvil_impersonateAccount", params: [user] })),
  );
  const orderIds: Hex[] = [];
  for (let start = 0; start < count; start += 1_000) {
    // A thousand at a time: anvil's pool slows down as it grows.
    const calls = Array.from({ length: Math.min(1_000, count - start) }, (_, offset) => {
      const index = start + offset;
      const user = senders[index % senders.length]!;
      const { orderId, data } = openCall(origin, user, now);
      orderIds.push(orderId);
      return {
        method: "eth_sendTransaction",
        params: [
          {
            from: user,
            to: origin.settler,
            data,
            value: toHex(1_000n),
            gas: toHex(OPEN_GAS),
            nonce: toHex(Math.floor(index / senders.length)),
            maxFeePerGas: toHex(MAX_FEE),
            maxPriorityFeePerGas: "0x0",
          },
        ],
      };
    });
    for (let at = 0; at < calls.length; at += 500) {
      const sent = await rpcBatch(origin.rpcUrl, calls.slice(at, at + 500));
      const failed = sent.find((answer) => answer.error !== undefined);
      if (failed) throw new Error(`eth_sendTransaction failed: ${JSON.stringify(failed.error)}`);
    }
    for (;;) {
      await rpc(origin.rpcUrl, "evm_mine", []);
      const status = await rpc<{ pending: Hex }>(origin.rpcUrl, "txpool_status", []);
      if (Number(status.pending) === 0) break;
    }
  }
  // An empty pool also means dropped transactions: count what was mined (the bench runs no simulator, so the settler's logs are these Opens).
  const logs = await rpc<unknown[]>(origin.rpcUrl, "eth_getLogs", [
    { address: origin.settler, fromBlock: toHex(startBlock + 1n), toBlock: "latest" },
  ]);
  if (logs.length < count)
    throw new Error(`only ${logs.length} of the ${count} backlog Opens were mined (anvil dropped the rest)`);
  return orderIds;
}
