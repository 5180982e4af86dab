import type { SupervisedProjection } from "@platform/bus";
import type { HistoryDb } from "@platform/history";
import type { Logger } from "@platform/log";
import type { CommitReplication, RedisMulti } from "@platform/projection";
import type { SeriesPoint } from "@platform/read-models";
import { DATA_PREFIX, marketKeys, readModelVersionKeys } from "@platform/read-models";
import type { Signals } from "@platform/signals";
import { execPipeline, type Redis } from "@platform/store";
import { newestRef, queueDataChanges } from "../shared/dataChangeLog.js";
import { addStateMembers, blockSpan, writeRemovalsHistory, writeSeriesHistory } from "../shared/seriesHistory.js";
import { restoreSeries } from "../shared/seriesRestore.js";
import type { SeriesState } from "../shared/seriesState.js";
import { type LoadedSeries, type PendingSeries, queueSeriesWrites, type SeriesLayout } from "../shared/seriesStore.js";
import { snapshotProjection } from "../shared/snapshotProjection.js";
import { queueMembership, queueRemovals, type RemovalChange } from "../shared/subnetRemovals.js";
import { advanceToRef, type ReadModelMetrics } from "../supervisor/readModelMetrics.js";
import { decodeMarketBatch, type MarketChange } from "./decode.js";
import { DEFAULT_HOT_WINDOW_BLOCKS, emissionLayout, poolLayout, priceLayout, statsLayout } from "./keys.js";
import { queueTraders, rebuildTraders } from "./traders.js";

export type MarketProjection = SupervisedProjection;

/**
 * The market projection: folds pool, emission and network-stats snapshots (chain.network.v1) and
 * price rounds (oracle.prices.v1) into the series of keys.ts, exactly once per record (the offset
 * is stored in the batch's MULTI/EXEC). A ChainEventRemoved takes its snapshot's point out of the
 * series, so the previous snapshot stands again and the buckets go back with it. Each commit is
 * announced on `signals` as `readmodel.changed.market` (shared/snapshotProjection.ts).
 */
