/**
 * Reads at a past block (issue 41 point 6) on real Redis and PostgreSQL: the series are written by
 * the projector's own market and subnets projections (no Kafka), copied into history.series_points
 * as the projector's history writer keeps them, and every `latest` read is asked at a block while
 * Redis still holds it and again once Redis has moved past it: both stores must answer alike.
 */
import { join } from "node:path";
import { AppError } from "@platform/errors";
import type { HistoryDb } from "@platform/history";
import { type HistoryServer, startHistoryServer } from "@platform/history/testing";
import { type BlockSelector, Finality } from "@platform/proto/common/v1/common";
import { HolderCoverage, PoolMechanism } from "@platform/proto/common/v1/network";
import {
  AccountBalance,
  HolderPositions,
  type NetworkChainEvent,
  type NeuronState,
} from "@platform/proto/events/v1/chain_network";
import { holderSetDelta, holderSetDigest, sortHolderPositions } from "@platform/proto/holderSets";
import { TOPICS } from "@platform/proto/topics";
import { accountsKeys, historySeriesKey, ORDINAL_SPAN, subnetsKeys } from "@platform/read-models";
import { createRedis, type Redis } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { marketProjection } from "../../../projector/src/market/projection.js";
import { subnetsProjection } from "../../../projector/src/subnets/projection.js";
import { getBalanceLatest } from "../accounts/balanceLatest.js";
import { getSubnetEmissionsLatest } from "../market/emissions.js";
import { getSubnetPoolsLatest } from "../market/pools.js";
import { getNetworkStatsLatest } from "../market/stats.js";
import { getHoldersTop } from "../subnets/holders.js";
import { getNeuronsLatest } from "../subnets/neurons.js";
import { getSubnetsLatest } from "../subnets/subnetsLatest.js";
import { getValidatorsLatest } from "../subnets/validators.js";
import { seriesAt } from "./seriesAt.js";
import {
  account,
  batchMaker,
  hashOf,
  networkStats,
  networkValues,
  ref,
  silentLog,
  timeOf,
} from "./testSupport/networkRecords.js";

const dir = tempDir("data-query-past-block");
const log = silentLog();
/** Blocks 100..112 are followed; the network's finalized head trails the block read by 4. */
const FIRST = 100;
const HEAD = 112;
const FINALITY_LAG = 4;
const OWNER = `0x${"5a".repeat(32)}`;

let redisServer: RunningRedis;
let redis: Redis;
let historyServer: HistoryServer;
let writer: HistoryDb;
let reader: HistoryDb;

const nextBatch = batchMaker();
async function network(key: string, ...events: NetworkChainEvent[]): Promise<void> {
  const batch = nextBatch(TOPICS.chainNetwork.name, key, networkValues(events));
  await marketProjection({ redis, log }).handleBatch(batch);
  await subnetsProjection({ redis, log }).handleBatch(batch);
}

