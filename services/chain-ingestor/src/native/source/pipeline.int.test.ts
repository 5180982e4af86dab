import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { type ConsumedRecord, createKafkaClient, type Kafka } from "@platform/bus";
import type { SubstrateNetworkInput } from "@platform/chain";
import { substrateNetworkSchema } from "@platform/chain";
import { type SeededNativeNetwork, startSeededSubtensor } from "@platform/devnet";
import { createLogger, type Logger } from "@platform/log";
import { HolderCoverage, PoolMechanism } from "@platform/proto/common/v1/network";
import type { ChainEventRemoved } from "@platform/proto/events/v1/chain";
import type {
  AccountActivity,
  HolderPositions,
  NetworkChainEvent,
  PoolSnapshot,
} from "@platform/proto/events/v1/chain_network";
import { CheckpointEvent } from "@platform/proto/events/v1/ingestor_checkpoints";
import { applyHolderSetDelta, holderSetDigest } from "@platform/proto/holderSets";
import { decodePayload, TOPICS } from "@platform/proto/topics";
import { formatU64Ratio } from "@platform/subtensor";
import {
  type ManagedProcess,
  type RunningChopsticks,
  type RunningKafka,
  startChopsticks,
  startKafka,
  tempDir,
  waitFor,
} from "@platform/testing";
import { ApiPromise, WsProvider } from "@polkadot/api";
import { Keyring } from "@polkadot/keyring";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTopic, spawnService } from "../../../test/devnetHarness.js";
import { type NativeIngestor, startNativeIngestor } from "./ingestor.js";

/*
 * On real servers: the Subtensor runtime (spec 218) under chopsticks, seeded through real signed
 * extrinsics, and one Kafka broker. The native source runs in process (and, for the kill test, as
 * its own process); every record is compared with a direct read of the runtime through another
 * client (@polkadot/api) at the record's block.
 */

const dir = tempDir("native-pipeline");
const log: Logger = createLogger({
  service: "native-test",
  level: "warn",
  destination: new Writable({ write: (_c, _e, callback) => callback() }),
});

let node: RunningChopsticks;
let kafkaServer: RunningKafka;
let kafka: Kafka;
let api: ApiPromise;
let network: SubstrateNetworkInput;
let ingestor: NativeIngestor | undefined;
let seeded: SeededNativeNetwork;

const keyring = () => new Keyring({ type: "sr25519", ss58Format: 42 });

beforeAll(async () => {
  let subtensor: Awaited<ReturnType<typeof startSeededSubtensor>>;
  [subtensor, kafkaServer] = await Promise.all([
    startSeededSubtensor({ logFile: join(dir.path, "chopsticks.log") }),
    startKafka({ dataDir: join(dir.path, "kafka"), logFile: join(dir.path, "kafka.log") }),
  ]);
  ({ node, seeded } = subtensor);
  api = await ApiPromise.create({ provider: new WsProvider(node.rpcUrl), noInitWarn: true });
  // raonet's genesis leaves EVMChainId unset (0); the local network goes by 945, as the stack does.
  const chainId = 945;
  network = {
    name: "bittensor",
    chainId,
    rpcUrl: node.rpcUrl,
    blockTimeMs: 1_000,
    finality: { safeDepth: 1, finalizedDepth: 3 },
    rpc: { timeoutMs: 10_000, retryCount: 1, retryDelayMs: 100 },
  };
  kafka = createKafkaClient({ brokers: kafkaServer.brokers, clientId: "native-test", logger: log });
  ingestor = startIn(network);
  await caughtUp();
}, 300_000);

afterAll(async () => {
  await ingestor?.stop();
  await api?.disconnect();
  await Promise.all([node?.stop(), kafkaServer?.stop()]);
  dir.remove();
}, 60_000);

function startIn(input: SubstrateNetworkInput, extra: { rescanEveryBlocks?: number } = {}): NativeIngestor {
  return startNativeIngestor({
    ...extra,
    kafka,
    network: substrateNetworkSchema.parse(input),
    pollIntervalMs: 100,
    maxBlocksPerBatch: 10,
    replicationFactor: 1,
    log,
    onFenced: () => undefined,
  });
}

async function headNumber(): Promise<bigint> {
  return BigInt((await api.rpc.chain.getHeader()).number.toString());
}

/** The native checkpoint has reached the node's best block. */
async function caughtUp(timeoutMs = 120_000): Promise<void> {
  const target = await headNumber();
  await waitFor(async () => ((await checkpoints()).at(-1)?.blockNumber ?? -1n) >= target, {
    what: `native source at block ${target}`,
    timeoutMs,
    intervalMs: 200,
  });
}

