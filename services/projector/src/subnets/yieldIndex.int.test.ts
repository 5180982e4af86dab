/*
 * The subnets projection's yield index (libs/read-models yieldIndex.ts) against a real Redis and a
 * real PostgreSQL (the history store): metagraphs published as the network ingestor publishes them
 * (key netuid:<n>, the epoch block and TaoWeight on each), folded by the projection itself. An
 * epoch's metagraph adds one index point; a metagraph between epochs adds none; a removed epoch's
 * point goes, with it its increment, alike in both stores.
 */
import { join } from "node:path";
import { Writable } from "node:stream";
import type { ConsumedRecord, ProjectionBatch } from "@platform/bus";
import { type HistoryDb, historyTables } from "@platform/history";
import { type HistoryServer, startHistoryServer } from "@platform/history/testing";
import { createLogger } from "@platform/log";
import { type ChainRef, Finality } from "@platform/proto/common/v1/common";
import type { NetworkChainEvent, NeuronState } from "@platform/proto/events/v1/chain_network";
import { encodePayload, TOPICS } from "@platform/proto/topics";
import { decodeYieldIndex, INDEX_SCALE, type SeriesPoint, subnetsKeys } from "@platform/read-models";
import { createRedis, type Redis } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subnetsProjection } from "./projection.js";

const dir = tempDir("projector-yield-index");
const log = createLogger({
  service: "projector-test",
  level: "warn",
  destination: new Writable({ write: (_chunk, _encoding, callback) => callback() }),
});
const T0 = Date.UTC(2026, 0, 1);
const ONE = 10n ** BigInt(INDEX_SCALE);
const KEY = subnetsKeys.yieldIndexPoints(3);

let redisServer: RunningRedis;
let historyServer: HistoryServer;
let redis: Redis;
let history: HistoryDb;

const hashOf = (block: number, fork: string) => `0x${fork.repeat(8)}${block.toString(16).padStart(56, "0")}`;
const ref = (block: number, fork = "a"): ChainRef => ({
  chainId: "945",
  blockNumber: String(block),
  blockHash: hashOf(block, fork),
  parentHash: hashOf(block - 1, fork),
  blockTimestamp: new Date(T0 + block * 12_000).toISOString(),
  finality: Finality.FINALITY_LATEST,
});
const hotkey = (byte: string) => ({ ss58: `ss58-${byte}`, publicKey: `0x${byte.repeat(64)}` });

/** A validator of subnet 3: `dividends` at the last epoch, 1,000 alpha and 2,000 TAO staked, take 0.2. */
const neuron = (uid: number, byte: string, dividends: string): NeuronState => ({
  uid,
  hotkey: hotkey(byte),
  validatorPermit: true,
  active: true,
  take: "0.2",
  alphaStakeNalpha: "1000000000000",
  rootStakeRao: "2000000000000",
  dividends: "0.5",
  vtrust: "0",
  incentive: "0",
  consensus: "0",
  emissionNalpha: "0",
  lastUpdateBlock: "0",
  hotkeyDividendsNalpha: dividends,
});

/** Subnet 3's metagraph at a block whose subnet's last epoch was `epoch` (TaoWeight 0.5: stake weight 2,000 alpha). */
const metagraph = (block: number, epoch: number, neurons: NeuronState[], fork = "a"): NetworkChainEvent => ({
  event: {
    $case: "validatorSetSnapshot",
    value: { ref: ref(block, fork), netuid: 3, neurons, lastEpochBlock: String(epoch), taoWeight: "0.5" },
  },
});
const removed = (block: number, fork = "a"): NetworkChainEvent => ({
  event: {
    $case: "chainEventRemoved",
    value: {
      removed: ref(block, fork),
      removedEventId: "x",
      removedEventType: "ValidatorSetSnapshot",
      key: "netuid:3",
      commonAncestorBlockNumber: String(block - 1),
      commonAncestorBlockHash: hashOf(block - 1, fork),
      detectedAt: new Date().toISOString(),
    },
  },
});