// Each block moves the pools, emissions and totals; settings, metagraphs and holders change now and then.
const price = (netuid: number, block: number) => `0.${netuid}${String(block).padStart(4, "0")}`;
const pool = (netuid: number, block: number): NetworkChainEvent => ({
  event: {
    $case: "poolSnapshot",
    value: {
      ref: ref(block),
      netuid,
      mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
      taoInRao: String(1_000_000 + block),
      alphaInNalpha: "4000000000000",
      alphaOutNalpha: "1000000000000",
      alphaIssuanceNalpha: "5000000000000",
      priceTao: price(netuid, block),
      movingPriceTao: price(netuid, block),
      volumeTotalRao: String(block * 10),
    },
  },
});
const emission = (netuid: number, block: number): NetworkChainEvent => ({
  event: {
    $case: "emissionSnapshot",
    value: {
      ref: ref(block),
      netuid,
      emissionEnabled: true,
      taoInEmissionRao: String(block * 1_000),
      blockEmissionRao: "1000000000",
      tempo: 360,
    },
  },
});
const subnet = (netuid: number, block: number, name: string): NetworkChainEvent => ({
  event: {
    $case: "subnetSnapshot",
    value: {
      ref: ref(block),
      netuid,
      name,
      registeredAtBlock: String(block),
      mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
      tempo: 360,
      uidCount: 2,
      emissionEnabled: true,
      yuma3Enabled: false,
      registration: {
        allowed: true,
        powAllowed: false,
        burnRao: String(block),
        minBurnRao: "1",
        maxBurnRao: "9",
        difficulty: "1",
      },
    },
  },
});
const neuron = (uid: number, alpha: string): NeuronState => ({
  uid,
  hotkey: account(String(uid)),
  coldkey: account(String(uid + 5)),
  validatorPermit: true,
  active: true,
  alphaStakeNalpha: alpha,
  dividends: "0.1",
  vtrust: "0.9",
  incentive: "0",
  consensus: "0",
  emissionNalpha: "5",
  lastUpdateBlock: "90",
});
const metagraph = (netuid: number, block: number): NetworkChainEvent => ({
  event: {
    $case: "validatorSetSnapshot",
    value: { ref: ref(block), netuid, neurons: [neuron(0, String(block * 7)), neuron(1, String(block * 3))] },
  },
});
/** Neuron 0's root stake moved alone (ValidatorRootStakes, published without the metagraph). */
const rootMove = (netuid: number, block: number): NetworkChainEvent => ({
  event: {
    $case: "validatorRootStakes",
    value: {
      ref: ref(block),
      netuid,
      stakes: [{ uid: 0, hotkey: account("0").publicKey, rootStakeRao: String(block) }],
    },
  },
});
const holders = (netuid: number, block: number): NetworkChainEvent => ({
  event: {
    $case: "holderPositions",
    value: {
      ref: ref(block),
      netuid,
      coverage: HolderCoverage.HOLDER_COVERAGE_COMPLETE,
      chunkIndex: 0,
      chunkCount: 1,
      positions: [
        { coldkey: account("1"), hotkey: account("a"), alphaNalpha: String(block) },
        { coldkey: account("2"), hotkey: account("a"), alphaNalpha: String(2 * block) },
        { coldkey: account("3"), hotkey: account("b"), alphaNalpha: "150" },
      ],
    },
  },
});
const stats = (block: number) => networkStats(block, FINALITY_LAG, { totalIssuanceRao: String(10_000_000 + block) });

/** Subnet 1 stands from the first block, subnet 2 is registered at block 106. */
async function followBlock(block: number): Promise<void> {
  for (const netuid of block >= 106 ? [1, 2] : [1]) {
    const events = [pool(netuid, block), emission(netuid, block)];
    if (block === FIRST || block === 106 || block === 108) events.push(subnet(netuid, block, `sn${netuid}@${block}`));
    if (block % 5 === 0 || block === 106) events.push(metagraph(netuid, block), holders(netuid, block));
    if (netuid === 1 && (block === 101 || block === 104)) events.push(rootMove(netuid, block));
    await network(`netuid:${netuid}`, ...events);
  }
  await network("network", stats(block));
}

/** The account's balance points (Redis and the history database, as the accounts projection writes them). */
async function balancePoint(block: number, freeRao: string, stakeNalpha: string): Promise<void> {
  const balance: AccountBalance = {
    freeRao,
    reservedRao: "0",
    frozenRao: "0",
    positions: [{ netuid: 1, hotkey: account("a"), stakeNalpha }],
    rewards: [],
  };
  const encoded = Buffer.from(AccountBalance.encode(balance).finish()).toString("base64");
  const score = Math.floor(timeOf(block) / 1_000);
  const member = `${String(block).padStart(12, "0")}|${hashOf(block)}|${timeOf(block)}|${encoded}`;
  await redis.zadd(accountsKeys.points(OWNER), String(score), member);
  await writer`insert into history.account_points values (${OWNER}, ${block}, ${score}, ${member})`;
}

/**
 * Every point of every series into history.series_points, keyed by its Redis points key, as the
 * projector writes them: the subnets' pools and emissions only under the market's keys
 * (read-models historySeries.ts). Answers the keys of every series Redis holds.
 */