async function checkpoints(): Promise<{ blockNumber: bigint; blockHash: string }[]> {
  const records = await readTopic(kafka, TOPICS.ingestorCheckpoints.name);
  return records
    .filter((record) => record.key === `${network.chainId}:native`)
    .map((record) => CheckpointEvent.decode(record.value!).event!.value)
    .map((checkpoint) => ({ blockNumber: BigInt(checkpoint.blockNumber), blockHash: checkpoint.blockHash }));
}

interface Published {
  record: ConsumedRecord;
  event: NetworkChainEvent["event"];
}

async function published(): Promise<Published[]> {
  return (await readTopic(kafka, TOPICS.chainNetwork.name)).map((record) => ({
    record,
    event: decodePayload(TOPICS.chainNetwork, record.value!).event,
  }));
}

const activitiesOf = (records: readonly Published[]): AccountActivity[] =>
  records.flatMap(({ event }) => (event?.$case === "accountActivity" ? [event.value] : []));
const removalsOf = (records: readonly Published[]): ChainEventRemoved[] =>
  records.flatMap(({ event }) => (event?.$case === "chainEventRemoved" ? [event.value] : []));

/** Activities that no removal took back. */
function standing(records: readonly Published[]): AccountActivity[] {
  const removed = new Set(removalsOf(records).map((removal) => removal.removedEventId));
  return records.flatMap(({ record, event }) =>
    event?.$case === "accountActivity" && !removed.has(record.headers["event-id"] ?? "") ? [event.value] : [],
  );
}

/** The StakeInfo layout of spec 218, registered in @polkadot/api's registry to decode the runtime API's bytes independently. */
function registerStakeInfo(): void {
  api.registry.register({
    TestStakeInfo: {
      hotkey: "[u8; 32]",
      coldkey: "[u8; 32]",
      netuid: "Compact<u16>",
      stake: "Compact<u64>",
      locked: "Compact<u64>",
      emission: "Compact<u64>",
      drain: "Compact<u64>",
      isRegistered: "bool",
    },
  });
}

/**
 * The coldkey's positions by a raw `state_call` of the runtime API (its argument and answer are
 * SCALE `Vec<u8>`), decoded with @polkadot/api's registry: nothing of the service's client.
 */
async function directPositions(
  blockHash: string,
  publicKey: string,
): Promise<{ netuid: number; hotkey: string; stakeNalpha: string }[]> {
  const argument = `0x80${publicKey.slice(2)}`;
  const answer = await node.request<string>("state_call", [
    "StakeInfoRuntimeApi_get_stake_info_for_coldkey",
    argument,
    blockHash,
  ]);
  // From bytes (not hex), so the registry reads the answer's own length prefix.
  const content = api.registry.createType("Bytes", Uint8Array.from(Buffer.from(answer.slice(2), "hex"))).toU8a(true);
  const infos = api.registry.createType("Vec<TestStakeInfo>", content) as unknown as {
    netuid: { toNumber(): number };
    hotkey: { toHex(): string };
    stake: { toString(): string };
  }[];
  return infos
    .map((info) => ({
      netuid: info.netuid.toNumber(),
      hotkey: info.hotkey.toHex(),
      stakeNalpha: info.stake.toString(),
    }))
    .filter((position) => position.stakeNalpha !== "0")
    .sort((a, b) => a.netuid - b.netuid || (a.hotkey < b.hotkey ? -1 : 1));
}

/**
 * TAO per alpha as the runtime's `get_alpha_price` quotes it through `price x 1e9 -> u64`, written
 * out here rather than taken from the service, so a slip in either shows as a difference.
 */
function runtimePrice(netuid: number, mechanism: number, taoRao: bigint, alphaInNalpha: bigint): string {
  if (netuid === 0 || mechanism === 0) return "1";
  if (alphaInNalpha === 0n) return "0";
  const scaled = (taoRao * 1_000_000_000n) / alphaInNalpha;
  const fraction = (scaled % 1_000_000_000n).toString().padStart(9, "0").replace(/0+$/, "");
  return `${scaled / 1_000_000_000n}${fraction === "" ? "" : `.${fraction}`}`;
}

