import { join } from "node:path";
import { HolderCoverage, PoolMechanism } from "@platform/proto/common/v1/network";
import { HolderGrouping, NeuronSort } from "@platform/proto/data/v1/subnets";
import type { NetworkChainEvent, NeuronState } from "@platform/proto/events/v1/chain_network";
import { TOPICS } from "@platform/proto/topics";
import { createRedis, type Redis } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// Written by the projector's own projection, as in production (the keys are its contract).
import { subnetsProjection } from "../../../projector/src/subnets/projection.js";
import { account, batchMaker, networkValues, ref, silentLog } from "../shared/testSupport/networkRecords.js";
import { getHoldersTop } from "./holders.js";
import { getNeuronsLatest } from "./neurons.js";

const dir = tempDir("data-query-neurons-reads");
const log = silentLog();

let redisServer: RunningRedis;
let redis: Redis;

const nextBatch = batchMaker();
async function publish(events: NetworkChainEvent[]): Promise<void> {
  await subnetsProjection({ redis, log }).handleBatch(
    nextBatch(TOPICS.chainNetwork.name, "netuid:1", networkValues(events)),
  );
}

const pool = (number: number): NetworkChainEvent => ({
  event: {
    $case: "poolSnapshot",
    value: {
      ref: ref(number),
      netuid: 1,
      mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
      taoInRao: "1000",
      alphaInNalpha: "4000",
      alphaOutNalpha: "100000",
      alphaIssuanceNalpha: "5000",
      priceTao: "0.5",
    },
  },
});

const subnet = (number: number, immunityPeriod: number): NetworkChainEvent => ({
  event: {
    $case: "subnetSnapshot",
    value: {
      ref: ref(number),
      netuid: 1,
      registeredAtBlock: "1",
      mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
      tempo: 360,
      uidCount: 4,
      emissionEnabled: true,
      yuma3Enabled: false,
      hyperparameters: {
        rho: 10,
        kappa: 32767,
        immunityPeriod,
        minAllowedWeights: 1,
        maxWeightLimit: 65535,
        weightsVersion: "0",
        weightsRateLimit: "100",
        activityCutoff: 5000,
        adjustmentAlpha: "0",
        bondsMovingAverage: "900000",
        servingRateLimit: "50",
        alphaSigmoidSteepness: 1000,
      },
    },
  },
});

/** uid 0 a validator (coldkey 1), uids 1-3 miners without stake (uid 3 inactive, uid 2 coldkey 1 too, registered at 95). */
const neurons: NeuronState[] = [
  {
    uid: 0,
    hotkey: account("a"),
    coldkey: account("1"),
    validatorPermit: true,
    active: true,
    registeredAtBlock: "2",
    alphaStakeNalpha: "4000",
    rootStakeRao: "100",
    dividends: "1",
    vtrust: "0.9",
    incentive: "0",
    consensus: "0.1",
    emissionNalpha: "50",
    lastUpdateBlock: "99",
    rank: "0",
    trust: "0",
    pruningScore: "0.3",
  },
  ...[
    ["b", "2", "0.5", "30", "1"],
    ["c", "1", "0.2", "20", "95"],
    ["d", "3", "0.3", "10", "3"],
  ].map(
    ([hotkey, coldkey, incentive, emission, registered], index): NeuronState => ({
      uid: index + 1,
      hotkey: account(hotkey!),
      coldkey: account(coldkey!),
      validatorPermit: false,
      active: index !== 2,
      registeredAtBlock: registered!,
      alphaStakeNalpha: "0",
      dividends: "0",
      vtrust: "0",
      incentive: incentive!,
      consensus: incentive!,
      emissionNalpha: emission!,
      lastUpdateBlock: "90",
      rank: incentive!,
      trust: "1",
      pruningScore: incentive!,
      ...(index === 0 ? { axon: { ip: "10.0.0.1", port: 8091, ipType: 4, protocol: 4, version: 1, block: "80" } } : {}),
    }),
  ),
];