async function copySeriesToHistory(): Promise<string[]> {
  const keys = (await redis.keys("rm:{data}:*:points")).filter((key) => !key.includes(":accounts:"));
  for (const key of keys.filter((series) => historySeriesKey(series) === series)) {
    const points = await redis.zrange(key, "0", "-1");
    const rows = points.map((text) => {
      const point = JSON.parse(text) as { o: number; b: number };
      return [key, String(point.b), String(point.o), text];
    });
    await writer.unsafe(
      "insert into history.series_points select * from unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[])",
      [0, 1, 2, 3].map((column) => rows.map((row) => row[column])) as never,
    );
  }
  return keys;
}

beforeAll(async () => {
  redisServer = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: redisServer.url, connectionName: "data-query-test", commandTimeoutMs: 10_000 });
  await waitFor(async () => redis.status === "ready", { what: "redis connection" });
  historyServer = await startHistoryServer();
  writer = historyServer.connect("projector");
  reader = historyServer.connect("data_query");
  await writer`select history.ensure_block_partitions('series_points', 0, 400000)`;
  await writer`select history.ensure_block_partitions('account_points', 0, 400000)`;
  for (let block = FIRST; block <= HEAD; block++) await followBlock(block);
  await redis.hset(accountsKeys.head, {
    chainId: "945",
    blockNumber: String(HEAD),
    blockHash: hashOf(HEAD),
    timestamp: new Date(timeOf(HEAD)).toISOString(),
  });
  await balancePoint(101, "500", "1000");
  await balancePoint(109, "700", "2000");
}, 120_000);

afterAll(async () => {
  redis?.disconnect();
  await redisServer?.stop();
  await historyServer?.stop();
  dir.remove();
}, 30_000);

const at = (wanted: number | "finalized"): BlockSelector =>
  wanted === "finalized"
    ? { block: { $case: "finalized", value: true } }
    : { block: { $case: "number", value: String(wanted) } };

/** Every latest read at one block, through one set of stores. */
async function everyRead(wanted: number | "finalized", history: HistoryDb | undefined) {
  const selector = at(wanted);
  return {
    stats: await getNetworkStatsLatest(redis, { at: selector }, history),
    pools: await getSubnetPoolsLatest(
      redis,
      { netuids: [], includeRoot: false, sort: 0, order: 0, at: selector },
      history,
    ),
    emissions: await getSubnetEmissionsLatest(redis, { netuids: [], sort: 0, order: 0, at: selector }, history),
    subnets: await getSubnetsLatest(redis, { netuids: [], sort: 0, order: 0, at: selector }, history),
    validators: await getValidatorsLatest(
      redis,
      { netuid: 1, includeWithoutPermit: false, sort: 0, order: 0, at: selector },
      history,
    ),
    holders: await getHoldersTop(redis, { netuid: 1, groupBy: 0, at: selector }, history),
    neurons: await getNeuronsLatest(redis, { netuid: 1, sort: 0, order: 0, at: selector }, history),
    nominators: await getHoldersTop(
      redis,
      { netuid: 1, groupBy: 0, hotkey: account("a").publicKey, at: selector },
      history,
    ),
    balance: await getBalanceLatest(redis, { address: OWNER, valuation: 0, netuids: [], at: selector }, history),
  };
}

const codeOf = async (pending: Promise<unknown>): Promise<string> => {
  try {
    await pending;
    return "OK";
  } catch (error) {
    return error instanceof AppError ? error.code : String(error);
  }
};