/** Every added subnet's pool at the block, read through @polkadot/api: nothing of the service's client. */
async function directPools(blockHash: string): Promise<Omit<PoolSnapshot, "ref">[]> {
  const at = await api.at(blockHash);
  const module = at.query.subtensorModule!;
  // The TAO each pool swapped in the block, and its order flow: StakeAdded (a buy) / StakeRemoved (a
  // sell), each (coldkey, hotkey, tao, alpha, netuid).
  const swapped = new Map<number, bigint>();
  const flows = new Map<
    number,
    { buy: bigint; sell: bigint; buys: number; sells: number; buyers: Set<string>; sellers: Set<string> }
  >();
  const events = (await at.query.system.events()) as unknown as {
    event: { section: string; method: string; data: { toString(): string; toHex(): string }[] };
  }[];
  for (const { event } of events) {
    if (event.section !== "subtensorModule" || (event.method !== "StakeAdded" && event.method !== "StakeRemoved"))
      continue;
    const netuid = Number(event.data[4]!.toString());
    const tao = BigInt(event.data[2]!.toString());
    swapped.set(netuid, (swapped.get(netuid) ?? 0n) + tao);
    const flow = flows.get(netuid) ?? { buy: 0n, sell: 0n, buys: 0, sells: 0, buyers: new Set(), sellers: new Set() };
    flows.set(netuid, flow);
    const coldkey = event.data[0]!.toHex().toLowerCase();
    if (event.method === "StakeAdded") {
      flow.buy += tao;
      flow.buys += 1;
      flow.buyers.add(coldkey);
    } else {
      flow.sell += tao;
      flow.sells += 1;
      flow.sellers.add(coldkey);
    }
  }
  const flowOf = (netuid: number) => {
    const flow = flows.get(netuid);
    return {
      buyVolumeRao: (flow?.buy ?? 0n).toString(),
      sellVolumeRao: (flow?.sell ?? 0n).toString(),
      buys: flow?.buys ?? 0,
      sells: flow?.sells ?? 0,
      buyers: [...(flow?.buyers ?? [])].sort(),
      sellers: [...(flow?.sellers ?? [])].sort(),
    };
  };
  const added = await module.networksAdded!.entries();
  const netuids = added
    .filter(([, isAdded]) => isAdded.toJSON() === true)
    .map(([key]) => Number(key.args[0]!.toString()));
  const pools = await Promise.all(
    netuids.map(async (netuid) => {
      const [tao, alphaIn, alphaOut, mechanism] = (
        await Promise.all([
          module.subnetTAO!(netuid),
          module.subnetAlphaIn!(netuid),
          module.subnetAlphaOut!(netuid),
          module.subnetMechanism!(netuid),
        ])
      ).map((value) => BigInt(value.toString()));
      return {
        netuid,
        mechanism:
          mechanism === 0n
            ? PoolMechanism.POOL_MECHANISM_STABLE
            : mechanism === 1n
              ? PoolMechanism.POOL_MECHANISM_DYNAMIC
              : PoolMechanism.POOL_MECHANISM_UNSPECIFIED,
        taoInRao: tao!.toString(),
        alphaInNalpha: alphaIn!.toString(),
        alphaOutNalpha: alphaOut!.toString(),
        alphaIssuanceNalpha: (alphaIn! + alphaOut!).toString(),
        priceTao: runtimePrice(netuid, Number(mechanism), tao!, alphaIn!),
        blockVolumeRao: (swapped.get(netuid) ?? 0n).toString(),
        blockFlow: flowOf(netuid),
      };
    }),
  );
  return pools.sort((a, b) => a.netuid - b.netuid);
}

