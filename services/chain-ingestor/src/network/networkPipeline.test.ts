import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { createKafkaClient, defaultPartitions, type ConsumedRecord, type Kafka } from "@platform/bus";
import { loadChainConfig } from "@platform/chain";
import { deployDevnet, devnetSubnets, devnetValidators, type DevnetDeployment } from "@platform/devnet";
import { createLogger, type Logger } from "@platform/log";
import type { AccountActivity, NetworkChainEvent } from "@platform/proto/events/v1/chain_network";
import { CheckpointEvent } from "@platform/proto/events/v1/ingestor_checkpoints";
import { decodePayload, TOPICS } from "@platform/proto/topics";
import {
  accountFromEvmAddress,
  accountFromPublicKey,
  alphaAbi,
  formatAlphaPrice,
  formatU16Ratio,
  metagraphAbi,
  precompileAddresses,
  stakingV2Abi,
  subtensorStorageDecoders as decode,
  subtensorStorageKeys as storageKeys,
} from "@platform/subtensor";
import { startAnvil, startKafka, tempDir, waitFor, type RunningAnvil, type RunningKafka } from "@platform/testing";
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  http,
  parseEther,
  type Account,
  type Hex,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNetworkContext, simulateNetworkStep } from "@platform/simulator";
import type { BlockHeader } from "../follower/blocks.js";
import { readTopic } from "../intents/devnetHarness.itest.js";
import { followerClient } from "../intents/intentsIngestor.js";
import { networkBlockSource } from "./networkBlockSource.js";
import { nativeChain, startNetworkIngestor, type NetworkIngestor } from "./networkIngestor.js";
import type { NetworkRecord } from "./networkRecord.js";
import { networkStateReader } from "./networkState.js";

/*
 * On real servers: an anvil chain with the devnet's Subtensor precompile mocks, and one Kafka
 * broker (the coin/USD feed is the price source's: price/pricePipeline.test.ts). The network ingestor runs in process; every assertion compares what it published
 * with a direct viem read of the chain at the same block.
 */

const CHAIN_ID = 31964;
const dir = tempDir("network-pipeline");
const log: Logger = createLogger({ service: "network-test", level: "warn", destination: new Writable({ write: (_c, _e, callback) => callback() }) });

let anvil: RunningAnvil;
let kafkaServer: RunningKafka;
let kafka: Kafka;
let deployment: DevnetDeployment;
let chainsFile: string;
let ingestor: NetworkIngestor | undefined;
const fenced: unknown[] = [];

const chain = () => defineChain({ id: CHAIN_ID, name: "subtensor", nativeCurrency: { name: "TAO", symbol: "TAO", decimals: 18 }, rpcUrls: { default: { http: [anvil.rpcUrl] } } });
const publicClient = () => createPublicClient({ chain: chain(), transport: http(anvil.rpcUrl), pollingInterval: 50 });
const testClient = () => createTestClient({ chain: chain(), transport: http(anvil.rpcUrl), mode: "anvil" });
const wallet = (account: Account) => createWalletClient({ chain: chain(), transport: http(anvil.rpcUrl), account, pollingInterval: 50 });

async function startInProcess(): Promise<NetworkIngestor> {
  const chains = await loadChainConfig(chainsFile);
  return startNetworkIngestor({
    kafka,
    chains: chains.chains,
    pollIntervalMs: 100,
    maxBlocksPerBatch: 20,
    snapshotEveryBlocks: 1,
    holderChunkSize: 4,
    maxNetuids: 8,
    replicationFactor: 1,
    log,
    onFenced: (error) => fenced.push(error),
  });
}