beforeAll(async () => {
  redisServer = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: redisServer.url, connectionName: "neurons-test", commandTimeoutMs: 10_000 });
  await waitFor(async () => redis.status === "ready", { what: "redis connection" });
  await redis.sadd("rm:{data}:subnets:netuids", "1");
  await publish([
    subnet(100, 10),
    pool(100),
    { event: { $case: "validatorSetSnapshot", value: { ref: ref(100), netuid: 1, neurons } } },
    {
      event: {
        $case: "holderPositions",
        value: {
          ref: ref(100),
          netuid: 1,
          coverage: HolderCoverage.HOLDER_COVERAGE_COMPLETE,
          chunkIndex: 0,
          chunkCount: 1,
          positions: [
            { coldkey: account("1"), hotkey: account("a"), alphaNalpha: "3000" },
            { coldkey: account("2"), hotkey: account("a"), alphaNalpha: "700" },
            { coldkey: account("3"), hotkey: account("a"), alphaNalpha: "300" },
            { coldkey: account("2"), hotkey: account("b"), alphaNalpha: "5000" },
          ],
        },
      },
    },
  ]);
  // A later block moves only the pool: the metagraph stands, as of the newest block.
  await publish([pool(101)]);
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await redisServer?.stop();
  dir.remove();
});

const base = { netuid: 1, sort: NeuronSort.NEURON_SORT_UNSPECIFIED, order: 0 };

describe("neurons/latest", () => {
  it("lists every UID, miners without stake included, by incentive (the default), with the metagraph's values", async () => {
    const answer = await getNeuronsLatest(redis, { ...base, page: { limit: 10, cursor: "" } });
    expect(answer.asOf?.blockNumber).toBe("101");
    expect(answer.neurons.map((neuron) => neuron.uid)).toEqual([1, 3, 2, 0]);
    expect(answer.neurons[0]).toMatchObject({
      uid: 1,
      hotkey: account("b"),
      coldkey: account("2"),
      alphaStakeNalpha: "0",
      totalStakeValueRao: "0",
      rank: "0.5",
      trust: "1",
      pruningScore: "0.5",
      validatorTrust: "0",
      axon: { ip: "10.0.0.1", port: 8091, ipType: 4, protocol: 4, version: 1, block: "80" },
      registeredAtBlock: "1",
      immunity: { inPeriod: false, blocksLeft: "0", immunityPeriod: 10 },
    });
    expect(answer.neurons[0]).not.toHaveProperty("rootStakeRao");
    // Registered at 95, period 10: immune at 101 for 4 more blocks (the runtime's 101 - 95 < 10).
    expect(answer.neurons.find((neuron) => neuron.uid === 2)?.immunity).toEqual({
      inPeriod: true,
      blocksLeft: "4",
      immunityPeriod: 10,
    });
    // The validator's stake valued at the pool's price (0.5) plus its root stake.
    expect(answer.neurons.find((neuron) => neuron.uid === 0)?.totalStakeValueRao).toBe("2100");
  });

  it("filters by hotkey, coldkey, permit and activity", async () => {
    const uids = async (filter: Record<string, unknown>) =>
      (await getNeuronsLatest(redis, { ...base, ...filter })).neurons.map((neuron) => neuron.uid);
    expect(await uids({ hotkey: account("c").publicKey })).toEqual([2]);
    expect(await uids({ coldkey: account("1").publicKey })).toEqual([2, 0]);
    expect(await uids({ validatorPermit: true })).toEqual([0]);
    expect(await uids({ validatorPermit: false, active: true })).toEqual([1, 2]);
    expect(await uids({ active: false })).toEqual([3]);
    expect(await uids({ hotkey: account("e").publicKey })).toEqual([]);
    await expect(getNeuronsLatest(redis, { ...base, coldkey: "not-an-address" })).rejects.toMatchObject({
      code: "INVALID_ADDRESS",
      extras: { parameter: "coldkey" },
    });
  });

  it("sorts by emission, stake, dividends and uid in either order", async () => {
    const uids = async (sort: NeuronSort, order = 0) =>
      (await getNeuronsLatest(redis, { ...base, sort, order })).neurons.map((neuron) => neuron.uid);
    expect(await uids(NeuronSort.NEURON_SORT_EMISSION)).toEqual([0, 1, 2, 3]);
    expect(await uids(NeuronSort.NEURON_SORT_STAKE)).toEqual([0, 1, 2, 3]);
    expect(await uids(NeuronSort.NEURON_SORT_DIVIDENDS)).toEqual([0, 1, 2, 3]);
    // SortOrder 1 = ASC.
    expect(await uids(NeuronSort.NEURON_SORT_UID, 1)).toEqual([0, 1, 2, 3]);
    expect(await uids(NeuronSort.NEURON_SORT_INCENTIVE, 1)).toEqual([0, 2, 3, 1]);
  });

  it("walks pages with a cursor, once each UID, and refuses another query's cursor", async () => {
    const first = await getNeuronsLatest(redis, { ...base, page: { limit: 3, cursor: "" } });
    expect(first.page?.hasMore).toBe(true);
    const second = await getNeuronsLatest(redis, { ...base, page: { limit: 3, cursor: first.page!.nextCursor! } });
    expect([...first.neurons, ...second.neurons].map((neuron) => neuron.uid)).toEqual([1, 3, 2, 0]);
    expect(second.page?.hasMore).toBe(false);
    await expect(
      getNeuronsLatest(redis, { ...base, active: true, page: { limit: 3, cursor: first.page!.nextCursor! } }),
    ).rejects.toMatchObject({ code: "INVALID_CURSOR" });
  });
});