describe("the native source on the real runtime: activities and pools", () => {
  it("publishes each seeded activity, and every value equals a direct read at its block", async () => {
    registerStakeInfo();
    const activities = activitiesOf(await published());
    const kinds = ["transfer", "stakeAdd", "stakeRemove", "stakeMove", "register", "evm"] as const;
    for (const kind of kinds) {
      const landed = seeded.activity[kind];
      expect(landed.length, `${kind} seeded`).toBeGreaterThan(0);
      for (const extrinsic of landed) {
        const found = activities.filter(
          (activity) =>
            activity.ref!.blockHash === extrinsic.blockHash &&
            activity.extrinsicId === `${extrinsic.blockNumber}-${extrinsic.extrinsicIndex}`,
        );
        expect(found.length, `${kind} ${extrinsic.label} published`).toBeGreaterThan(0);
      }
    }
    expect(activities.length).toBeGreaterThan(10);

    const blocks = new Map<string, Awaited<ReturnType<typeof api.at>>>();
    for (const activity of activities) {
      const ref = activity.ref!;
      const at = blocks.get(ref.blockHash) ?? (await api.at(ref.blockHash));
      blocks.set(ref.blockHash, at);
      const events = (await at.query.system.events()) as unknown as {
        phase: { asApplyExtrinsic: { toNumber(): number } };
        event: { section: string; method: string };
      }[];
      const event = events[ref.logIndex!]!;
      expect(`${event.event.section}.${event.event.method}`.toLowerCase()).toBe(activity.eventName!.toLowerCase());
      expect(event.phase.asApplyExtrinsic.toNumber()).toBe(ref.txIndex);
      expect(activity.extrinsicId).toBe(`${ref.blockNumber}-${ref.txIndex}`);
      const block = await api.rpc.chain.getBlock(ref.blockHash);
      expect(activity.extrinsicHash).toBe(block.block.extrinsics[ref.txIndex!]!.hash.toHex());

      const account = (await at.query.system.account(activity.account!.publicKey)) as unknown as {
        data: { free: { toString(): string }; reserved: { toString(): string }; frozen: { toString(): string } };
      };
      expect(activity.balanceAfter).toMatchObject({
        freeRao: account.data.free.toString(),
        reservedRao: account.data.reserved.toString(),
        frozenRao: account.data.frozen.toString(),
      });
      const positions = activity.balanceAfter!.positions.map((position) => ({
        netuid: position.netuid,
        hotkey: position.hotkey!.publicKey,
        stakeNalpha: position.stakeNalpha,
      }));
      expect(positions).toEqual(await directPositions(ref.blockHash, activity.account!.publicKey));
    }
  }, 180_000);

  it("publishes every added subnet's pool at every block, equal to a direct read there, before the block's BlockSeen", async () => {
    const records = await published();
    const refOf = ({ event }: Published) =>
      event === undefined || event.$case === "chainEventRemoved" ? undefined : event.value.ref;
    const blockHashes = [
      ...new Set(
        records.flatMap((published) =>
          published.event?.$case === "blockSeen" ? [published.event.value.ref!.blockHash] : [],
        ),
      ),
    ];
    // Every block published so far: the seeding blocks (subnets registered mid-way) and the caught-up head.
    for (const extrinsic of Object.values(seeded.activity).flat()) expect(blockHashes).toContain(extrinsic.blockHash);
    expect(blockHashes).toContain((await api.rpc.chain.getBlockHash(await headNumber())).toHex());

    const compared: PoolSnapshot[] = [];
    for (const blockHash of blockHashes) {
      const ofBlock = records.filter((published) => refOf(published)?.blockHash === blockHash);
      const pools = ofBlock.flatMap((published) =>
        published.event?.$case === "poolSnapshot" ? [{ published, pool: published.event.value }] : [],
      );
      const direct = await directPools(blockHash);
      expect(direct.length, `subnets at ${blockHash}`).toBeGreaterThan(0);
      const blockNumber = (await api.rpc.chain.getHeader(blockHash)).number.toString();
      // Sorted, compared whole: exactly one per added netuid, none for another.
      const byNetuid = [...pools].sort((a, b) => a.pool.netuid - b.pool.netuid);
      expect(
        byNetuid.map(({ pool }) => pool.netuid),
        `netuids at block ${blockNumber}`,
      ).toEqual(direct.map((pool) => pool.netuid));
      byNetuid.forEach(({ published, pool }, index) => {
        expect(published.record.key).toBe(`netuid:${pool.netuid}`);
        // toEqual passes undefined fields as absent, so the moving price and volume are checked to be
        // unset; the block's volume is its stake events' TAO.
        expect(pool, `pool ${pool.netuid} at block ${blockNumber}`).toEqual({
          ...direct[index],
          ref: expect.objectContaining({ blockHash, blockNumber }),
        });
        expect([pool.movingPriceTao, pool.volumeTotalRao]).toEqual([undefined, undefined]);
        compared.push(pool);
      });

      // Per partition, the block's BlockSeen closes it: every other record of the block there comes first.
      const seen = ofBlock.filter(({ event }) => event?.$case === "blockSeen");
      expect(seen.map(({ record }) => record.partition).sort((a, b) => a - b)).toEqual(
        Array.from({ length: TOPICS.chainNetwork.partitions }, (_, partition) => partition),
      );
      for (const { record } of ofBlock.filter(({ event }) => event?.$case !== "blockSeen")) {
        const closing = seen.find((candidate) => candidate.record.partition === record.partition);
        expect(closing, `BlockSeen of block ${blockNumber} in partition ${record.partition}`).toBeDefined();
        expect(BigInt(record.offset)).toBeLessThan(BigInt(closing!.record.offset));
      }
    }
    // The seeded subnets (and genesis's netuid 1) are dynamic, so the comparisons above went through the reserves' division too.
    const dynamic = compared.filter(
      (pool) => pool.mechanism === PoolMechanism.POOL_MECHANISM_DYNAMIC && pool.netuid !== 0,
    );
    expect([...new Set(dynamic.map((pool) => pool.netuid))]).toEqual(expect.arrayContaining(seeded.netuids));
    expect(dynamic.some((pool) => pool.priceTao !== "1" && pool.priceTao !== "0")).toBe(true);
    // The seeded stakes swapped TAO through their pools: the block volumes compared above were not all 0.
    expect(compared.some((pool) => pool.blockVolumeRao !== "0")).toBe(true);
  }, 60_000);
});

