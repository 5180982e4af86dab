import { join } from "node:path";
import { HolderCoverage, PoolMechanism } from "@platform/proto/common/v1/network";
import { GetSubnetsLatestResponse, ValidatorSort } from "@platform/proto/data/v1/subnets";
import type { NetworkChainEvent, PoolSnapshot } from "@platform/proto/events/v1/chain_network";
import { TOPICS } from "@platform/proto/topics";
import { createRedis, type Redis } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// Written by the projector's own projection, as in production (the keys are its contract).
import { subnetsProjection } from "../../../projector/src/subnets/projection.js";
import { account, batchMaker, networkValues, ref, silentLog } from "../shared/testSupport/networkRecords.js";
import { getHoldersTop } from "./holders.js";
import { subnetsReads } from "./index.js";
import { getSubnetsLatest } from "./subnetsLatest.js";
import { getValidatorsLatest } from "./validators.js";

const dir = tempDir("data-query-subnets-reads");
const log = silentLog();

let redisServer: RunningRedis;
let redis: Redis;

/** The pool snapshot of subnet 1 at a block (alone, a block that publishes only its pool); `fields` replace the defaults. */
const poolAt = (number: number, fields: Partial<PoolSnapshot> = {}): NetworkChainEvent => ({
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
      priceTao: "0.25",
      ...fields,
    },
  },
});

/** One block of subnet 1: its pool and its holder set (coldkey 1 and 2, with these amounts). */
async function block(number: number, alphaOne: string | undefined, alphaTwo = "0", priceTao = "0.25"): Promise<void> {
  const events: NetworkChainEvent[] = [
    poolAt(number, { alphaOutNalpha: String(number * 1_000), priceTao, movingPriceTao: "0.25", volumeTotalRao: "0" }),
  ];
  // A block without holder amounts publishes only its pool: the set of an earlier block stands.
  if (alphaOne !== undefined)
    events.push({
      event: {
        $case: "holderPositions",
        value: {
          ref: ref(number),
          netuid: 1,
          coverage: HolderCoverage.HOLDER_COVERAGE_REGISTERED_HOTKEYS_ONLY,
          chunkIndex: 0,
          chunkCount: 1,
          positions: [
            { coldkey: account("1"), hotkey: account("a"), alphaNalpha: alphaOne },
            { coldkey: account("2"), hotkey: account("a"), alphaNalpha: alphaTwo },
          ],
        },
      },
    });
  await publish(events);
}

/** Folds records of subnet 1 through the projector's subnets projection, as one batch. */
const nextBatch = batchMaker();
async function publish(events: NetworkChainEvent[]): Promise<void> {
  await subnetsProjection({ redis, log }).handleBatch(
    nextBatch(TOPICS.chainNetwork.name, "netuid:1", networkValues(events)),
  );
}

/**
 * The same client, except that `beforeExec(n)` runs before its n-th MULTI is executed (with
 * `pipelines`, its n-th MULTI or pipeline).
 */
function withHook(client: Redis, beforeExec: (n: number) => Promise<void>, pipelines = false): Redis {
  let execs = 0;
  const hooked = new Set(pipelines ? ["multi", "pipeline"] : ["multi"]);
  return new Proxy(client, {
    get(target, property, receiver) {
      if (typeof property !== "string" || !hooked.has(property)) return Reflect.get(target, property, receiver);
      return () => {
        const multi = property === "multi" ? target.multi() : target.pipeline();
        const exec = multi.exec.bind(multi);
        multi.exec = (async () => {
          await beforeExec(++execs);
          return exec();
        }) as typeof multi.exec;
        return multi;
      };
    },
  });
}

/**
 * The same client, except that each pipeline runs its commands one at a time, `beforeCommand(n)`
 * before the n-th command of the whole client: where another client's MULTI may land in a real one.
 */
function commandByCommand(client: Redis, beforeCommand: (n: number) => Promise<void>): Redis {
  let commands = 0;
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property !== "pipeline") return Reflect.get(target, property, receiver);
      return () => {
        const queued: [string, unknown[]][] = [];
        const pipeline: object = new Proxy(
          {},
          {
            get: (_recorder, method) => {
              if (method === "exec")
                return async () => {
                  const results: [Error | null, unknown][] = [];
                  for (const [name, args] of queued) {
                    await beforeCommand(++commands);
                    const command = (target as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[
                      name
                    ]!;
                    results.push(
                      await command.apply(target, args).then(
                        (value) => [null, value] as [null, unknown],
                        (error: Error) => [error, null] as [Error, null],
                      ),
                    );
                  }
                  return results;
                };
              return (...args: unknown[]) => {
                queued.push([String(method), args]);
                return pipeline;
              };
            },
          },
        );
        return pipeline;
      };
    },
  });
}

