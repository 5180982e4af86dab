import { join } from "node:path";
import { PoolMechanism } from "@platform/proto/common/v1/network";
import { SwapDirection } from "@platform/proto/data/v1/market";
import type { NetworkChainEvent, PoolSnapshot } from "@platform/proto/events/v1/chain_network";
import { TOPICS } from "@platform/proto/topics";
import { createRedis, type Redis } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// Written by the projector's own market projection (no Kafka), as data-query reads it.
import { marketProjection } from "../../../projector/src/market/projection.js";
import { batchMaker, networkStats, networkValues, ref, silentLog } from "../shared/testSupport/networkRecords.js";
import { getSwapEstimate } from "./swapEstimate.js";

const dir = tempDir("data-query-swap-estimate");
const log = silentLog();
let redisServer: RunningRedis;
let redis: Redis;

const nextBatch = batchMaker();
const network = (key: string, ...events: NetworkChainEvent[]) =>
  marketProjection({ redis, log }).handleBatch(nextBatch(TOPICS.chainNetwork.name, key, networkValues(events)));

const pool = (netuid: number, block: number, fields: Partial<PoolSnapshot>): NetworkChainEvent => ({
  event: {
    $case: "poolSnapshot",
    value: {
      ref: ref(block),
      netuid,
      mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
      taoInRao: "100000000000",
      alphaInNalpha: "1000000000000",
      alphaOutNalpha: "1000000000000",
      alphaIssuanceNalpha: "2000000000000",
      priceTao: "0.1",
      ...fields,
    },
  },
});

const estimate = (netuid: number, direction: SwapDirection, amount: string, block?: number) =>
  getSwapEstimate(redis, {
    netuid,
    direction,
    amount,
    ...(block === undefined ? {} : { at: { block: { $case: "number", value: String(block) } } }),
  });

beforeAll(async () => {
  redisServer = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: redisServer.url, connectionName: "data-query-test", commandTimeoutMs: 10_000 });
  await waitFor(async () => redis.status === "ready", { what: "redis connection" });
  await network("network", networkStats(200, 2), networkStats(201, 2));
  await network(
    "netuid:7",
    pool(7, 200, {}),
    pool(7, 201, { taoInRao: "110000000000", alphaInNalpha: "909090909091" }),
  );
  await network(
    "netuid:0",
    pool(0, 201, { mechanism: PoolMechanism.POOL_MECHANISM_STABLE, taoInRao: "5", alphaInNalpha: "0" }),
  );
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await redisServer?.stop();
  dir.remove();
});

describe("the swap estimate over the market read model", () => {
  it("stakes against the pool at the newest block, and says which", async () => {
    const answer = await estimate(7, SwapDirection.SWAP_DIRECTION_STAKE, "10000000000");
    expect(answer).toMatchObject({
      asOf: { blockNumber: "201" },
      netuid: 7,
      direction: SwapDirection.SWAP_DIRECTION_STAKE,
      taoRao: "10000000000",
      // 909.090909091 − 909.090909091 × 110 ÷ 120 alpha, rounded down.
      alphaNalpha: "75757575757",
      feeRao: "0",
      poolTaoInRao: "110000000000",
      poolAlphaInNalpha: "909090909091",
      poolTaoInAfterRao: "120000000000",
      poolAlphaInAfterNalpha: "833333333334",
    });
    expect(Number(answer.priceImpact)).toBeCloseTo(1 / 12, 9);
  });

  it("answers at the block asked for, against the pool that stood then", async () => {
    expect(await estimate(7, SwapDirection.SWAP_DIRECTION_STAKE, "10000000000", 200)).toMatchObject({
      asOf: { blockNumber: "200" },
      alphaNalpha: "90909090909",
      spotPriceTao: "0.1",
      effectivePriceTao: "0.11",
      priceImpact: "0.09090909091",
    });
  });

  it("unstakes, and swaps the root pool 1:1", async () => {
    expect(await estimate(7, SwapDirection.SWAP_DIRECTION_UNSTAKE, "90909090909", 200)).toMatchObject({
      taoRao: "8333333333",
      alphaNalpha: "90909090909",
    });
    expect(await estimate(0, SwapDirection.SWAP_DIRECTION_STAKE, "123")).toMatchObject({
      alphaNalpha: "123",
      spotPriceTao: "1",
      priceImpact: "0",
      mechanism: PoolMechanism.POOL_MECHANISM_STABLE,
    });
  });

  it("refuses an unknown subnet, a missing direction and amounts that are not a u64 of at least 1", async () => {
    await expect(estimate(99, SwapDirection.SWAP_DIRECTION_STAKE, "1")).rejects.toMatchObject({
      code: "NETUID_NOT_FOUND",
    });
    for (const [direction, amount] of [
      [SwapDirection.SWAP_DIRECTION_UNSPECIFIED, "1"],
      [SwapDirection.SWAP_DIRECTION_STAKE, "0"],
      [SwapDirection.SWAP_DIRECTION_STAKE, "18446744073709551616"],
      [SwapDirection.SWAP_DIRECTION_STAKE, "-5"],
      [SwapDirection.SWAP_DIRECTION_STAKE, ""],
    ] as const)
      await expect(estimate(7, direction, amount)).rejects.toMatchObject({ code: "INVALID_PARAMETER" });
  });
});