describe("the native source on the real runtime: alpha holders", () => {
  it("publishes every alpha position of a subnet (hotkeys registered there or not) whenever it changes, equal to the runtime API's", async () => {
    registerStakeInfo();
    // Everything through the chain's head published first: the head's set is compared below.
    const head = Number(await headNumber());
    const records = await waitFor(
      async () => {
        const all = await published();
        return all.some(({ event }) => event?.$case === "blockSeen" && Number(event.value.ref?.blockNumber) >= head)
          ? all
          : undefined;
      },
      { what: `block ${head} published`, timeoutMs: 30_000 },
    );
    const sets = new Map<number, Map<number, HolderPositions[]>>();
    for (const { event } of records) {
      if (event?.$case !== "holderPositions") continue;
      const block = Number(event.value.ref!.blockNumber);
      const ofSubnet = sets.get(event.value.netuid) ?? new Map<number, HolderPositions[]>();
      ofSubnet.set(block, [...(ofSubnet.get(block) ?? []), event.value]);
      sets.set(event.value.netuid, ofSubnet);
    }
    expect([...sets.keys()]).toEqual(expect.arrayContaining(seeded.netuids));
    // The stakes came after the first block read: later sets were kept up from the events, not read whole.
    expect(Math.max(...[...sets.values()].map((ofSubnet) => ofSubnet.size))).toBeGreaterThan(1);
    const checked = [...new Set([...sets.values()].flatMap((ofSubnet) => [...ofSubnet.keys()])), head].sort(
      (a, b) => a - b,
    );
    // Each block's whole set, from its keyframe or its delta applied to the set before it (the
    // deltas' digests name the set they apply to and the set they make).
    const wholes = new Map<number, Map<number, HolderPositions["positions"]>>();
    let deltas = 0;
    for (const [netuid, ofSubnet] of sets) {
      const ofBlock = new Map<number, HolderPositions["positions"]>();
      let current: HolderPositions["positions"] | undefined;
      for (const block of [...ofSubnet.keys()].sort((a, b) => a - b)) {
        const chunks = ofSubnet.get(block)!.sort((a, b) => a.chunkIndex - b.chunkIndex);
        const positions = chunks.flatMap((chunk) => chunk.positions);
        const baseDigest = chunks[0]!.baseDigest;
        if (baseDigest !== undefined) {
          deltas += 1;
          expect(
            current,
            `subnet ${netuid}: a delta at block ${block} before any keyframe: ${JSON.stringify(chunks.map((c) => [c.ref?.blockHash, c.chunkIndex, c.chunkCount, c.positions.length]))}`,
          ).toBeDefined();
          expect(holderSetDigest(current!), `subnet ${netuid}: the base of block ${block}'s delta`).toEqual(baseDigest);
        }
        current = baseDigest === undefined ? positions : applyHolderSetDelta(current!, positions);
        expect(holderSetDigest(current), `subnet ${netuid}: the digest of block ${block}'s set`).toEqual(
          chunks[0]!.digest,
        );
        ofBlock.set(block, current);
      }
      wholes.set(netuid, ofBlock);
    }
    expect(deltas, "stakes after the first block go out as deltas").toBeGreaterThan(0);
    let unregistered = 0;
    for (const block of checked) {
      const blockHash = (await api.rpc.chain.getBlockHash(block)).toHex();
      const at = await api.at(blockHash);
      // Every coldkey with an Alpha entry, asked of the runtime API: the positions it holds on each subnet.
      const coldkeys = new Set(
        (
          (await at.query.subtensorModule!.alpha!.keys()) as unknown as {
            args: [unknown, { toHex(): string }, unknown];
          }[]
        ).map((key) => key.args[1].toHex()),
      );
      const direct = new Map<number, { coldkey: string; hotkey: string; alphaNalpha: string }[]>();
      for (const coldkey of coldkeys) {
        for (const position of await directPositions(blockHash, coldkey)) {
          direct.set(position.netuid, [
            ...(direct.get(position.netuid) ?? []),
            { coldkey, hotkey: position.hotkey, alphaNalpha: position.stakeNalpha },
          ]);
        }
      }
      const registered = new Map<number, Set<string>>();
      for (const [key, hotkey] of (await at.query.subtensorModule!.keys!.entries()) as unknown as [
        { args: [{ toNumber(): number }] },
        { toHex(): string },
      ][]) {
        const netuid = key.args[0].toNumber();
        registered.set(netuid, (registered.get(netuid) ?? new Set()).add(hotkey.toHex()));
      }
      for (const [netuid, ofSubnet] of sets) {
        // The set standing at the block: the newest published at or before it, all its chunks.
        const standingBlock = Math.max(...[...ofSubnet.keys()].filter((published) => published <= block));
        if (!Number.isFinite(standingBlock)) continue;
        const chunks = ofSubnet.get(standingBlock)!.sort((a, b) => a.chunkIndex - b.chunkIndex);
        expect(chunks.map((chunk) => [chunk.chunkIndex, chunk.chunkCount, chunk.coverage])).toEqual(
          chunks.map((_chunk, index) => [index, chunks.length, HolderCoverage.HOLDER_COVERAGE_COMPLETE]),
        );
        const standing = wholes
          .get(netuid)!
          .get(standingBlock)!
          .map((position) => ({
            coldkey: position.coldkey!.publicKey,
            hotkey: position.hotkey!.publicKey,
            alphaNalpha: position.alphaNalpha,
          }));
        const sortKey = (position: { coldkey: string; hotkey: string }) => `${position.coldkey}${position.hotkey}`;
        const expected = [...(direct.get(netuid) ?? [])].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1));
        expect(
          [...standing].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1)),
          `holders of subnet ${netuid} at block ${block} (set of block ${standingBlock}); published: ${JSON.stringify([...ofSubnet].map(([b, cs]) => [b, cs.map((c) => [c.ref?.blockHash.slice(0, 10), c.baseDigest === undefined ? "key" : "delta", c.positions.map((p) => [p.coldkey?.publicKey.slice(0, 8), p.hotkey?.publicKey.slice(0, 8), p.alphaNalpha])])]))}; direct: ${JSON.stringify(expected)}`,
        ).toEqual(expected);
        // Largest first.
        expect(standing.map((position) => BigInt(position.alphaNalpha))).toEqual(
          [...standing.map((position) => BigInt(position.alphaNalpha))].sort((a, b) => (a === b ? 0 : a > b ? -1 : 1)),
        );
        if (netuid !== 0)
          unregistered += standing.filter((position) => !registered.get(netuid)?.has(position.hotkey)).length;
      }
    }
    // Charlie's alpha moved to seed-beta through his seed-gamma hotkey, which is not registered on seed-beta.
    expect(unregistered).toBeGreaterThan(0);
  }, 240_000);
});

