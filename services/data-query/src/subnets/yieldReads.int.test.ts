/*
 * validators/latest's yield over a real Redis written by the projector's own subnets projection:
 * metagraphs of a subnet's epochs (HotkeyDividendsPerSubnet, the epoch block) make its yield index,
 * and each validator's 1 h yield is the index's rise over the hour, annualised; the day, longer
 * than the history, is null with the covered window; sort=yield_1h orders by it.
 */
import { join } from "node:path";
import { SortOrder } from "@platform/proto/common/v1/common";
import { PoolMechanism } from "@platform/proto/common/v1/network";
import { type GetValidatorsLatestResponse, ValidatorSort } from "@platform/proto/data/v1/subnets";
import type { NetworkChainEvent } from "@platform/proto/events/v1/chain_network";
import { TOPICS } from "@platform/proto/topics";
import { createRedis, type Redis } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subnetsProjection } from "../../../projector/src/subnets/projection.js";
import { account, batchMaker, networkValues, ref, silentLog, timeOf } from "../shared/testSupport/networkRecords.js";
import { getValidatorsLatest } from "./validators.js";

const dir = tempDir("data-query-yield-reads");
const log = silentLog();
let redisServer: RunningRedis;
let redis: Redis;

const pool = (block: number): NetworkChainEvent => ({
  event: {
    $case: "poolSnapshot",
    value: {
      ref: ref(block),
      netuid: 2,
      mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
      taoInRao: "1000",
      alphaInNalpha: "4000",
      alphaOutNalpha: "1000",
      alphaIssuanceNalpha: "5000",
      priceTao: "0.25",
    },
  },
});

/** Subnet 2's metagraph at its epoch block: uids 0, 1, 2 (hotkeys a, b, c), 1,000 alpha each, no take; a paid 1 alpha, b 0.5, c nothing. */
const epoch = (block: number): NetworkChainEvent => ({
  event: {
    $case: "validatorSetSnapshot",
    value: {
      ref: ref(block),
      netuid: 2,
      lastEpochBlock: String(block),
      neurons: ["1000000000", "500000000", "0"].map((dividends, uid) => ({
        uid,
        hotkey: account(String.fromCharCode(97 + uid)),
        coldkey: account(String(uid + 1)),
        validatorPermit: true,
        active: true,
        take: "0",
        alphaStakeNalpha: "1000000000000",
        dividends: "0",
        vtrust: "0",
        incentive: "0",
        consensus: "0",
        emissionNalpha: "0",
        lastUpdateBlock: "0",
        hotkeyDividendsNalpha: dividends,
      })),
    },
  },
});

const nextBatch = batchMaker();
async function publish(events: NetworkChainEvent[]): Promise<void> {
  await subnetsProjection({ redis, log }).handleBatch(
    nextBatch(TOPICS.chainNetwork.name, "netuid:2", networkValues(events)),
  );
}

const request = { netuid: 2, includeWithoutPermit: false, sort: 0, order: 0 };
const yields = (answer: GetValidatorsLatestResponse) =>
  answer.validators.map((validator) => [validator.hotkey?.ss58, validator.yield?.yield1h]);

beforeAll(async () => {
  redisServer = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: redisServer.url, connectionName: "yield-reads-test", commandTimeoutMs: 10_000 });
  await waitFor(async () => redis.status === "ready", { what: "redis connection" });
  // Blocks are 12 s apart: an hour is 300 blocks. Epochs at 100, 200, 400 and 500; as_of is 500.
  for (const block of [100, 200, 400, 500]) await publish([pool(block), epoch(block)]);
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await redisServer?.stop();
  dir.remove();
});

describe("validators/latest: yield", () => {
  it("gives each validator the index's rise over the hour, annualised, and null for a day the history does not cover", async () => {
    const answer = await getValidatorsLatest(redis, request);
    expect(answer.asOf?.blockNumber).toBe("500");
    // Epochs 400 and 500 fall in the hour after block 200: 2 × 0.001 alpha per alpha for a, × 8,760 hours a year.
    const a = answer.validators.find((validator) => validator.uid === 0)!;
    expect(a.hotkeyDividendsNalpha).toBe("1000000000");
    expect(a.yield).toEqual({
      yield1h: "17.52",
      coveredFromBlock: "100",
      coveredFromTime: new Date(timeOf(100)).toISOString(),
    });
    expect(a.yield?.yield1d).toBeUndefined();
    expect(a.yield?.yield30d).toBeUndefined();
  });

  it("sorts by yield_1h either way", async () => {
    const descending = await getValidatorsLatest(redis, { ...request, sort: ValidatorSort.VALIDATOR_SORT_YIELD_1H });
    expect(yields(descending)).toEqual([
      ["ss58-a", "17.52"],
      ["ss58-b", "8.76"],
      ["ss58-c", "0"],
    ]);
    const ascending = await getValidatorsLatest(redis, {
      ...request,
      sort: ValidatorSort.VALIDATOR_SORT_YIELD_1H,
      order: SortOrder.SORT_ORDER_ASC,
    });
    expect(yields(ascending).map(([hotkey]) => hotkey)).toEqual(["ss58-c", "ss58-b", "ss58-a"]);
  });
});