describe("latest reads at a past block", () => {
  it("answer the state at the block, with as_of naming it and its finality", async () => {
    const answers = await everyRead(103, reader);
    for (const answer of Object.values(answers)) {
      expect(answer.asOf).toMatchObject({ blockNumber: "103", blockHash: hashOf(103) });
      // The newest snapshot says every block up to 108 is final.
      expect(answer.asOf?.finality).toBe(Finality.FINALITY_FINALIZED);
    }
    expect(answers.stats.totalIssuanceRao).toBe("10000103");
    // Subnet 2 came at block 106: not there at 103.
    expect(answers.pools.pools.map((item) => [item.netuid, item.priceTao, item.taoInRao])).toEqual([
      [1, price(1, 103), "1000103"],
    ]);
    expect(answers.emissions.emissions.map((item) => [item.netuid, item.taoInEmissionRao])).toEqual([[1, "103000"]]);
    expect(answers.subnets.subnets.map((item) => [item.netuid, item.name])).toEqual([[1, "sn1@100"]]);
    // The metagraph and holder set standing at 103 are those of block 100, with the root stake moved at 101 (not 104's).
    expect(answers.validators.validators.map((item) => [item.alphaStakeNalpha, item.rootStakeRao])).toEqual([
      ["700", "101"],
      ["300", undefined],
    ]);
    expect(answers.holders.holders.map((item) => item.alphaNalpha)).toEqual(["200", "150", "100"]);
    // Every UID of that metagraph, and the nominators of hotkey a in that holder set.
    expect(answers.neurons.neurons.map((item) => [item.uid, item.alphaStakeNalpha, item.rootStakeRao])).toEqual([
      [0, "700", "101"],
      [1, "300", undefined],
    ]);
    expect(answers.nominators.holders.map((item) => [item.coldkey?.ss58, item.hotkey?.ss58, item.alphaNalpha])).toEqual(
      [
        ["ss58-2", "ss58-a", "200"],
        ["ss58-1", "ss58-a", "100"],
      ],
    );
    expect(answers.balance).toMatchObject({
      balanceFreeRao: "500",
      positions: [{ stakeNalpha: "1000", priceTao: price(1, 103) }],
    });
    await expect(
      getValidatorsLatest(redis, { netuid: 2, includeWithoutPermit: false, sort: 0, order: 0, at: at(103) }, reader),
    ).rejects.toMatchObject({ code: "NETUID_NOT_FOUND" });
  });

  it("answer `finalized` at the newest finalized block, and the head's blocks as latest", async () => {
    const finalized = await everyRead("finalized", reader);
    for (const answer of Object.values(finalized))
      expect(answer.asOf).toMatchObject({
        blockNumber: String(HEAD - FINALITY_LAG),
        finality: Finality.FINALITY_FINALIZED,
      });
    expect(finalized.pools.pools.map((item) => item.netuid).sort()).toEqual([1, 2]);
    expect(finalized.balance).toMatchObject({ balanceFreeRao: "500" });
    const head = await everyRead(HEAD, reader);
    for (const answer of Object.values(head))
      expect(answer.asOf).toMatchObject({ blockNumber: String(HEAD), finality: Finality.FINALITY_LATEST });
    expect(head.balance).toMatchObject({ balanceFreeRao: "700", positions: [{ stakeNalpha: "2000" }] });
  });

  it("refuse a block beyond the head or before the first block followed, with stable codes", async () => {
    expect(await codeOf(everyRead(HEAD + 1, reader))).toBe("BLOCK_NOT_YET_INDEXED");
    expect(await codeOf(getNetworkStatsLatest(redis, { at: at(HEAD + 1) }, reader))).toBe("BLOCK_NOT_YET_INDEXED");
    expect(await codeOf(getHoldersTop(redis, { netuid: 1, groupBy: 0, at: at(HEAD + 1) }, reader))).toBe(
      "BLOCK_NOT_YET_INDEXED",
    );
    expect(await codeOf(getNetworkStatsLatest(redis, { at: at(FIRST - 1) }, reader))).toBe("BLOCK_BEFORE_HISTORY");
    expect(
      await codeOf(
        getSubnetPoolsLatest(redis, { netuids: [], includeRoot: false, sort: 0, order: 0, at: at(3) }, reader),
      ),
    ).toBe("BLOCK_BEFORE_HISTORY");
    expect(
      await codeOf(getBalanceLatest(redis, { address: OWNER, valuation: 0, netuids: [], at: at(3) }, reader)),
    ).toBe("BLOCK_BEFORE_HISTORY");
  });

  it("answer alike from PostgreSQL once Redis has moved past the block, and refuse it without PostgreSQL", async () => {
    const keys = await copySeriesToHistory();
    const fromRedis = await everyRead(103, reader);
    // Redis' windows move on: every series (and the account) keeps only its points from block 106 on.
    for (const key of [...keys, accountsKeys.points(OWNER)])
      await redis.zremrangebyscore(
        key,
        "-inf",
        key.includes(":accounts:") ? String(Math.floor(timeOf(106) / 1_000) - 1) : String(106 * ORDINAL_SPAN - 1),
      );
    expect((await redis.zrange(keys.find((key) => key.endsWith("stats:points"))!, "0", "0"))[0]).toContain('"b":106');
    const fromHistory = await everyRead(103, reader);
    expect(fromHistory).toEqual(fromRedis);
    expect(await codeOf(getNetworkStatsLatest(redis, { at: at(103) }))).toBe("BLOCK_BEFORE_HISTORY");
    expect(
      await codeOf(getSubnetPoolsLatest(redis, { netuids: [1], includeRoot: false, sort: 0, order: 0, at: at(103) })),
    ).toBe("BLOCK_BEFORE_HISTORY");
    // Blocks Redis still holds need no history database.
    expect((await getNetworkStatsLatest(redis, { at: at(107) })).totalIssuanceRao).toBe("10000107");
  });
});