describe("the native source on the real runtime: network totals and an abandoned branch", () => {
  it("publishes the network totals at every block, equal to direct reads there (the registration cost to the runtime API's)", async () => {
    const records = await published();
    const stats = records.flatMap(({ event, record }) =>
      event?.$case === "networkStatsSnapshot" ? [{ stats: event.value, key: record.headers["event-id"] }] : [],
    );
    const blocks = new Set(
      records.flatMap(({ event }) => (event?.$case === "blockSeen" ? [event.value.ref!.blockHash] : [])),
    );
    expect(new Set(stats.map(({ stats }) => stats.ref!.blockHash))).toEqual(blocks);
    const u64 = (hex: string) => Buffer.from(hex.slice(2), "hex").readBigUInt64LE(0).toString();
    for (const { stats: snapshot } of stats) {
      const blockHash = snapshot.ref!.blockHash;
      const at = await api.at(blockHash);
      const module = at.query.subtensorModule!;
      const text = async (read: Promise<unknown>) => String(await read);
      const netuids = ((await module.networksAdded!.keys()) as unknown as { args: [{ toNumber(): number }] }[]).map(
        (key) => key.args[0].toNumber(),
      );
      const taos = await Promise.all(netuids.map((netuid) => text(module.subnetTAO!(netuid))));
      const locked = await Promise.all(netuids.map((netuid) => text(module.subnetLocked!(netuid))));
      const root = BigInt(taos[netuids.indexOf(0)] ?? "0");
      const alphaPools = taos.reduce((sum, tao) => sum + BigInt(tao), 0n) - root;
      let accounts = 0;
      for (let startKey: string | null = null; ; ) {
        const page: string[] = await node.request<string[]>("state_getKeysPaged", [
          "0x26aa394eea5630e07c48ae0c9558cef7b99d880ec681799c0cf30e8886371da9",
          1000,
          startKey,
          blockHash,
        ]);
        accounts += page.length;
        if (page.length < 1000) break;
        startKey = page.at(-1)!;
      }
      const cost = u64(
        await node.request<string>("state_call", [
          "SubnetRegistrationRuntimeApi_get_network_registration_cost",
          "0x",
          blockHash,
        ]),
      );
      const taoWeight = BigInt(await text(module.taoWeight!(0)));
      const body = await api.rpc.chain.getBlock(blockHash);
      const events = (await at.query.system.events()) as unknown as { event: { section: string; method: string } }[];
      // The finalized head is what the source saw of the node when it read the block, not storage.
      expect(snapshot, `totals at block ${snapshot.ref!.blockNumber}`).toEqual({
        ref: snapshot.ref,
        finalizedBlockNumber: snapshot.finalizedBlockNumber,
        totalIssuanceRao: await text(module.totalIssuance!()),
        balancesTotalIssuanceRao: await text(at.query.balances!.totalIssuance!()),
        totalStakeRao: await text(module.totalStake!()),
        stakedRootRao: root.toString(),
        stakedAlphaPoolsRao: alphaPools.toString(),
        subnetLockedRao: locked.reduce((sum, value) => sum + BigInt(value), 0n).toString(),
        blockEmissionRao: await text(module.blockEmission!()),
        taoWeight: formatU64Ratio(taoWeight),
        rootNetuid: 0,
        subnetsCount: netuids.length,
        subnetLimit: Number(await text(module.subnetLimit!())),
        subnetRegistrationCostRao: cost,
        subnetMinLockRao: await text(module.networkMinLockCost!()),
        subnetLastLockRao: await text(module.networkLastLockCost!()),
        subnetLastRegistrationBlock: await text(module.networkLastRegistered!()),
        lockReductionIntervalBlocks: await text(module.networkLockReductionInterval!()),
        accountsCount: String(accounts),
        blockExtrinsicsCount: body.block.extrinsics.length,
        blockTransfersCount: events.filter(({ event }) => event.section === "balances" && event.method === "Transfer")
          .length,
      });
      // Totals the chain does not keep are left out, not zero (the projection sums the block's own counts).
      expect([snapshot.transfersCount, snapshot.extrinsicsCount, snapshot.balanceHoldersCount]).toEqual([
        undefined,
        undefined,
        undefined,
      ]);
    }
    // The seed set Subtensor's issuance to cover what is staked and locked: free TAO is positive.
    const last = stats.at(-1)!.stats;
    expect(BigInt(last.totalIssuanceRao) - BigInt(last.totalStakeRao) - BigInt(last.subnetLockedRao!)).toBeGreaterThan(
      0n,
    );
  }, 60_000);

  it("takes back the records of an abandoned branch and publishes the new branch's", async () => {
    const alice = keyring().addFromUri("//Alice");
    const before = await headNumber();
    const ancestor = (await api.rpc.chain.getBlockHash(before)).toHex();
    const nonce = Number((await api.rpc.system.accountNextIndex(alice.address)).toString());
    const abandonedTo = keyring().addFromUri("//Abandoned").address;
    await api.tx.balances!.transferKeepAlive!(abandonedTo, 7_000_000_000n).signAndSend(alice, { nonce });
    const abandonedHash = await node.newBlocks(1);
    await caughtUp();
    const abandoned = activitiesOf(await published()).filter((activity) => activity.ref!.blockHash === abandonedHash);
    expect(abandoned.length).toBe(2);

    // Back to the ancestor, then a different block on it (another recipient), and one more so the new branch is longer.
    await node.request("dev_setHead", [ancestor]);
    const newTo = keyring().addFromUri("//Chosen").address;
    await api.tx.balances!.transferKeepAlive!(newTo, 9_000_000_000n).signAndSend(alice, { nonce });
    const chosenHash = await node.newBlocks(1);
    await node.newBlocks(1);
    await caughtUp();

    const records = await published();
    const removed = new Set(removalsOf(records).map((removal) => removal.removedEventId));
    const abandonedIds = records
      .filter(({ event }) => event?.$case !== "chainEventRemoved" && event?.value.ref?.blockHash === abandonedHash)
      .map(({ record }) => record.headers["event-id"]);
    expect(abandonedIds.length).toBeGreaterThan(0);
    expect(abandonedIds.filter((id) => !removed.has(id ?? ""))).toEqual([]);
    const now = standing(records);
    expect(now.some((activity) => activity.ref!.blockHash === abandonedHash)).toBe(false);
    expect(
      now.filter((activity) => activity.ref!.blockHash === chosenHash).map((activity) => activity.to?.ss58),
    ).toEqual([newTo, newTo]);
  }, 120_000);
});