beforeAll(async () => {
  redisServer = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: redisServer.url, connectionName: "holders-test", commandTimeoutMs: 10_000 });
  await waitFor(async () => redis.status === "ready", { what: "redis connection" });
  await redis.sadd("rm:{data}:subnets:netuids", "1");
  await block(10, "700", "500");
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await redisServer?.stop();
  dir.remove();
});

const request = { netuid: 1, groupBy: 0, page: { limit: 10, cursor: "" } };

describe("getHoldersTop", () => {
  it("answers one holder set even when the projector replaces the ranking between its reads", async () => {
    // The next block's set lands after the ranking was read and before its rows are.
    const racing = withHook(redis, async (n) => {
      if (n === 2) await block(11, "900", "100");
    });
    const answer = await getHoldersTop(racing, request);
    // Block 11's set throughout: its as_of, its amounts and its pool, never block 10's as_of with block 11's rows.
    expect(answer.asOf?.blockNumber).toBe("11");
    expect(answer.holders.map((holder) => [holder.coldkey?.ss58, holder.alphaNalpha])).toEqual([
      ["ss58-1", "900"],
      ["ss58-2", "100"],
    ]);
    expect(answer.alphaOutNalpha).toBe("11000");
  });

  it("never names a block whose set it did not read, wherever a commit lands among its reads", async () => {
    // Each read of the walk in turn sees the next block land just before it; whichever it is, the
    // answer's holders are the set of the block its as_of names (CI once served block N-1's set as N's).
    for (let landing = 1; landing <= 4; landing++) {
      const base = 12 + 2 * landing;
      await block(base, "600", "400");
      const racing = withHook(
        redis,
        async (n) => {
          if (n === landing) await block(base + 1, "650", "350");
        },
        true,
      );
      const answer = await getHoldersTop(racing, request);
      const expected = answer.asOf?.blockNumber === String(base) ? ["600", "400"] : ["650", "350"];
      expect([landing, answer.asOf?.blockNumber, answer.holders.map((holder) => holder.alphaNalpha)]).toEqual([
        landing,
        expect.stringMatching(new RegExp(`^(${base}|${base + 1})$`)),
        expected,
      ]);
    }
  });

  it("answers a set that still stands as of the newest pool's block, valued at that pool", async () => {
    await block(40, "800", "200");
    await block(41, undefined, undefined, "0.5");
    await block(42, undefined, undefined, "0.75");
    const answer = await getHoldersTop(redis, request);
    expect(answer.asOf?.blockNumber).toBe("42");
    expect(answer.priceTao).toBe("0.75");
    expect(answer.alphaOutNalpha).toBe("42000");
    expect(answer.holders.map((holder) => [holder.coldkey?.ss58, holder.alphaNalpha, holder.valueRao])).toEqual([
      ["ss58-1", "800", "600"],
      ["ss58-2", "200", "150"],
    ]);
  });

  it("answers a first page from the ranking and its head alone, without moving the whole stored set", async () => {
    await block(45, "900", "100");
    const expected = await getHoldersTop(redis, request);
    expect(JSON.parse((await redis.get("rm:{data}:subnets:holders:1:ranked-head"))!)).toMatchObject({
      tag: await redis.get("rm:{data}:subnets:holders:1:ranked"),
      ref: { blockNumber: "45" },
      coverage: HolderCoverage.HOLDER_COVERAGE_REGISTERED_HOTKEYS_ONLY,
    });
    await redis.rename("rm:{data}:subnets:holders:1:points", "aside");
    try {
      expect(await getHoldersTop(redis, request)).toEqual(expected);
    } finally {
      await redis.rename("aside", "rm:{data}:subnets:holders:1:points");
    }
  });

  it("gives up with READ_MODEL_UNAVAILABLE when the ranking keeps changing under every read", async () => {
    let next = 50;
    const churning = withHook(redis, async (n) => {
      if (n % 2 === 0) await block(next++, String(1_000 + next), "100");
    });
    await expect(getHoldersTop(churning, request)).rejects.toMatchObject({ code: "READ_MODEL_UNAVAILABLE" });
  });
});