export function marketProjection(options: {
  redis: Redis;
  /** The history database: every point is kept there as well (shared/seriesHistory.ts). */
  history?: HistoryDb | undefined;
  log: Logger;
  signals?: Signals;
  /** Waited for between each commit and its signal (shared/commitReplication.ts). */
  replication?: CommitReplication | undefined;
  /** Told the newest block of each commit (`read_model_as_of_*{read_model="market"}`). */
  readModels?: ReadModelMetrics;
  /** The newest points Redis keeps of each pool (REDIS_HOT_WINDOW_BLOCKS); 7,200 by default. */
  hotWindowBlocks?: number;
  /** The blocks a pool's distinct buyers and sellers are counted over (traders.ts); 7,200 by default. */
  traderWindowBlocks?: number;
}): MarketProjection {
  const { redis, log } = options;
  const pools = (netuid: number) => poolLayout(netuid, options.hotWindowBlocks ?? DEFAULT_HOT_WINDOW_BLOCKS);
  return snapshotProjection<MarketChange, MarketPlan>({
    name: "market",
    redis,
    log,
    offsetKey: marketKeys.offset,
    versionKey: readModelVersionKeys.market,
    decode: decodeMarketBatch,
    signals: options.signals,
    replication: options.replication,
    committed: (changes) =>
      advanceToRef(
        options.readModels,
        "market",
        newestRef(changes.map((change) => ("ref" in change ? change.ref : undefined))),
      ),
    plan: (changes, state) => planMarket(changes, state, pools),
    blocksOf: (changes) =>
      blockSpan(changes.flatMap((change) => ("point" in change && change.point !== undefined ? [change.point.b] : []))),
    async queueRedis(plan, changes) {
      const { loaded, pending, removals, newTombstones, priceAdds } = plan;
      return (multi) => {
        const folds = queueSeriesWrites(multi, loaded);
        queueTraders(multi, changes, options.traderWindowBlocks);
        queueRemovals(multi, marketKeys.removedSubnets, removals);
        // Pools and emissions are listed while their newest point stands and is newer than the subnet's removal.
        const listed = new Set<number>(removals.map((removal) => removal.netuid));
        for (const entry of pending) {
          const fold = folds.get(entry.layout.points);
          if (fold === undefined || fold.folded.changedFrom === undefined) continue;
          const newest: SeriesPoint | undefined = fold.folded.points.at(-1) ?? fold.base;
          if (entry.kind === "pool" || entry.kind === "emission") listed.add(entry.netuid!);
          else if (entry.kind === "price" && newest !== undefined) {
            multi.sadd(marketKeys.pricePairs, entry.pair!);
          }
        }
        for (const netuid of listed) queueListing(multi, netuid);
        if (newTombstones.length > 0) multi.sadd(marketKeys.priceRemoved, ...newTombstones);
        queueDataChanges(multi, {
          readModel: "market",
          head: newestRef(changes.map((change) => ("ref" in change ? change.ref : undefined))),
          pools: changes.flatMap((change) => (change.kind === "pool" ? [change.point.p] : [])),
          prices: priceAdds.map((change) => change.point.p),
        });
      };
    },
    history: options.history,
    restore: (history) =>
      restoreSeries({
        projection: "market",
        redis,
        history,
        log,
        seriesPrefix: `${DATA_PREFIX}market:`,
        layoutOf: (key) => marketLayoutOf(key, pools),
        stateKind: (key) => (key === marketKeys.removedSubnets ? "hash" : "set"),
        offsetKey: marketKeys.offset,
        versionKey: readModelVersionKeys.market,
        derive: async (newest) => {
          const netuids = new Set<number>();
          for (const key of newest.keys()) {
            const netuid = /:market:(?:pool|emission):(\d+):points$/.exec(key)?.[1];
            if (netuid !== undefined) netuids.add(Number(netuid));
          }
          for (const netuid of Object.keys(await redis.hgetall(marketKeys.removedSubnets))) netuids.add(Number(netuid));
          const multi = redis.multi();
          for (const netuid of netuids) queueListing(multi, netuid);
          await execPipeline(multi);
          // The trader logs live in Redis only: replayed from the restored pool points.
          const pools = new Map<number, SeriesPoint>();
          for (const [key, point] of newest) {
            const netuid = /:market:pool:(\d+):points$/.exec(key)?.[1];
            if (netuid !== undefined) pools.set(Number(netuid), point);
          }
          await rebuildTraders(redis, pools, options.traderWindowBlocks);
        },
      }).then(() => undefined),
    async writeHistory(tx, plan, partitions) {
      await writeSeriesHistory(tx, partitions, plan.loaded);
      await writeRemovalsHistory(tx, "market", marketKeys.removedSubnets, plan.removals);
      // The price pairs with a point (which a price removal reaches) and the removed rounds, as in Redis.
      const pairs = plan.pending.flatMap((entry) =>
        entry.kind === "price" && entry.ops.some((op) => op.kind === "add") ? [entry.pair!] : [],
      );
      await addStateMembers(tx, "market", marketKeys.pricePairs, pairs);
      await addStateMembers(tx, "market", marketKeys.priceRemoved, plan.newTombstones);
    },
  });
}

type MarketSeriesKind = "pool" | "emission" | "stats" | "price";
type MarketSeries = PendingSeries & { kind: MarketSeriesKind; netuid?: number; pair?: string };

/** What a market batch writes, decided against one store's copy (its tombstones, pairs and series tails). */
export interface MarketPlan {
  pending: MarketSeries[];
  loaded: LoadedSeries[];
  removals: RemovalChange[];
  newTombstones: string[];
  /** The price rounds added (tombstoned ones left out). */
  priceAdds: Extract<MarketChange, { kind: "price" }>[];
}