beforeAll(async () => {
  [anvil, kafkaServer] = await Promise.all([
    startAnvil({ chainId: CHAIN_ID, logFile: join(dir.path, "anvil.log") }),
    startKafka({ dataDir: join(dir.path, "kafka"), logFile: join(dir.path, "kafka.log") }),
  ]);
  deployment = await deployDevnet({ chains: [{ name: "subtensor", chainId: CHAIN_ID, rpcUrl: anvil.rpcUrl, roles: ["native"] }] });
  chainsFile = join(dir.path, "chains.json");
  writeFileSync(
    chainsFile,
    JSON.stringify({
      environment: "test",
      chains: [
        {
          name: "subtensor",
          chainId: CHAIN_ID,
          rpcUrl: anvil.rpcUrl,
          roles: ["native"],
          blockTimeMs: 1_000,
          finality: { safeDepth: 1, finalizedDepth: 3 },
          nativeCurrency: { name: "TAO", symbol: "TAO", decimals: 18 },
          rpc: { timeoutMs: 5_000, retryCount: 2, retryDelayMs: 100 },
          contracts: deployment.chains["subtensor"]!.contracts,
        },
      ],
    }),
  );
  kafka = createKafkaClient({ brokers: kafkaServer.brokers, clientId: "network-test", logger: log });
  ingestor = await startInProcess();
  await waitFor(() => ingestor!.check.probe(), { what: "network ingestor following", timeoutMs: 90_000 });
}, 240_000);

afterAll(async () => {
  await ingestor?.stop();
  await Promise.all([anvil?.stop(), kafkaServer?.stop()]);
  dir.remove();
}, 60_000);

async function checkpointBlock(): Promise<bigint> {
  const records = await readTopic(kafka, TOPICS.ingestorCheckpoints.name);
  const mine = records.filter((record) => record.key === `${CHAIN_ID}:network`);
  const last = mine.at(-1);
  if (last === undefined) return -1n;
  if (last.value === null) return -1n;
  const payload = CheckpointEvent.decode(last.value);
  return payload.event?.$case === "checkpoint" ? BigInt(payload.event.value.blockNumber) : -1n;
}

async function publishedThrough(block: bigint): Promise<void> {
  await waitFor(async () => (await checkpointBlock()) >= block, { what: `checkpoint at block ${block}`, timeoutMs: 60_000, intervalMs: 200 });
}

interface Published {
  record: ConsumedRecord;
  payload: NetworkChainEvent;
}

async function networkRecords(): Promise<Published[]> {
  return (await readTopic(kafka, TOPICS.chainNetwork.name)).flatMap((record) => (record.value === null ? [] : [{ record, payload: decodePayload(TOPICS.chainNetwork, record.value) }]));
}

/** The ChainRef of a chain.network.v1 payload; undefined for a removal. */
function refOf(payload: NetworkChainEvent) {
  const event = payload.event;
  if (event === undefined) return undefined;
  return event.$case === "chainEventRemoved" ? undefined : event.value.ref;
}

function activitiesOf(records: readonly Published[], txHash: Hex): AccountActivity[] {
  return records.flatMap(({ payload }) =>
    payload.event?.$case === "accountActivity" && payload.event.value.ref?.txHash === txHash ? [payload.event.value] : [],
  );
}

async function funded(): Promise<Account> {
  const account = privateKeyToAccount(generatePrivateKey());
  await testClient().setBalance({ address: account.address, value: parseEther("1000") });
  return account;
}

/**
 * The network source's reading of blocks, built as networkSource.ts builds it but outside any
 * follower: nothing is published and no checkpoint moves, so the running ingestor is undisturbed.
 */
async function readWithSource(headers: readonly BlockHeader[], accountsFromNative: boolean): Promise<NetworkRecord[][]> {
  const chain = nativeChain((await loadChainConfig(chainsFile)).chains)!;
  const client = followerClient(chain);
  const source = networkBlockSource({
    client,
    chainId: chain.chainId,
    depths: chain.finality,
    state: networkStateReader({ client, multicall3: chain.contracts.multicall3, maxNetuids: 8 }),
    snapshotEveryBlocks: 1,
    holderChunkSize: 4,
    accountsFromNative,
  });
  const read = await source.readBlocks(headers, headers.at(-1)!.number);
  return headers.map((header) => read.get(header.hash)!);
}