describe("walks pinned to their first page's block", () => {
  const holderSet = (number: number, amounts: number[]): NetworkChainEvent => ({
    event: {
      $case: "holderPositions",
      value: {
        ref: ref(number),
        netuid: 1,
        coverage: HolderCoverage.HOLDER_COVERAGE_COMPLETE,
        chunkIndex: 0,
        chunkCount: 1,
        positions: amounts.map((alpha, index) => ({
          coldkey: account(String(index + 1)),
          hotkey: account("a"),
          alphaNalpha: String(alpha),
        })),
      },
    },
  });

  const metagraph = (number: number, stakes: number[]): NetworkChainEvent => ({
    event: {
      $case: "validatorSetSnapshot",
      value: {
        ref: ref(number),
        netuid: 1,
        neurons: stakes.map((stake, uid) => ({
          uid,
          hotkey: account(String.fromCharCode(97 + uid)),
          coldkey: account(String(uid + 1)),
          validatorPermit: true,
          active: true,
          alphaStakeNalpha: String(stake),
          dividends: "0",
          vtrust: "0",
          incentive: "0",
          consensus: "0",
          emissionNalpha: "0",
          lastUpdateBlock: String(number),
        })),
      },
    },
  });
  it("holders/top: every page of a walk shows the first page's set, once each, while newer sets replace the ranking", async () => {
    await publish([poolAt(100), holderSet(100, [500, 400, 300, 200, 100])]);
    const walk = { netuid: 1, groupBy: 0 };
    const first = await getHoldersTop(redis, { ...walk, page: { limit: 2, cursor: "" } });
    // A new set with other amounts and order replaces the ranking between the pages.
    await publish([poolAt(101), holderSet(101, [1, 2, 3, 4, 5, 6])]);
    const second = await getHoldersTop(redis, { ...walk, page: { limit: 2, cursor: first.page!.nextCursor! } });
    await publish([poolAt(102), holderSet(102, [7, 8])]);
    const third = await getHoldersTop(redis, { ...walk, page: { limit: 2, cursor: second.page!.nextCursor! } });
    const pages = [first, second, third];
    expect(pages.map((page) => page.asOf?.blockNumber)).toEqual(["100", "100", "100"]);
    expect(
      pages.flatMap((page) => page.holders.map((holder) => [holder.rank, holder.coldkey?.ss58, holder.alphaNalpha])),
    ).toEqual([
      [1, "ss58-1", "500"],
      [2, "ss58-2", "400"],
      [3, "ss58-3", "300"],
      [4, "ss58-4", "200"],
      [5, "ss58-5", "100"],
    ]);
    expect(third.page?.hasMore).toBe(false);
    // A new walk starts on the newest set.
    expect((await getHoldersTop(redis, { ...walk, page: { limit: 2, cursor: "" } })).asOf?.blockNumber).toBe("102");

    // Once the set is no longer kept (the newest 4 are), its walk ends with INVALID_CURSOR.
    for (const number of [103, 104, 105, 106]) await publish([poolAt(number), holderSet(number, [9])]);
    await expect(
      getHoldersTop(redis, { ...walk, page: { limit: 2, cursor: second.page!.nextCursor! } }),
    ).rejects.toMatchObject({ code: "INVALID_CURSOR" });
  });

  it("validators/latest: every page of a walk shows the first page's metagraph while newer ones arrive", async () => {
    await publish([poolAt(200), metagraph(200, [50, 40, 30, 20])]);
    const request = { netuid: 1, includeWithoutPermit: false, sort: 0, order: 0 };
    const first = await getValidatorsLatest(redis, { ...request, page: { limit: 2, cursor: "" } });
    // The stakes reverse: a position cursor alone would serve uid 1 again and skip uid 2.
    await publish([poolAt(201), metagraph(201, [10, 20, 60, 70])]);
    const second = await getValidatorsLatest(redis, {
      ...request,
      page: { limit: 2, cursor: first.page!.nextCursor! },
    });
    expect([first, second].map((page) => page.asOf?.blockNumber)).toEqual(["200", "200"]);
    expect(
      [first, second].flatMap((page) =>
        page.validators.map((validator) => [validator.uid, validator.alphaStakeNalpha]),
      ),
    ).toEqual([
      [0, "50"],
      [1, "40"],
      [2, "30"],
      [3, "20"],
    ]);
    expect((await getValidatorsLatest(redis, { ...request, page: { limit: 2, cursor: "" } })).asOf?.blockNumber).toBe(
      "201",
    );
  });
  it("validators/latest never names a block whose metagraph it did not read, wherever a commit lands among its reads", async () => {
    const request = { netuid: 1, includeWithoutPermit: false, sort: 0, order: 0, page: { limit: 10, cursor: "" } };
    // Each command of the read in turn sees the next block land just before it (a pipeline is not
    // atomic: another client's MULTI can run between two of its commands).
    for (let landing = 1; landing <= 6; landing++) {
      const base = 210 + 2 * landing;
      await publish([poolAt(base), metagraph(base, [50, 40])]);
      const racing = commandByCommand(redis, async (n) => {
        if (n === landing) await publish([poolAt(base + 1), metagraph(base + 1, [45, 35])]);
      });
      const answer = await getValidatorsLatest(racing, request);
      const expected = answer.asOf?.blockNumber === String(base) ? ["50", "40"] : ["45", "35"];
      expect([landing, answer.asOf?.blockNumber, answer.validators.map((v) => v.alphaStakeNalpha)]).toEqual([
        landing,
        expect.stringMatching(new RegExp(`^(${base}|${base + 1})$`)),
        expected,
      ]);
    }
  });
});

