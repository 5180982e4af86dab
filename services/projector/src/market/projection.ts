import type { SupervisedProjection } from "@platform/bus";
import type { Logger } from "@platform/log";
import type { CommitReplication } from "@platform/projection";
import type { SeriesPoint } from "@platform/read-models";
import { marketKeys, readModelVersionKeys } from "@platform/read-models";
import type { Signals } from "@platform/signals";
import type { Redis } from "@platform/store";
import { newestRef, queueDataChanges } from "../shared/dataChangeLog.js";
import { loadSeries, type PendingSeries, queueSeriesWrites } from "../shared/seriesStore.js";
import { snapshotProjection } from "../shared/snapshotProjection.js";
import { queueMembership, queueRemovals, type RemovalChange } from "../shared/subnetRemovals.js";
import { advanceToRef, type ReadModelMetrics } from "../supervisor/readModelMetrics.js";
import { decodeMarketBatch, type MarketChange } from "./decode.js";
import { emissionLayout, poolLayout, priceLayout, statsLayout } from "./keys.js";

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
  log: Logger;
  signals?: Signals;
  /** Waited for between each commit and its signal (shared/commitReplication.ts). */
  replication?: CommitReplication | undefined;
  /** Told the newest block of each commit (`read_model_as_of_*{read_model="market"}`). */
  readModels?: ReadModelMetrics;
}): MarketProjection {
  const { redis, log } = options;
  return snapshotProjection<MarketChange>({
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
    async prepare(changes) {
      const pending = new Map<
        string,
        PendingSeries & { kind: "pool" | "emission" | "stats" | "price"; netuid?: number; pair?: string }
      >();
      const series = (
        kind: "pool" | "emission" | "stats" | "price",
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
      const pricePairs = removedPrices.length > 0 ? await redis.smembers(marketKeys.pricePairs) : [];
      const priceAdds = changes.filter((change) => change.kind === "price");
      const tombstoned = new Set<string>();
      if (priceAdds.length > 0) {
        const identities = priceAdds.map((change) => change.identity);
        await redis.watch(marketKeys.priceRemoved);
        const flags = await redis.smismember(marketKeys.priceRemoved, ...identities);
        identities.forEach((identity, index) => flags[index] === 1 && tombstoned.add(identity));
      }
      const newTombstones: string[] = [];
      const removals: RemovalChange[] = [];
      for (const change of changes) {
        if (change.kind === "subnetRemoved" || (change.kind === "removed" && change.what === "subnetRemoved"))
          removals.push(change);
        else if (change.kind === "pool")
          series("pool", poolLayout(change.netuid), { netuid: change.netuid }).ops.push({
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
          if (change.what === "pool")
            series("pool", poolLayout(change.netuid), { netuid: change.netuid }).ops.push(remove);
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
      const loaded = await loadSeries(redis, [...pending.values()]);
      return (multi) => {
        const folds = queueSeriesWrites(multi, loaded);
        queueRemovals(multi, marketKeys.removedSubnets, removals);
        // Pools and emissions are listed while their newest point stands and is newer than the subnet's removal.
        const listed = new Set<number>(removals.map((removal) => removal.netuid));
        for (const entry of pending.values()) {
          const fold = folds.get(entry.layout.points);
          if (fold === undefined || fold.folded.changedFrom === undefined) continue;
          const newest: SeriesPoint | undefined = fold.folded.points.at(-1) ?? fold.base;
          if (entry.kind === "pool" || entry.kind === "emission") listed.add(entry.netuid!);
          else if (entry.kind === "price" && newest !== undefined) {
            multi.sadd(marketKeys.pricePairs, entry.pair!);
          }
        }
        for (const netuid of listed) {
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
        if (newTombstones.length > 0) multi.sadd(marketKeys.priceRemoved, ...newTombstones);
        queueDataChanges(multi, {
          readModel: "market",
          head: newestRef(changes.map((change) => ("ref" in change ? change.ref : undefined))),
          pools: changes.flatMap((change) => (change.kind === "pool" ? [change.point.p] : [])),
          prices: priceAdds.filter((change) => !tombstoned.has(change.identity)).map((change) => change.point.p),
        });
      };
    },
  });
}