/** Sorts a batch's changes into series operations, in order; a price round already removed is not added again. */
export async function planMarket(
  changes: readonly MarketChange[],
  state: SeriesState,
  pools: (netuid: number) => SeriesLayout,
): Promise<MarketPlan> {
  const pending = new Map<string, MarketSeries>();
  const series = (
    kind: MarketSeriesKind,
    layout: PendingSeries["layout"],
    extra: { netuid?: number; pair?: string } = {},
  ) => {
    let entry = pending.get(layout.points);
    if (entry === undefined) {
      entry = { kind, layout, ops: [], ...extra };
      pending.set(layout.points, entry);
    }
    return entry;
  };
  const removedPrices = changes.filter((change) => change.kind === "removed" && change.what === "price");
  const pricePairs = removedPrices.length > 0 ? await state.members(marketKeys.pricePairs) : [];
  const allPriceAdds = changes.filter((change) => change.kind === "price");
  const tombstoned = await state.membersAmong(
    marketKeys.priceRemoved,
    allPriceAdds.map((change) => change.identity),
  );
  const newTombstones: string[] = [];
  const removals: RemovalChange[] = [];
  for (const change of changes) {
    if (change.kind === "subnetRemoved" || (change.kind === "removed" && change.what === "subnetRemoved"))
      removals.push(change);
    else if (change.kind === "pool")
      series("pool", pools(change.netuid), { netuid: change.netuid }).ops.push({
        kind: "add",
        point: change.point,
      });
    else if (change.kind === "emission")
      series("emission", emissionLayout(change.netuid), { netuid: change.netuid }).ops.push({
        kind: "add",
        point: change.point,
      });
    else if (change.kind === "stats") series("stats", statsLayout).ops.push({ kind: "add", point: change.point });
    else if (change.kind === "price") {
      if (tombstoned.has(change.identity)) continue;
      series("price", priceLayout(change.asset, change.vs), { pair: `${change.asset}:${change.vs}` }).ops.push({
        kind: "add",
        point: change.point,
      });
    } else {
      const remove = { kind: "remove" as const, block: change.block, hash: change.hash };
      if (change.what === "pool") series("pool", pools(change.netuid), { netuid: change.netuid }).ops.push(remove);
      else if (change.what === "emission")
        series("emission", emissionLayout(change.netuid), { netuid: change.netuid }).ops.push(remove);
      else if (change.what === "stats") series("stats", statsLayout).ops.push(remove);
      else if (change.what === "price") {
        newTombstones.push(change.identity);
        for (const pair of pricePairs.filter((known) => known.startsWith(`${change.asset}:`))) {
          const vs = pair.slice(change.asset.length + 1);
          series("price", priceLayout(change.asset, vs), { pair }).ops.push(remove);
        }
      }
    }
  }
  const entries = [...pending.values()];
  return {
    pending: entries,
    loaded: await state.loadSeries(entries),
    removals,
    newTombstones,
    priceAdds: allPriceAdds.filter((change) => !tombstoned.has(change.identity)) as MarketPlan["priceAdds"],
  };
}

/** Lists a subnet's pool and emission while their newest point stands and is newer than its removal. */
function queueListing(multi: RedisMulti, netuid: number): void {
  queueMembership(multi, {
    seriesKeys: [marketKeys.poolPoints(netuid)],
    setKey: marketKeys.pools,
    removalsKey: marketKeys.removedSubnets,
    netuid,
  });
  queueMembership(multi, {
    seriesKeys: [marketKeys.emissionPoints(netuid)],
    setKey: marketKeys.emissions,
    removalsKey: marketKeys.removedSubnets,
    netuid,
  });
}

/** A market series' layout from its points key (keys.ts), for the restore. */
function marketLayoutOf(key: string, pools: (netuid: number) => SeriesLayout): SeriesLayout | undefined {
  const rest = key.startsWith(`${DATA_PREFIX}market:`) ? key.slice(`${DATA_PREFIX}market:`.length) : undefined;
  if (rest === undefined || !rest.endsWith(":points")) return undefined;
  const parts = rest.slice(0, -":points".length).split(":");
  if (parts[0] === "pool" && parts.length === 2) return pools(Number(parts[1]));
  if (parts[0] === "emission" && parts.length === 2) return emissionLayout(Number(parts[1]));
  if (parts[0] === "stats" && parts.length === 1) return statsLayout;
  if (parts[0] === "price" && parts.length === 3) return priceLayout(parts[1]!, parts[2]!);
  return undefined;
}