describe("the subnet set, read whole every few blocks", () => {
  it("finds netuid 128 (written into state without an event) and publishes its removal when it is gone", async () => {
    await ingestor?.stop();
    ingestor = startIn(network, { rescanEveryBlocks: 2 });
    await node.request("dev_setStorage", [
      {
        SubtensorModule: {
          NetworksAdded: [[[128], true]],
          SubnetMechanism: [[[128], 1]],
          SubnetTAO: [[[128], "5000000000"]],
          SubnetAlphaIn: [[[128], "20000000000"]],
          SubnetAlphaOut: [[[128], "1000000000"]],
          Tempo: [[[128], 100]],
        },
      },
    ]);
    await node.newBlocks(2);
    await caughtUp();
    const added = await published();
    const pools = added.flatMap(({ event }) =>
      event?.$case === "poolSnapshot" && event.value.netuid === 128 ? [event.value] : [],
    );
    expect(pools.length).toBeGreaterThan(0);
    const newest = pools.at(-1)!;
    expect(newest).toEqual({
      ...(await directPools(newest.ref!.blockHash)).find((pool) => pool.netuid === 128),
      ref: newest.ref,
    });
    // 5 TAO against the 20 alpha written, and the alpha this runtime adds to every pool each block since.
    expect(BigInt(newest.alphaInNalpha)).toBeGreaterThanOrEqual(20_000_000_000n);
    expect(newest.priceTao).toBe(runtimePrice(128, 1, 5_000_000_000n, BigInt(newest.alphaInNalpha)));
    expect(
      added.some(
        ({ event }) => event?.$case === "subnetSnapshot" && event.value.netuid === 128 && event.value.tempo === 100,
      ),
    ).toBe(true);

    await node.request("dev_setStorage", [{ SubtensorModule: { NetworksAdded: [[[128], null]] } }]);
    await node.newBlocks(2);
    await caughtUp();
    const after = await published();
    const removals = after.flatMap(({ event }) => (event?.$case === "subnetRemoved" ? [event.value] : []));
    expect(removals.map((removal) => removal.netuid)).toEqual([128]);
    const removedAt = Number(removals[0]!.ref!.blockNumber);
    const poolsAfter = after.flatMap(({ event }) =>
      event?.$case === "poolSnapshot" && event.value.netuid === 128 && Number(event.value.ref!.blockNumber) >= removedAt
        ? [event.value]
        : [],
    );
    expect(poolsAfter).toEqual([]);
  }, 120_000);
});

