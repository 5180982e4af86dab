import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ConsumedRecord, fromKafkaMessage, type Kafka } from "@platform/bus";
import {
  addressToBytes32,
  computeOrderId,
  type DevnetDeployment,
  deployDevnet,
  encodeOrderData,
  encodeOriginData,
  type FullOrderData,
  fullSettlerAbi,
  NATIVE_TOKEN,
  orderDataTypeHash,
  toFullOrderData,
} from "@platform/devnet";
import { type ManagedProcess, type RunningAnvil, spawnManaged, startAnvil } from "@platform/testing";
import {
  type Account,
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  type Hash,
  type Hex,
  type HttpTransport,
  http,
  type PublicClient,
  parseEther,
  type TestClient,
  toHex,
  type WalletClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

/*
 * Test support (not a test, not built): two anvil chains with the devnet contracts, a chains file
 * for the services, and the moves a user, the filler and the oracle make on them.
 */

export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

export interface Side {
  name: "origin" | "destination";
  chainId: number;
  rpcUrl: string;
  chain: Chain;
  publicClient: PublicClient<HttpTransport, Chain>;
  testClient: TestClient<"anvil", HttpTransport, Chain>;
  wallet(account: Account): WalletClient<HttpTransport, Chain, Account>;
  settler: Address;
}

export interface Devnet {
  anvils: RunningAnvil[];
  deployment: DevnetDeployment;
  origin: Side;
  destination: Side;
  filler: Account;
  oracle: Account;
  chainsFile: string;
  stop(): Promise<void>;
}

export async function startDevnet(dir: string, finality = { safeDepth: 1, finalizedDepth: 3 }): Promise<Devnet> {
  const [originAnvil, destinationAnvil] = await Promise.all([
    startAnvil({ chainId: 31337, logFile: join(dir, "origin.log") }),
    startAnvil({ chainId: 31338, logFile: join(dir, "destination.log") }),
  ]);
  const deployment = await deployDevnet({
    chains: [
      { name: "origin", chainId: 31337, rpcUrl: originAnvil.rpcUrl, roles: ["origin"] },
      { name: "destination", chainId: 31338, rpcUrl: destinationAnvil.rpcUrl, roles: ["destination"] },
    ],
  });
  const side = (name: "origin" | "destination", rpcUrl: string): Side => {
    const chainId = deployment.chains[name]!.chainId;
    const chain = defineChain({
      id: chainId,
      name,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    });
    const transport = http(rpcUrl);
    return {
      name,
      chainId,
      rpcUrl,
      chain,
      publicClient: createPublicClient({ chain, transport, pollingInterval: 50 }),
      testClient: createTestClient({ chain, transport, mode: "anvil" }),
      wallet: (account) => createWalletClient({ chain, transport, account, pollingInterval: 50 }),
      settler: deployment.chains[name]!.contracts.fullSettler!,
    };
  };
  const origin = side("origin", originAnvil.rpcUrl);
  const destination = side("destination", destinationAnvil.rpcUrl);
  const chainsFile = join(dir, "chains.json");
  writeFileSync(
    chainsFile,
    JSON.stringify({
      environment: "test",
      chains: [origin, destination].map((entry) => ({
        name: entry.name,
        chainId: entry.chainId,
        rpcUrl: entry.rpcUrl,
        roles: [entry.name],
        blockTimeMs: 1_000,
        finality,
        rpc: { timeoutMs: 5_000, retryCount: 2, retryDelayMs: 100 },
        contracts: deployment.chains[entry.name]!.contracts,
      })),
    }),
  );
  return {
    anvils: [originAnvil, destinationAnvil],
    deployment,
    origin,
    destination,
    filler: privateKeyToAccount(deployment.accounts.filler.privateKey),
    oracle: privateKeyToAccount(deployment.accounts.oracle.privateKey),
    chainsFile,
    stop: async () => void (await Promise.all([originAnvil.stop(), destinationAnvil.stop()])),
  };
}

/** A fresh user with native coin on the origin. */
export async function newUser(devnet: Devnet): Promise<Account> {
  const account = privateKeyToAccount(generatePrivateKey());
  await devnet.origin.testClient.setBalance({ address: account.address, value: parseEther("100") });
  return account;
}

export async function chainNow(side: Side): Promise<number> {
  return Number((await side.publicClient.getBlock()).timestamp);
}

let nonce = 1n;

export interface OpenedOrder {
  orderId: Hex;
  data: FullOrderData;
  txHash: Hash;
}

/** The order data of a native-coin order from `user`, deadline `window` seconds after the origin's clock. */
export async function orderFor(
  devnet: Devnet,
  user: Address,
  window = 3_600,
): Promise<{ data: FullOrderData; args: { fillDeadline: number; orderDataType: Hex; orderData: Hex } }> {
  const fillDeadline = (await chainNow(devnet.origin)) + window;
  const params = {
    nonce: nonce++,
    destinationChainId: BigInt(devnet.destination.chainId),
    inputToken: NATIVE_TOKEN,
    inputAmount: parseEther("0.01"),
    outputToken: NATIVE_TOKEN,
    outputAmount: parseEther("0.0099"),
    recipient: addressToBytes32(user),
  };
  const data = toFullOrderData({
    params,
    user,
    originChainId: BigInt(devnet.origin.chainId),
    originSettler: devnet.origin.settler,
    destinationSettler: addressToBytes32(devnet.destination.settler),
    fillDeadline,
  });
  return { data, args: { fillDeadline, orderDataType: orderDataTypeHash, orderData: encodeOrderData(params) } };
}

/** Opens a native-coin order as `user` and waits for it to be mined. */
export async function openOrder(devnet: Devnet, user: Account, window = 3_600): Promise<OpenedOrder> {
  const { data, args } = await orderFor(devnet, user.address, window);
  const txHash = await devnet.origin.wallet(user).writeContract({
    address: devnet.origin.settler,
    abi: fullSettlerAbi,
    functionName: "open",
    args: [args],
    value: data.inputAmount,
  });
  const receipt = await devnet.origin.publicClient.waitForTransactionReceipt({ hash: txHash });
  if (receipt.status !== "success") throw new Error(`open ${txHash} reverted`);
  return { orderId: computeOrderId(data), data, txHash };
}

export async function fillOrder(devnet: Devnet, order: OpenedOrder): Promise<Hash> {
  const hash = await devnet.destination.wallet(devnet.filler).writeContract({
    address: devnet.destination.settler,
    abi: fullSettlerAbi,
    functionName: "fill",
    args: [order.orderId, encodeOriginData(order.data), "0x"],
    value: order.data.outputAmount,
  });
  await devnet.destination.publicClient.waitForTransactionReceipt({ hash });
  return hash;
}

export async function settleOrder(devnet: Devnet, order: OpenedOrder): Promise<Hash> {
  const hash = await devnet.origin.wallet(devnet.oracle).writeContract({
    address: devnet.origin.settler,
    abi: fullSettlerAbi,
    functionName: "settle",
    args: [order.orderId, devnet.filler.address],
  });
  await devnet.origin.publicClient.waitForTransactionReceipt({ hash });
  return hash;
}

/**
 * Sends `count` opens from `senders` fresh impersonated accounts as quickly as the node takes them
 * (JSON-RPC batches, no signing, fixed gas, explicit transaction nonces): the burst a busy origin
 * chain produces. Returns the order ids. With automine each is its own block; with automine off
 * they wait in the pool.
 */
export async function burstOpens(
  devnet: Devnet,
  count: number,
  options: { batchSize?: number; senders?: number } = {},
): Promise<Hex[]> {
  const side = devnet.origin;
  const fillDeadline = (await chainNow(side)) + 3_600;
  const senders = Array.from(
    { length: Math.min(count, options.senders ?? count) },
    () => privateKeyToAccount(generatePrivateKey()).address,
  );
  await rpcBatch(side.rpcUrl, [
    ...senders.map((user) => ({ method: "anvil_setBalance", params: [user, toHex(parseEther("1000"))] })),
    ...senders.map((user) => ({ method: "anvil_impersonateAccount", params: [user] })),
  ]);
  const orders = Array.from({ length: count }, (_, index) => {
    const user = senders[index % senders.length]!;
    const txNonce = Math.floor(index / senders.length);
    const params = {
      nonce: BigInt(txNonce + 1),
      destinationChainId: BigInt(devnet.destination.chainId),
      inputToken: NATIVE_TOKEN,
      inputAmount: 1_000n,
      outputToken: NATIVE_TOKEN,
      outputAmount: 990n,
      recipient: addressToBytes32(user),
    };
    const data = toFullOrderData({
      params,
      user,
      originChainId: BigInt(side.chainId),
      originSettler: side.settler,
      destinationSettler: addressToBytes32(devnet.destination.settler),
      fillDeadline,
    });
    const calldata = encodeFunctionData({
      abi: fullSettlerAbi,
      functionName: "open",
      args: [{ fillDeadline, orderDataType: orderDataTypeHash, orderData: encodeOrderData(params) }],
    });
    return { user, txNonce, orderId: computeOrderId(data), calldata };
  });
  const batchSize = options.batchSize ?? 200;
  for (let start = 0; start < orders.length; start += batchSize) {
    const chunk = orders.slice(start, start + batchSize);
    const sent = await rpcBatch(
      side.rpcUrl,
      chunk.map((order) => ({
        method: "eth_sendTransaction",
        // A fee cap far above the base fee: full blocks raise it 12.5% each, and anvil drops what no longer pays it.
        params: [
          {
            from: order.user,
            to: side.settler,
            data: order.calldata,
            value: toHex(1_000n),
            gas: toHex(200_000n),
            nonce: toHex(order.txNonce),
            maxFeePerGas: toHex(10n ** 13n),
            maxPriorityFeePerGas: "0x0",
          },
        ],
      })),
    );
    const failed = sent.find((answer) => answer.error !== undefined);
    if (failed) throw new Error(`eth_sendTransaction failed: ${JSON.stringify(failed.error)}`);
  }
  return orders.map((order) => order.orderId);
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

/** Every committed record of a topic up to its current end (read_committed, a throw-away group). */
export async function readTopic(kafka: Kafka, topic: string): Promise<ConsumedRecord[]> {
  const admin = kafka.admin();
  await admin.connect();
  const remaining = new Map(
    (await admin.fetchTopicOffsets(topic))
      .filter((entry) => BigInt(entry.high) > BigInt(entry.low))
      .map((entry) => [entry.partition, BigInt(entry.high) - 1n] as const),
  );
  const records: ConsumedRecord[] = [];
  const seen = new Set<string>();
  if (remaining.size === 0) {
    await admin.disconnect();
    return records;
  }
  const groupId = `test-reader-${randomUUID()}`;
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 });
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const reached = (partition: number, last: string) => {
    const target = remaining.get(partition);
    if (target !== undefined && BigInt(last) >= target) remaining.delete(partition);
    if (remaining.size === 0) done();
  };
  consumer.on(consumer.events.END_BATCH_PROCESS, (event) => reached(event.payload.partition, event.payload.lastOffset));
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachBatch: async ({ batch }) => {
      for (const message of batch.messages) {
        // A record fetched twice (a re-fetch after a slow round) is still one record.
        const id = `${batch.partition}:${message.offset}`;
        if (seen.has(id)) continue;
        seen.add(id);
        records.push(fromKafkaMessage(topic, batch.partition, message));
      }
      reached(batch.partition, batch.lastOffset());
    },
  });
  await finished;
  await consumer.disconnect();
  await admin.deleteGroups([groupId]).catch(() => undefined);
  await admin.disconnect();
  return records;
}

/** Starts a service's main.ts from its sources as its own process (what the local stack does). */
export function spawnService(
  name: "chain-ingestor" | "projector",
  env: Record<string, string>,
  logFile: string,
): ManagedProcess {
  return spawnManaged({
    name,
    command: process.execPath,
    args: ["--conditions=@platform/source", "--import", "tsx", join(repoRoot, "services", name, "src", "main.ts")],
    env: { ...process.env, GRPC_PORT: "0", OPS_PORT: "0", LOG_LEVEL: "info", ...env },
    cwd: repoRoot,
    logFile,
  });
}