describe("validators/latest with root stakes moved since the metagraph", () => {
  it("applies the ValidatorRootStakes published after the metagraph, in order, as of the newest block", async () => {
    const neuron = (uid: number, rootStakeRao?: string) => ({
      uid,
      hotkey: account(String.fromCharCode(107 + uid)),
      coldkey: account(String(uid + 1)),
      validatorPermit: true,
      active: true,
      alphaStakeNalpha: "100",
      dividends: "0",
      vtrust: "0",
      incentive: "0",
      consensus: "0",
      emissionNalpha: "0",
      lastUpdateBlock: "300",
      ...(rootStakeRao === undefined ? {} : { rootStakeRao }),
    });
    const moved = (number: number, uid: number, rootStakeRao: string): NetworkChainEvent => ({
      event: {
        $case: "validatorRootStakes",
        value: {
          ref: ref(number),
          netuid: 1,
          stakes: [{ uid, hotkey: account(String.fromCharCode(107 + uid)).publicKey, rootStakeRao }],
        },
      },
    });
    await publish([
      poolAt(300),
      {
        event: {
          $case: "validatorSetSnapshot",
          value: { ref: ref(300), netuid: 1, neurons: [neuron(0, "5"), neuron(1)] },
        },
      },
    ]);
    await publish([poolAt(301), moved(301, 0, "9")]);
    await publish([poolAt(302), moved(302, 1, "4")]);
    const request = {
      netuid: 1,
      includeWithoutPermit: false,
      sort: ValidatorSort.VALIDATOR_SORT_UID,
      order: 0,
      page: { limit: 10, cursor: "" },
    };
    const rootStakes = (answer: Awaited<ReturnType<typeof getValidatorsLatest>>) =>
      answer.validators.map((validator) => [validator.uid, validator.rootStakeRao]).sort();
    const latest = await getValidatorsLatest(redis, request);
    expect(latest.asOf?.blockNumber).toBe("302");
    expect(rootStakes(latest)).toEqual([
      [0, "9"],
      [1, "4"],
    ]);
  });
});