describe("holders/top filters", () => {
  const request = { netuid: 1, groupBy: HolderGrouping.HOLDER_GROUPING_UNSPECIFIED };

  it("hotkey: the hotkey's nominators, one position each, naming the hotkey, ranked by alpha", async () => {
    const answer = await getHoldersTop(redis, { ...request, hotkey: account("a").publicKey });
    expect(
      answer.holders.map((holder) => [holder.rank, holder.coldkey?.ss58, holder.hotkey?.ss58, holder.alphaNalpha]),
    ).toEqual([
      [1, "ss58-1", "ss58-a", "3000"],
      [2, "ss58-2", "ss58-a", "700"],
      [3, "ss58-3", "ss58-a", "300"],
    ]);
    expect(answer.asOf?.blockNumber).toBe("101");
  });

  it("coldkey: the coldkey's holding (or its positions), naming the coldkey", async () => {
    const summed = await getHoldersTop(redis, { ...request, coldkey: account("2").publicKey });
    expect(summed.holders.map((holder) => [holder.coldkey?.ss58, holder.alphaNalpha, holder.positionsCount])).toEqual([
      ["ss58-2", "5700", 2],
    ]);
    const positions = await getHoldersTop(redis, {
      ...request,
      groupBy: HolderGrouping.HOLDER_GROUPING_POSITION,
      coldkey: account("2").publicKey,
    });
    expect(positions.holders.map((holder) => [holder.coldkey?.ss58, holder.hotkey?.ss58, holder.alphaNalpha])).toEqual([
      ["ss58-2", "ss58-b", "5000"],
      ["ss58-2", "ss58-a", "700"],
    ]);
    const both = await getHoldersTop(redis, {
      ...request,
      hotkey: account("a").publicKey,
      coldkey: account("2").publicKey,
    });
    expect(both.holders.map((holder) => holder.alphaNalpha)).toEqual(["700"]);
  });

  it("walks a filtered list with cursors, and refuses a malformed key", async () => {
    const first = await getHoldersTop(redis, {
      ...request,
      hotkey: account("a").publicKey,
      page: { limit: 2, cursor: "" },
    });
    const second = await getHoldersTop(redis, {
      ...request,
      hotkey: account("a").publicKey,
      page: { limit: 2, cursor: first.page!.nextCursor! },
    });
    expect([...first.holders, ...second.holders].map((holder) => [holder.rank, holder.alphaNalpha])).toEqual([
      [1, "3000"],
      [2, "700"],
      [3, "300"],
    ]);
    expect(second.page?.hasMore).toBe(false);
    await expect(getHoldersTop(redis, { ...request, hotkey: "5Garbage" })).rejects.toMatchObject({
      code: "INVALID_ADDRESS",
      extras: { parameter: "hotkey" },
    });
  });
});