async function headersOf(from: bigint, to: bigint): Promise<BlockHeader[]> {
  const numbers = Array.from({ length: Number(to - from + 1n) }, (_, index) => from + BigInt(index));
  return Promise.all(
    numbers.map(async (blockNumber) => {
      const block = await publicClient().getBlock({ blockNumber });
      return { number: block.number, hash: block.hash, parentHash: block.parentHash, timestamp: block.timestamp };
    }),
  );
}

describe("network source: anvil (Subtensor mocks) → chain-ingestor → Kafka", () => {
  it("publishes transfers and stake calls with balances and snapshots equal to direct reads at the block", async () => {
    const client = publicClient();
    const alice = await funded();
    const bob = privateKeyToAccount(generatePrivateKey());
    const transferHash = await wallet(alice).sendTransaction({ to: bob.address, value: parseEther("2.5") });
    const transfer = await client.waitForTransactionReceipt({ hash: transferHash });

    const hotkey = devnetValidators[0]!.hotkey;
    const stakeHash = await wallet(alice).writeContract({
      address: precompileAddresses.stakingV2,
      abi: stakingV2Abi,
      functionName: "addStake",
      args: [hotkey, 10_000_000_000n, 1n],
      // The devnet mock takes the staked TAO as value (a contract cannot debit an account).
      value: parseEther("10"),
    });
    const stake = await client.waitForTransactionReceipt({ hash: stakeHash });
    expect(stake.status).toBe("success");
    await publishedThrough(stake.blockNumber);

    const records = await networkRecords();
    const transferRecords = activitiesOf(records, transferHash);
    const aliceAccount = accountFromEvmAddress(alice.address);
    const bobAccount = accountFromEvmAddress(bob.address);
    // The two records live under different keys (partitions): compare them in direction order.
    expect(transferRecords.map((record) => [record.account?.publicKey, record.direction]).sort((a, b) => Number(b[1]) - Number(a[1]))).toEqual([
      [aliceAccount.publicKey, 2],
      [bobAccount.publicKey, 1],
    ]);
    const fee = (transfer.gasUsed * transfer.effectiveGasPrice) / 1_000_000_000n;
    for (const record of transferRecords) {
      expect(record).toMatchObject({ amountRao: "2500000000", feeRao: fee.toString(), success: true, activityId: `${transfer.blockNumber}-${transfer.transactionIndex}-0` });
      const address = record.account!.evmH160! as Hex;
      const balance = await client.getBalance({ address, blockNumber: transfer.blockNumber });
      expect(record.balanceAfter?.freeRao).toBe((balance / 1_000_000_000n).toString());
    }

    const [stakeRecord] = activitiesOf(records, stakeHash);
    const position = await client.readContract({
      address: precompileAddresses.stakingV2,
      abi: stakingV2Abi,
      functionName: "getStake",
      args: [hotkey, aliceAccount.publicKey as Hex, 1n],
      blockNumber: stake.blockNumber,
    });
    expect(position).toBeGreaterThan(0n);
    expect(stakeRecord).toMatchObject({ type: 2, amountRao: "10000000000", netuid: 1, hotkey: { publicKey: hotkey } });
    expect(stakeRecord!.balanceAfter?.positions).toEqual([{ netuid: 1, hotkey: expect.objectContaining({ publicKey: hotkey }), stakeNalpha: position.toString() }]);

    const pool = records.find(
      ({ record, payload }) => record.key === "netuid:1" && payload.event?.$case === "poolSnapshot" && payload.event.value.ref?.blockNumber === stake.blockNumber.toString(),
    );
    const read = (functionName: "getAlphaPrice" | "getTaoInPool" | "getAlphaInPool") =>
      client.readContract({ address: precompileAddresses.alpha, abi: alphaAbi, functionName, args: [1], blockNumber: stake.blockNumber });
    expect(pool?.payload.event?.$case === "poolSnapshot" && pool.payload.event.value).toMatchObject({
      priceTao: formatAlphaPrice(await read("getAlphaPrice")),
      taoInRao: (await read("getTaoInPool")).toString(),
      alphaInNalpha: (await read("getAlphaInPool")).toString(),
    });

    const atStake = (eventCase: NonNullable<NetworkChainEvent["event"]>["$case"], key: string) =>
      records.find(({ record, payload }) => record.key === key && payload.event?.$case === eventCase && (payload.event.value as { ref?: { blockNumber: string } }).ref?.blockNumber === stake.blockNumber.toString())
        ?.payload.event?.value;
    const at = { blockNumber: stake.blockNumber } as const;
    const emission = atStake("emissionSnapshot", "netuid:1") as { taoInEmissionRao: string; alphaOutEmissionNalpha: string } | undefined;
    expect(emission).toMatchObject({
      taoInEmissionRao: (await client.readContract({ address: precompileAddresses.alpha, abi: alphaAbi, functionName: "getTaoInEmission", args: [1], ...at })).toString(),
      alphaOutEmissionNalpha: (await client.readContract({ address: precompileAddresses.alpha, abi: alphaAbi, functionName: "getAlphaOutEmission", args: [1], ...at })).toString(),
    });
    const validators = atStake("validatorSetSnapshot", "netuid:1") as { neurons: { uid: number; hotkey?: { publicKey: string }; dividends: string; alphaStakeNalpha: string }[] } | undefined;
    const uidCount = await client.readContract({ address: precompileAddresses.metagraph, abi: metagraphAbi, functionName: "getUidCount", args: [1], ...at });
    expect(validators?.neurons).toHaveLength(uidCount);
    const first = validators!.neurons[0]!;
    expect(first.hotkey?.publicKey).toBe(await client.readContract({ address: precompileAddresses.metagraph, abi: metagraphAbi, functionName: "getHotkey", args: [1, 0], ...at }));
    expect(first.dividends).toBe(formatU16Ratio(await client.readContract({ address: precompileAddresses.metagraph, abi: metagraphAbi, functionName: "getDividends", args: [1, 0], ...at })));
    expect(first.alphaStakeNalpha).toBe(
      (await client.readContract({ address: precompileAddresses.stakingV2, abi: stakingV2Abi, functionName: "getTotalAlphaStaked", args: [first.hotkey!.publicKey as Hex, 1n], ...at })).toString(),
    );
    // Alice's new position is among the holders of netuid 1 at that block, with the staked alpha.
    const holders = records.flatMap(({ record, payload }) =>
      record.key === "netuid:1" && payload.event?.$case === "holderPositions" && payload.event.value.ref?.blockNumber === stake.blockNumber.toString() ? payload.event.value.positions : [],
    );
    expect(holders.find((holder) => holder.coldkey?.publicKey === aliceAccount.publicKey)).toMatchObject({
      hotkey: { publicKey: hotkey },
      alphaNalpha: position.toString(),
    });
    const stats = atStake("networkStatsSnapshot", "network") as { stakedRootRao: string; subnetsCount: number } | undefined;
    expect(stats?.stakedRootRao).toBe((await client.readContract({ address: precompileAddresses.alpha, abi: alphaAbi, functionName: "getTaoInPool", args: [0], ...at })).toString());
    expect(stats?.subnetsCount).toBe(devnetSubnets.length);
  });

  it("follows the network simulator: every step's transactions and every pool match direct reads", async () => {
    const client = publicClient();
    const ctx = await createNetworkContext({
      rpcUrl: anvil.rpcUrl,
      simulatorKey: deployment.accounts.simulator.privateKey,
      state: deployment.chains["subtensor"]!.subtensor!.state,
      seed: "network-pipeline",
      accountCount: 4,
    });
    const steps = [await simulateNetworkStep(ctx), await simulateNetworkStep(ctx)];
    await publishedThrough(steps.at(-1)!.blockNumber);
    const records = await networkRecords();

    for (const { transactions } of steps) {
      for (const { what, hash } of transactions) {
        const activities = activitiesOf(records, hash);
        expect(activities.length, `${what} ${hash}`).toBeGreaterThan(0);
        const receipt = await client.getTransactionReceipt({ hash });
        for (const activity of activities) {
          expect(activity.success).toBe(receipt.status === "success");
          expect(activity.feeRao).toBe(((receipt.gasUsed * receipt.effectiveGasPrice) / 1_000_000_000n).toString());
          const address = activity.account?.evmH160 as Hex | undefined;
          if (address === undefined) continue;
          const balance = await client.getBalance({ address, blockNumber: receipt.blockNumber });
          expect(activity.balanceAfter?.freeRao, `free balance of ${address} after ${what}`).toBe((balance / 1_000_000_000n).toString());
        }
      }
    }

    const last = steps.at(-1)!.blockNumber;
    for (const subnet of devnetSubnets) {
      const pool = records.find(
        ({ record, payload }) => record.key === `netuid:${subnet.netuid}` && payload.event?.$case === "poolSnapshot" && payload.event.value.ref?.blockNumber === last.toString(),
      )?.payload.event;
      const read = (functionName: "getAlphaPrice" | "getMovingAlphaPrice" | "getTaoInPool" | "getAlphaInPool" | "getAlphaOutPool" | "getSubnetVolume") =>
        client.readContract({ address: precompileAddresses.alpha, abi: alphaAbi, functionName, args: [subnet.netuid], blockNumber: last });
      expect(pool?.$case === "poolSnapshot" && pool.value, `pool of netuid ${subnet.netuid}`).toMatchObject({
        priceTao: formatAlphaPrice(await read("getAlphaPrice")),
        movingPriceTao: formatAlphaPrice(await read("getMovingAlphaPrice")),
        taoInRao: (await read("getTaoInPool")).toString(),
        alphaInNalpha: (await read("getAlphaInPool")).toString(),
        alphaOutNalpha: (await read("getAlphaOutPool")).toString(),
        volumeTotalRao: (await read("getSubnetVolume")).toString(),
      });
    }
  });

  it("publishes the storage-only items (0x…0807) equal to the decoded storage read at the same block", async () => {
    const client = publicClient();
    const ctx = await createNetworkContext({
      rpcUrl: anvil.rpcUrl,
      simulatorKey: deployment.accounts.simulator.privateKey,
      state: deployment.chains["subtensor"]!.subtensor!.state,
      seed: "network-storage",
      accountCount: 2,
    });
    // A step mints emission into TotalIssuance, so the value checked is one the simulator moved.
    const { blockNumber } = await simulateNetworkStep(ctx);
    await publishedThrough(blockNumber);
    const records = await networkRecords();
    const at = (eventCase: NonNullable<NetworkChainEvent["event"]>["$case"], key: string) =>
      records.find(({ record, payload }) => record.key === key && payload.event?.$case === eventCase && (payload.event.value as { ref?: { blockNumber: string } }).ref?.blockNumber === blockNumber.toString())
        ?.payload.event?.value as Record<string, unknown> | undefined;
    const read = async (key: Hex) => (await client.call({ to: precompileAddresses.storageQuery, data: key, blockNumber })).data ?? "0x";

    const totalIssuance = decode.totalIssuance(await read(storageKeys.totalIssuance()));
    const blockEmission = decode.blockEmission(await read(storageKeys.blockEmission()));
    expect(totalIssuance).toBeGreaterThan(0n);
    expect(at("networkStatsSnapshot", "network")).toMatchObject({
      totalIssuanceRao: totalIssuance!.toString(),
      blockEmissionRao: blockEmission!.toString(),
      subnetLimit: decode.subnetLimit(await read(storageKeys.subnetLimit())),
    });

    for (const subnet of devnetSubnets) {
      const key = `netuid:${subnet.netuid}`;
      const tempo = decode.tempo(await read(storageKeys.tempo(subnet.netuid)));
      const identity = decode.subnetIdentityV3(await read(storageKeys.subnetIdentityV3(subnet.netuid)));
      const owner = decode.subnetOwner(await read(storageKeys.subnetOwner(subnet.netuid)));
      const published = at("subnetSnapshot", key);
      expect(published, key).toMatchObject({ tempo, symbol: decode.tokenSymbol(await read(storageKeys.tokenSymbol(subnet.netuid))) });
      expect(tempo).toBe(subnet.tempo);
      if (identity === undefined) {
        // Root: no identity stored, so no name and no identity (decoded protobuf reads absent as undefined).
        expect([published?.identity, published?.name]).toEqual([undefined, undefined]);
      } else {
        expect(published).toMatchObject({ name: identity.subnetName, identity, ownerColdkey: accountFromPublicKey(owner!) });
      }
      expect(at("emissionSnapshot", key)).toMatchObject({ tempo, blockEmissionRao: blockEmission!.toString() });
    }

    const neurons = at("validatorSetSnapshot", "netuid:1")!.neurons as { hotkey: { publicKey: Hex }; coldkey: { publicKey: Hex }; take?: string; identity?: unknown }[];
    const validators = neurons.filter((neuron) => devnetValidators.some((validator) => validator.hotkey === neuron.hotkey.publicKey));
    expect(validators.length).toBeGreaterThan(0);
    for (const neuron of neurons) {
      const take = decode.delegateTake(await read(storageKeys.delegateTake(neuron.hotkey.publicKey)));
      const identity = decode.identityV2(await read(storageKeys.identityV2(neuron.coldkey.publicKey)));
      expect(neuron.take).toBe(take === undefined ? undefined : formatU16Ratio(take));
      expect(neuron.identity).toEqual(identity);
    }
    expect(validators.map((neuron) => neuron.identity)).toContainEqual(expect.objectContaining({ name: devnetValidators[0]!.identity.name }));
  });

  it("with accountsFromNative, leaves account activity, pools, network totals and BlockSeen to the native source and reads the rest alike", async () => {
    const client = publicClient();
    const alice = await funded();
    const transfer = await client.waitForTransactionReceipt({
      hash: await wallet(alice).sendTransaction({ to: privateKeyToAccount(generatePrivateKey()).address, value: parseEther("1") }),
    });
    await client.waitForTransactionReceipt({
      hash: await wallet(alice).writeContract({
        address: precompileAddresses.stakingV2,
        abi: stakingV2Abi,
        functionName: "addStake",
        args: [devnetValidators[0]!.hotkey, 1_000_000_000n, 1n],
        value: parseEther("1"),
      }),
    });
    const last = await client.waitForTransactionReceipt({
      hash: await wallet(alice).sendTransaction({ to: privateKeyToAccount(generatePrivateKey()).address, value: parseEther("1") }),
    });
    const headers = await headersOf(transfer.blockNumber, last.blockNumber);
    const [full, evmOnly] = await Promise.all([readWithSource(headers, false), readWithSource(headers, true)]);

    const leftToNative = new Set(["AccountActivity", "BlockSeen", "PoolSnapshot", "NetworkStatsSnapshot"]);
    const evmFacts = ["EmissionSnapshot", "SubnetSnapshot", "ValidatorSetSnapshot", "HolderPositions"];
    const typesOf = (records: readonly NetworkRecord[]) => new Set(records.map((record) => record.eventType));
    // Without the option the same blocks carry everything, so its absence below is the option's doing.
    expect([...typesOf(full.flat())].sort()).toEqual([...leftToNative, ...evmFacts].sort());
    headers.forEach((header, index) => {
      const types = typesOf(evmOnly[index]!);
      expect([...types].filter((type) => leftToNative.has(type)), `block ${header.number}`).toEqual([]);
      for (const type of evmFacts) expect(types.has(type), `${type} at block ${header.number}`).toBe(true);
      // The same records, in the same order, as without the option, less the kinds left to the native source.
      expect(evmOnly[index]).toEqual(full[index]!.filter((record) => !leftToNative.has(record.eventType)));
    });
    // The coin price is the price source's alone.
    expect(full.flat().filter((record) => record.eventType === "PriceObserved")).toEqual([]);
  });

  it("resumes after a restart without losing or repeating a block", async () => {
    await ingestor!.stop();
    ingestor = undefined;
    const alice = await funded();
    const hashes: Hex[] = [];
    for (let index = 0; index < 3; index++) hashes.push(await wallet(alice).sendTransaction({ to: privateKeyToAccount(generatePrivateKey()).address, value: 1_000_000_000n }));
    const last = await publicClient().waitForTransactionReceipt({ hash: hashes.at(-1)! });
    ingestor = await startInProcess();
    await publishedThrough(last.blockNumber);

    const records = await networkRecords();
    for (const hash of hashes) expect(activitiesOf(records, hash)).toHaveLength(2);
    // One network snapshot per block, for every block from the first to the last published.
    const blocks = records
      .filter(({ payload }) => payload.event?.$case === "networkStatsSnapshot")
      .map(({ payload }) => (payload.event?.$case === "networkStatsSnapshot" ? BigInt(payload.event.value.ref!.blockNumber) : -1n));
    expect(new Set(blocks).size).toBe(blocks.length);
    expect(blocks.at(-1)! - blocks[0]! + 1n).toBe(BigInt(blocks.length));
    // Each of those blocks ends in every partition with its BlockSeen, after the block's other records there.
    for (const block of blocks) {
      const ofBlock = records.filter(({ payload }) => refOf(payload)?.blockNumber === block.toString());
      const seen = ofBlock.filter(({ payload }) => payload.event?.$case === "blockSeen");
      expect(seen.map(({ record }) => record.partition).sort()).toEqual(Array.from({ length: defaultPartitions["chain.network.v1"] }, (_, partition) => partition));
      for (const { record } of seen) {
        const others = ofBlock.filter((other) => other.record.partition === record.partition && other.payload.event?.$case !== "blockSeen");
        for (const other of others) expect(BigInt(other.record.offset)).toBeLessThan(BigInt(record.offset));
      }
    }
    expect(fenced).toEqual([]);
  });

  it("publishes a removal for every record of a block a reorganisation undid", async () => {
    const client = publicClient();
    const alice = await funded();
    const snapshot = await testClient().snapshot();
    const hash = await wallet(alice).sendTransaction({ to: privateKeyToAccount(generatePrivateKey()).address, value: 7_000_000_000n });
    const mined = await client.waitForTransactionReceipt({ hash });
    await publishedThrough(mined.blockNumber);
    const published = (await networkRecords()).filter(({ record }) => record.eventId?.includes(mined.blockHash.toLowerCase()) ?? false);
    expect(activitiesOf(published, hash)).toHaveLength(2);

    await testClient().revert({ id: snapshot });
    await testClient().mine({ blocks: 3 });
    const removedIds = await waitFor(
      async () => {
        const removals = (await networkRecords()).flatMap(({ payload }) =>
          payload.event?.$case === "chainEventRemoved" && payload.event.value.removed?.blockHash === mined.blockHash.toLowerCase() ? [payload.event.value.removedEventId] : [],
        );
        return removals.length >= published.length ? removals : false;
      },
      { what: "removals of the orphaned block", timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(new Set(removedIds)).toEqual(new Set(published.map(({ record }) => record.eventId)));
  });

  it("fences off the older instance when a second one takes over, and the newer one publishes on", async () => {
    const older = ingestor!;
    ingestor = await startInProcess();
    const alice = await funded();
    const hash = await wallet(alice).sendTransaction({ to: privateKeyToAccount(generatePrivateKey()).address, value: 3_000_000_000n });
    const mined = await publicClient().waitForTransactionReceipt({ hash });
    // The older instance learns it is fenced only when it next commits, and it commits only on a new
    // block: if the newer one's producer took over after the older published this block, it takes
    // another block (under load that ordering is common), so keep the chain moving until then.
    await waitFor(
      async () => {
        if (fenced.length > 0) return true;
        await testClient().mine({ blocks: 1 });
        return false;
      },
      { what: "the older instance fenced", timeoutMs: 30_000, intervalMs: 500 },
    );
    await older.stop();
    await publishedThrough(mined.blockNumber);
    expect(activitiesOf(await networkRecords(), hash)).toHaveLength(2);
  });
});