describe("subnets/latest", () => {
  const subnet = (number: number): NetworkChainEvent => ({
    event: {
      $case: "subnetSnapshot",
      value: {
        ref: ref(number),
        netuid: 1,
        name: "sn1",
        symbol: "α",
        registeredAtBlock: "1",
        mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
        tempo: 360,
        uidCount: 4,
        emissionEnabled: true,
        yuma3Enabled: false,
      },
    },
  });
  const metagraph = (number: number, flags: [permit: boolean, active: boolean][]): NetworkChainEvent => ({
    event: {
      $case: "validatorSetSnapshot",
      value: {
        ref: ref(number),
        netuid: 1,
        neurons: flags.map(([validatorPermit, active], uid) => ({
          uid,
          hotkey: account(String.fromCharCode(97 + uid)),
          coldkey: account(String(uid + 1)),
          validatorPermit,
          active,
          alphaStakeNalpha: "1000",
          dividends: "0.5",
          vtrust: "0.9",
          incentive: "0.1",
          consensus: "0.2",
          emissionNalpha: "7",
          lastUpdateBlock: String(number),
          identity: {
            name: uid === 0 ? "validator 0" : "",
            url: "https://example.com",
            githubRepo: "",
            image: "",
            discord: "",
            description: "a long description ".repeat(20),
            additional: "",
          },
        })),
      },
    },
  });
  const removal = (number: number): NetworkChainEvent => ({
    event: {
      $case: "chainEventRemoved",
      value: {
        removed: ref(number),
        removedEventType: "ValidatorSetSnapshot",
        removedEventId: "",
        key: "netuid:1",
        commonAncestorBlockNumber: String(number - 1),
      } as never,
    },
  });

  it("counts permits and active UIDs from the metagraphs' flags series, and a metagraph taken back by a reorganisation takes its flags too", async () => {
    await publish([
      poolAt(300),
      subnet(300),
      metagraph(300, [
        [true, true],
        [true, false],
        [false, true],
        [false, false],
      ]),
    ]);
    const counts = async () =>
      (await getSubnetsLatest(redis, { netuids: [1], sort: 0, order: 0 })).subnets.map((item) => [
        item.validatorsWithPermit,
        item.activeUids,
      ]);
    expect(await counts()).toEqual([[2, 2]]);
    // The flags point is each neuron cut to uid, permit and activity: a small fraction of the whole.
    const [flags] = await redis.zrange("rm:{data}:subnets:validator-flags:1:points", "-1", "-1");
    const [whole] = await redis.zrange("rm:{data}:subnets:validators:1:points", "-1", "-1");
    expect(flags!.length * 5).toBeLessThan(whole!.length);
    await publish([
      poolAt(301),
      metagraph(301, [
        [true, true],
        [true, true],
        [true, true],
        [false, true],
      ]),
    ]);
    expect(await counts()).toEqual([[3, 4]]);
    // A reorganisation takes block 301's metagraph back: both series fall back to block 300's.
    await publish([removal(301), poolAt(302)]);
    expect(await counts()).toEqual([[2, 2]]);
    // A read model projected before the flags existed: the whole metagraph is read instead.
    await redis.del("rm:{data}:subnets:validator-flags:1:points");
    expect(await counts()).toEqual([[2, 2]]);
  });
});

describe("kept answers (shared/answerCache.ts over the projection's version)", () => {
  it("answers from what it kept until the projection commits, then from the new block", async () => {
    const registry = new Registry();
    const reads = subnetsReads({ redis, answerCacheMaxBytes: 1 << 20, registry });
    await block(500, "600", "400");
    const first = await reads.getHoldersTop(request);
    expect(first.asOf?.blockNumber).toBe("500");
    expect(await reads.getHoldersTop(request)).toBe(first);
    // Another question of the same version is computed (and kept) on its own.
    const page = await reads.getHoldersTop({ ...request, page: { limit: 1, cursor: "" } });
    expect(page.holders).toHaveLength(1);
    // The projection's commit replaces the version: the next read shows the new block.
    await block(501, "650", "350");
    const second = await reads.getHoldersTop(request);
    expect(second.asOf?.blockNumber).toBe("501");
    expect(second.holders.map((holder) => holder.alphaNalpha)).toEqual(["650", "350"]);
    expect(second).toEqual(await getHoldersTop(redis, request));
    const counted = (await registry.getSingleMetric("data_query_answer_cache_total")!.get()).values;
    expect(Object.fromEntries(counted.map((value) => [value.labels.result, value.value]))).toEqual({ miss: 3, hit: 1 });
  });

  it("every commit of the projection replaces the version, a rolled-back block too", async () => {
    const versions = new Set<string | null>([await redis.get("rm:{data}:subnets:version")]);
    await block(502, "1", "2");
    versions.add(await redis.get("rm:{data}:subnets:version"));
    await publish([
      {
        event: {
          $case: "chainEventRemoved",
          value: {
            removed: ref(502),
            removedEventType: "PoolSnapshot",
            removedEventId: "",
            key: "netuid:1",
            commonAncestorBlockNumber: "501",
          } as never,
        },
      },
    ]);
    versions.add(await redis.get("rm:{data}:subnets:version"));
    expect(versions.size).toBe(3);
    expect(versions.has(null)).toBe(false);
  });

  it("sends a kept answer's wire bytes as they were encoded, equal to a fresh encoding", async () => {
    const reads = subnetsReads({ redis, answerCacheMaxBytes: 1 << 20 });
    const answer = await reads.getSubnetsLatest({ netuids: [], sort: 0, order: 0 });
    const kept = await reads.getSubnetsLatest({ netuids: [], sort: 0, order: 0 });
    expect(kept).toBe(answer);
    const serialize = reads.definition.getSubnetsLatest!.responseSerialize as (value: unknown) => Buffer;
    expect(serialize(kept).equals(GetSubnetsLatestResponse.encode(answer).finish())).toBe(true);
  });
});