let offset = -1;
/** One batch of partition 0 of chain.network.v1, after the previous one. */
async function publish(...events: NetworkChainEvent[]): Promise<void> {
  const previous = offset;
  const messages: ConsumedRecord[] = events.map((event) => ({
    topic: TOPICS.chainNetwork.name,
    partition: 0,
    offset: String(++offset),
    timestamp: "0",
    key: "netuid:3",
    value: Buffer.from(encodePayload(TOPICS.chainNetwork, event)),
    eventId: undefined,
    eventType: undefined,
    schema: undefined,
    traceparent: undefined,
    tracestate: undefined,
    headers: {},
  }));
  const batch: ProjectionBatch = {
    topic: TOPICS.chainNetwork.name,
    partition: 0,
    messages,
    lastOffset: String(offset),
    previousOffset: previous < 0 ? undefined : String(previous),
    heartbeat: async () => undefined,
  };
  await subnetsProjection({ redis, history, log }).handleBatch(batch);
}

const redisPoints = async (): Promise<SeriesPoint[]> =>
  (await redis.zrange(KEY, "0", "-1")).map((text) => JSON.parse(text) as SeriesPoint);
const historyPoints = async (): Promise<SeriesPoint[]> =>
  (
    await history.unsafe(`select point from ${historyTables.seriesPoints} where series = $1 order by block, ordinal`, [
      KEY,
    ])
  ).map((row) => JSON.parse(row.point as string) as SeriesPoint);
/** Each point's block and index of hotkeys aa and bb, in units of 10^-INDEX_SCALE. */
const indexes = (points: SeriesPoint[]) =>
  points.map((point) => {
    const { epoch, index } = decodeYieldIndex(point);
    return [point.b, epoch, index.get(hotkey("a").publicKey), index.get(hotkey("b").publicKey)];
  });

beforeAll(async () => {
  [redisServer, historyServer] = await Promise.all([
    startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") }),
    startHistoryServer({ dataDir: join(dir.path, "postgres") }),
  ]);
  redis = createRedis({ url: redisServer.url, connectionName: "yield-index-test", commandTimeoutMs: 10_000 });
  history = historyServer.connect("projector");
  await waitFor(async () => redis.status === "ready", { what: "redis connection" });
}, 120_000);

afterAll(async () => {
  redis?.disconnect();
  await Promise.all([redisServer?.stop(), historyServer?.stop()]);
  dir.remove();
});

describe("subnets projection: the yield index", () => {
  // Per epoch: 1 alpha of dividends, 20 % take, 1,000 alpha + 0.5 × 2,000 TAO of stake weight: 0.0004.
  const perEpoch = (ONE * 8n) / 20_000n;

  it("adds a point at each epoch's metagraph, none between epochs, in Redis and PostgreSQL alike", async () => {
    await publish(metagraph(30, 30, [neuron(0, "a", "1000000000"), neuron(1, "b", "0")]));
    // Stake moved at 40: the dividends shown are epoch 30's again, already counted.
    await publish(metagraph(40, 30, [neuron(0, "a", "1000000000"), neuron(1, "b", "0")]));
    await publish(metagraph(60, 60, [neuron(0, "a", "1000000000"), neuron(1, "b", "2000000000")]));
    const expected = [
      [30, 30, perEpoch, undefined],
      [60, 60, 2n * perEpoch, 2n * perEpoch],
    ];
    expect(indexes(await redisPoints())).toEqual(expected);
    expect(indexes(await historyPoints())).toEqual(expected);
    expect((await redisPoints()).map((point) => point.t)).toEqual([T0 + 360_000, T0 + 720_000]);
  });

  it("takes a removed epoch's increment away, and counts the other fork's epoch at that height on the index before it", async () => {
    await publish(removed(60));
    expect(indexes(await redisPoints())).toEqual([[30, 30, perEpoch, undefined]]);
    // The new fork's epoch 60 pays hotkey b only; epoch 90 on it builds on that.
    await publish(
      metagraph(60, 60, [neuron(0, "a", "0"), neuron(1, "b", "1000000000")], "c"),
      metagraph(90, 90, [neuron(0, "a", "1000000000"), neuron(1, "b", "0")], "c"),
    );
    const expected = [
      [30, 30, perEpoch, undefined],
      [60, 60, perEpoch, perEpoch],
      [90, 90, 2n * perEpoch, perEpoch],
    ];
    expect(indexes(await redisPoints())).toEqual(expected);
    expect(indexes(await historyPoints())).toEqual(expected);
  });
});