describe("holder sets kept in PostgreSQL as keyframes and deltas", () => {
  it("answer the whole set they make at the block, skipping a delta whose base is not the set before it", async () => {
    const key = subnetsKeys.holderPoints(9);
    const setAt = (block: number, alphas: string[]): HolderPositions => {
      const positions = sortHolderPositions(
        alphas.map((alpha, index) => ({ coldkey: account(String(index)), hotkey: account("a"), alphaNalpha: alpha })),
      );
      return HolderPositions.fromPartial({
        ref: ref(block),
        netuid: 9,
        coverage: HolderCoverage.HOLDER_COVERAGE_COMPLETE,
        chunkCount: 1,
        positions,
        digest: holderSetDigest(positions),
      });
    };
    const row = (value: HolderPositions, base?: HolderPositions) => {
      const block = Number(value.ref!.blockNumber);
      const bytes = HolderPositions.encode(
        base === undefined
          ? value
          : { ...value, positions: holderSetDelta(base.positions, value.positions), baseDigest: base.digest! },
      ).finish();
      const point = {
        o: block * ORDINAL_SPAN,
        b: block,
        h: hashOf(block),
        t: timeOf(block),
        p: Buffer.from(bytes).toString("base64"),
        ...(base === undefined ? {} : { d: 1 }),
      };
      return [key, String(block), String(point.o), JSON.stringify(point)];
    };
    const [s100, s102, s104, s107] = [
      setAt(100, ["10", "20"]),
      setAt(102, ["10", "25", "5"]),
      setAt(104, ["25"]),
      setAt(107, ["7"]),
    ];
    const rows = [row(s100), row(s102, s100), row(s104, s102), row(setAt(105, ["1"]), s100), row(s107)];
    await writer.unsafe(
      "insert into history.series_points (series, block, ordinal, point) select * from unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[])",
      [0, 1, 2, 3].map((column) => rows.map((entry) => entry[column])) as never,
    );
    const alphasAt = async (block: number) => {
      const [point] = await seriesAt({ redis, history: reader }, [key], block);
      return point === undefined
        ? undefined
        : [point.b, HolderPositions.decode(Buffer.from(point.p, "base64")).positions.map((item) => item.alphaNalpha)];
    };
    expect(await alphasAt(99)).toBeUndefined();
    expect(await alphasAt(101)).toEqual([100, ["20", "10"]]);
    expect(await alphasAt(103)).toEqual([102, ["25", "10", "5"]]);
    // 105's delta names block 100's set as its base: skipped, 104's set stands until the keyframe at 107.
    expect(await alphasAt(106)).toEqual([104, ["25"]]);
    expect(await alphasAt(107)).toEqual([107, ["7"]]);
  });
});