describe("the native source as its own process", () => {
  it("killed with SIGKILL mid-stream, resumes with nothing lost or repeated", async () => {
    await ingestor?.stop();
    ingestor = undefined;
    const chainsFile = join(dir.path, "chains.json");
    writeFileSync(chainsFile, JSON.stringify({ environment: "test", chains: [], substrate: network }));
    const env = {
      CHAINS_FILE: chainsFile,
      INGEST_SOURCES: "native",
      KAFKA_BROKERS: kafkaServer.brokers.join(","),
      KAFKA_REPLICATION_FACTOR: "1",
      NATIVE_POLL_INTERVAL_MS: "100",
      NATIVE_MAX_BLOCKS_PER_BATCH: "2",
    };
    const alice = keyring().addFromUri("//Alice");
    const recipients = Array.from({ length: 8 }, (_, index) => keyring().addFromUri(`//Kill${index}`).address);
    const transfers = async (from: number, to: number) => {
      for (let index = from; index < to; index++) {
        const nonce = Number((await api.rpc.system.accountNextIndex(alice.address)).toString());
        await api.tx.balances!.transferKeepAlive!(recipients[index]!, 1_000_000_000n + BigInt(index)).signAndSend(
          alice,
          { nonce },
        );
        await node.newBlocks(1);
      }
    };
    let child: ManagedProcess = spawnService("chain-ingestor", env, join(dir.path, "ingestor-1.log"));
    try {
      await transfers(0, 4);
      await waitFor(async () => (await checkpoints()).at(-1)!.blockNumber >= (await headNumber()) - 3n, {
        what: "the process following",
        timeoutMs: 60_000,
        intervalMs: 100,
      });
      child.kill("SIGKILL");
      expect(await child.exited).toBe("SIGKILL");
      await transfers(4, 8);
      child = spawnService("chain-ingestor", env, join(dir.path, "ingestor-2.log"));
      await caughtUp(90_000);
    } finally {
      await child.stop();
    }
    const records = await published();
    const ids = records
      .filter(({ event }) => event?.$case !== "chainEventRemoved")
      .map(({ record }) => record.headers["event-id"]);
    expect(ids.length - new Set(ids).size).toBe(0);
    const received = standing(records).filter(
      (activity) => activity.direction === 1 && recipients.includes(activity.account!.ss58),
    );
    expect(received.map((activity) => activity.account!.ss58).sort()).toEqual([...recipients].sort());
  }, 240_000);
});
