import type { ConsumedRecord, SupervisedProjection } from "@platform/bus";
import type { HistoryDb } from "@platform/history";
import type { Logger } from "@platform/log";
import type { CommitReplication } from "@platform/projection";
import type { ChainRef } from "@platform/proto/common/v1/common";
import {
  EmissionSnapshot,
  HolderPositions,
  NetworkChainEvent,
  PoolSnapshot,
  SubnetSnapshot,
  ValidatorRootStakes,
  ValidatorSetSnapshot,
} from "@platform/proto/events/v1/chain_network";
import { TOPICS } from "@platform/proto/topics";
import {
  addEpoch,
  DATA_PREFIX,
  decodeYieldIndex,
  encodeYieldIndex,
  epochIncrement,
  MARKET_SERIES_PREFIX,
  ordinalOf,
  readModelVersionKeys,
  type SeriesPoint,
  snapshotPointOf,
  subnetsKeys,
  subnetsSeriesKeptAs,
} from "@platform/read-models";
import type { Signals } from "@platform/signals";
import { execPipeline, type Redis } from "@platform/store";
import { newestRef, queueDataChanges } from "../shared/dataChangeLog.js";
import { eventBytesOr, skippable } from "../shared/eventBytes.js";
import { netuidOfKey, refPosition } from "../shared/eventRefs.js";
import { foldSeries, type NewPoint } from "../shared/series.js";
import { blockSpan, replaceStateHash, writeRemovalsHistory, writeSeriesHistory } from "../shared/seriesHistory.js";
import { restoreSeries } from "../shared/seriesRestore.js";
import type { SeriesState } from "../shared/seriesState.js";
import { type LoadedSeries, type PendingSeries, queueSeriesWrites, type SeriesLayout } from "../shared/seriesStore.js";
import { snapshotProjection } from "../shared/snapshotProjection.js";
import { queueMembership, queueRemovals, type RemovalChange } from "../shared/subnetRemovals.js";
import { advanceToRef, type ReadModelMetrics } from "../supervisor/readModelMetrics.js";
import { addChunk, decodeChunk, decodedSet, dropChunks, type PendingChunks, resolveHolderDeltas } from "./holders.js";
import { type SubnetsKind, subnetsLayout } from "./keys.js";
import { queueRankings } from "./rankings.js";

type SubnetsChange =
  | {
      kind: "snapshot";
      what: Exclude<SubnetsKind, "holders" | "yieldIndex">;
      netuid: number;
      point: NewPoint;
      ref?: ChainRef;
      /** A metagraph of its subnet's epoch block: each hotkey's yield index increment (yieldIndex.ts). */
      epoch?: ReadonlyMap<string, bigint>;
    }
  | { kind: "chunk"; netuid: number; chunk: HolderPositions }
  | { kind: "removed"; what: SubnetsKind; netuid: number; block: number; hash: string }
  | RemovalChange;

/** The series a removed event's point stands in (a metagraph stands whole and as its flags). */
const REMOVED_KINDS: Record<string, SubnetsKind[]> = {
  SubnetSnapshot: ["subnet"],
  ValidatorSetSnapshot: ["validators", "validatorFlags", "yieldIndex"],
  ValidatorRootStakes: ["rootStakes"],
  PoolSnapshot: ["pool"],
  EmissionSnapshot: ["emission"],
  HolderPositions: ["holders"],
};

/** A metagraph cut to what `subnets/latest` counts and `holders/top` names: each neuron's uid, permit and activity, and its coldkey and identity name where it has one. */
function validatorFlags(snapshot: ValidatorSetSnapshot): ValidatorSetSnapshot {
  return ValidatorSetSnapshot.fromPartial({
    ref: snapshot.ref,
    netuid: snapshot.netuid,
    neurons: snapshot.neurons.map((neuron) => ({
      uid: neuron.uid,
      validatorPermit: neuron.validatorPermit,
      active: neuron.active,
      ...(neuron.identity?.name ? { coldkey: neuron.coldkey, identity: { name: neuron.identity.name } } : {}),
    })),
  });
}

/**
 * The yield index increments of a metagraph published at its subnet's epoch block (the block is
 * LastMechansimStepBlock): what the epoch paid each hotkey's nominators per unit of stake weight.
 * Only hotkeys that earned something; none for a metagraph between epochs (its dividends are the
 * last epoch's, already counted).
 */
function epochOf(snapshot: ValidatorSetSnapshot): { epoch?: ReadonlyMap<string, bigint> } {
  if (snapshot.lastEpochBlock === undefined || snapshot.lastEpochBlock !== snapshot.ref?.blockNumber) return {};
  const increments = new Map<string, bigint>();
  for (const neuron of snapshot.neurons) {
    const hotkey = neuron.hotkey?.publicKey;
    if (hotkey === undefined || neuron.hotkeyDividendsNalpha === undefined) continue;
    const increment = epochIncrement(
      {
        dividendsNalpha: neuron.hotkeyDividendsNalpha,
        take: neuron.take,
        alphaStakeNalpha: neuron.alphaStakeNalpha,
        rootStakeRao: neuron.rootStakeRao,
      },
      snapshot.taoWeight,
    );
    // A hotkey on several UIDs is one stake: counted once.
    if (increment > 0n) increments.set(hotkey, increment);
  }
  return increments.size === 0 ? {} : { epoch: increments };
}

const pointOf = (ref: Parameters<typeof refPosition>[0], bytes: Uint8Array): NewPoint => {
  const { block, hash, time } = refPosition(ref);
  return { o: ordinalOf(block), b: block, h: hash, t: time, p: Buffer.from(bytes).toString("base64") };
};

/** The chain.network.v1 events the subnets projection reads (others are skipped undecoded). */
const SUBNETS_EVENT_TYPES = new Set([
  "SubnetSnapshot",
  "ValidatorSetSnapshot",
  "ValidatorRootStakes",
  "PoolSnapshot",
  "EmissionSnapshot",
  "HolderPositions",
  "SubnetRemoved",
  "ChainEventRemoved",
]);

function decodeSubnetsBatch(messages: readonly ConsumedRecord[], log: Logger): SubnetsChange[] {
  const changes: SubnetsChange[] = [];
  for (const message of messages) {
    if (message.value === null || message.topic !== TOPICS.chainNetwork.name) continue;
    if (skippable(message, SUBNETS_EVENT_TYPES)) continue;
    try {
      const event = NetworkChainEvent.decode(message.value).event;
      if (event === undefined) throw new Error("no event in the record");
      switch (event.$case) {
        case "subnetSnapshot":
          changes.push({
            kind: "snapshot",
            what: "subnet",
            netuid: event.value.netuid,
            point: pointOf(
              event.value.ref,
              eventBytesOr(message, () => SubnetSnapshot.encode(event.value).finish()),
            ),
            ref: event.value.ref,
          });
          break;
        case "validatorSetSnapshot":
          changes.push({
            kind: "snapshot",
            what: "validators",
            netuid: event.value.netuid,
            point: pointOf(
              event.value.ref,
              eventBytesOr(message, () => ValidatorSetSnapshot.encode(event.value).finish()),
            ),
            ref: event.value.ref,
            ...epochOf(event.value),
          });
          changes.push({
            kind: "snapshot",
            what: "validatorFlags",
            netuid: event.value.netuid,
            point: pointOf(event.value.ref, ValidatorSetSnapshot.encode(validatorFlags(event.value)).finish()),
            ref: event.value.ref,
          });
          break;
        case "validatorRootStakes":
          changes.push({
            kind: "snapshot",
            what: "rootStakes",
            netuid: event.value.netuid,
            point: pointOf(
              event.value.ref,
              eventBytesOr(message, () => ValidatorRootStakes.encode(event.value).finish()),
            ),
            ref: event.value.ref,
          });
          break;
        case "poolSnapshot":
          changes.push({
            kind: "snapshot",
            what: "pool",
            netuid: event.value.netuid,
            point: pointOf(
              event.value.ref,
              eventBytesOr(message, () => PoolSnapshot.encode(event.value).finish()),
            ),
            ref: event.value.ref,
          });
          break;
        case "emissionSnapshot":
          changes.push({
            kind: "snapshot",
            what: "emission",
            netuid: event.value.netuid,
            point: pointOf(
              event.value.ref,
              eventBytesOr(message, () => EmissionSnapshot.encode(event.value).finish()),
            ),
            ref: event.value.ref,
          });
          break;
        case "holderPositions":
          refPosition(event.value.ref);
          changes.push({ kind: "chunk", netuid: event.value.netuid, chunk: event.value });
          break;
        case "subnetRemoved": {
          const { block, hash } = refPosition(event.value.ref);
          changes.push({ kind: "subnetRemoved", netuid: event.value.netuid, block, hash });
          break;
        }
        case "chainEventRemoved": {
          if (event.value.removedEventType === "SubnetRemoved") {
            const { block, hash } = refPosition(event.value.removed);
            changes.push({ kind: "removed", what: "subnetRemoved", netuid: netuidOfKey(event.value.key), block, hash });
            break;
          }
          const kinds = REMOVED_KINDS[event.value.removedEventType];
          if (kinds === undefined) break;
          const { block, hash } = refPosition(event.value.removed);
          for (const what of kinds)
            changes.push({ kind: "removed", what, netuid: netuidOfKey(event.value.key), block, hash });
          break;
        }
        default:
          break;
      }
    } catch (error) {
      log.error(
        { topic: message.topic, partition: message.partition, offset: message.offset, err: error },
        "undecodable subnets record; skipped",
      );
    }
  }
  return changes;
}

/**
 * The subnets projection: snapshot series per subnet (keys.ts), holder chunks assembled into whole
 * sets, and the holder rankings of the newest set. A ChainEventRemoved takes its snapshot out of
 * its series (the previous one stands again, and the rankings follow the holder set that stands).
 * Each commit is announced on `signals` as `readmodel.changed.subnets` (shared/snapshotProjection.ts).
 */
export function subnetsProjection(options: {
  redis: Redis;
  /** The history database: every point is kept there as well (shared/seriesHistory.ts). */
  history?: HistoryDb | undefined;
  log: Logger;
  signals?: Signals;
  /** Waited for between each commit and its signal (shared/commitReplication.ts). */
  replication?: CommitReplication | undefined;
  /** Told the newest block of each commit (`read_model_as_of_*{read_model="subnets"}`). */
  readModels?: ReadModelMetrics;
}): SupervisedProjection {
  const { redis, log } = options;
  return snapshotProjection<SubnetsChange, SubnetsPlan>({
    name: "subnets",
    redis,
    log,
    offsetKey: subnetsKeys.offset,
    versionKey: readModelVersionKeys.subnets,
    decode: decodeSubnetsBatch,
    signals: options.signals,
    replication: options.replication,
    committed: (changes) => advanceToRef(options.readModels, "subnets", batchHead(changes)),
    plan: (changes, state) => planSubnets(changes, state, log),
    // The market keeps these snapshots point for point in PostgreSQL (read-models historySeries.ts).
    inHistory: (change) => !((change.kind === "snapshot" || change.kind === "removed") && keptByMarket(change.what)),
    blocksOf: (changes) =>
      blockSpan(
        changes.flatMap((change) =>
          change.kind === "snapshot"
            ? [change.point.b]
            : change.kind === "chunk"
              ? [Number(change.chunk.ref?.blockNumber ?? 0)]
              : [],
        ),
      ),
    async queueRedis(plan, changes) {
      const { chunks, loaded, removals, identityChecks } = plan;
      const rankedNetuids = plan.pending.filter((entry) => entry.what === "holders").map((entry) => entry.netuid);
      if (rankedNetuids.length > 0) await redis.watch(...rankedNetuids.map(subnetsKeys.holderRanked));
      const ranked = rankedNetuids.length === 0 ? [] : await redis.mget(...rankedNetuids.map(subnetsKeys.holderRanked));
      const rankedOf = new Map(rankedNetuids.map((netuid, index) => [netuid, ranked[index] ?? null]));
      return (multi) => {
        for (const [netuid, map] of chunks) {
          const key = subnetsKeys.holderChunks(netuid);
          multi.del(key);
          if (map.size > 0) multi.hset(key, Object.fromEntries(encodedChunks(map)));
        }
        const folds = queueSeriesWrites(multi, loaded);
        const newestOf = (what: SubnetsKind, netuid: number): SeriesPoint | undefined | null => {
          const fold = folds.get(subnetsLayout(what, netuid).points);
          if (fold === undefined) return null;
          return fold.folded.points.at(-1) ?? fold.base;
        };
        for (const netuid of rankedNetuids) {
          const newest = newestOf("holders", netuid);
          if (newest === null) continue;
          const tag = newest === undefined ? null : `${newest.o}:${newest.h}`;
          if (tag === rankedOf.get(netuid)) continue;
          const set = newest === undefined ? undefined : decodedSet(plan.decodedSets, newest.p);
          queueRankings(multi, netuid, set, rankedSet(plan, netuid, rankedOf.get(netuid) ?? null));
          if (tag === null || set === undefined)
            multi.del(subnetsKeys.holderRanked(netuid), subnetsKeys.holderRankedHead(netuid));
          else {
            multi.set(subnetsKeys.holderRanked(netuid), tag);
            multi.set(
              subnetsKeys.holderRankedHead(netuid),
              JSON.stringify({ tag, ref: set.ref, coverage: set.coverage }),
            );
          }
        }
        queueRemovals(multi, subnetsKeys.removedSubnets, removals);
        // A subnet is known while either its subnet snapshot or its metagraph stands, newer than its removal (checked after the writes above).
        for (const netuid of identityChecks) {
          queueMembership(multi, {
            seriesKeys: [subnetsLayout("subnet", netuid).points, subnetsLayout("validators", netuid).points],
            setKey: subnetsKeys.netuids,
            removalsKey: subnetsKeys.removedSubnets,
            netuid,
          });
        }
        queueDataChanges(multi, { readModel: "subnets", head: batchHead(changes) });
      };
    },
    history: options.history,
    restore: (history) =>
      restoreSeries({
        projection: "subnets",
        redis,
        history,
        log,
        seriesPrefix: `${DATA_PREFIX}subnets:`,
        layoutOf: subnetsLayoutOf,
        stateKind: () => "hash",
        offsetKey: subnetsKeys.offset,
        versionKey: readModelVersionKeys.subnets,
        // Pools and emissions from the market's series (read-models historySeries.ts).
        borrowed: { prefix: MARKET_SERIES_PREFIX, keyOf: subnetsSeriesKeptAs, pointOf: snapshotPointOf },
        derive: (newest) => deriveSubnets(redis, newest),
      }).then(() => undefined),
    async writeHistory(tx, plan, partitions) {
      await writeSeriesHistory(tx, partitions, plan.loaded);
      await writeRemovalsHistory(tx, "subnets", subnetsKeys.removedSubnets, plan.removals);
      for (const [netuid, map] of plan.chunks)
        await replaceStateHash(tx, "subnets", subnetsKeys.holderChunks(netuid), new Map(encodedChunks(map)));
    },
  });
}

/** The series whose history the market projection keeps (its pools and emissions). */
const keptByMarket = (what: SubnetsKind | "subnetRemoved"): boolean => what === "pool" || what === "emission";

/** The newest block a batch's records name: the subnets read model's new `as_of`. */
function batchHead(changes: readonly SubnetsChange[]): ChainRef | undefined {
  return newestRef(
    changes.map((change) =>
      change.kind === "snapshot" ? change.ref : change.kind === "chunk" ? change.chunk.ref : undefined,
    ),
  );
}

type SubnetsSeries = PendingSeries & { what: SubnetsKind; netuid: number };

/** What a subnets batch writes, decided against one store's copy (its pending holder chunks and series tails). */
interface SubnetsPlan {
  pending: SubnetsSeries[];
  loaded: LoadedSeries[];
  /** The pending holder chunks of each subnet the batch touched, after it. */
  chunks: Map<number, PendingChunks>;
  removals: RemovalChange[];
  /** Subnets whose listing may have changed. */
  identityChecks: number[];
  /** Holder sets decoded while planning, by their point's `p` (holders.ts decodedSet). */
  decodedSets: Map<string, HolderPositions>;
}

/** Sorts a batch's changes into series operations in offset order, assembling holder sets from their chunks. */
async function planSubnets(changes: readonly SubnetsChange[], state: SeriesState, log: Logger): Promise<SubnetsPlan> {
  const pending = new Map<string, SubnetsSeries>();
  /** The yield index points among the ops, by their placeholder point: their epoch's increments. */
  const epochs = new Map<NewPoint, ReadonlyMap<string, bigint>>();
  /** The holder deltas among the ops, by their (placeholder) point: whole sets once resolved. */
  const deltas = new Map<NewPoint, HolderPositions>();
  const series = (what: SubnetsKind, netuid: number) => {
    const layout = subnetsLayout(what, netuid);
    let entry = pending.get(layout.points);
    if (entry === undefined) {
      entry = { what, netuid, layout, ops: [] };
      pending.set(layout.points, entry);
    }
    return entry;
  };
  const removals = changes.filter(
    (change): change is RemovalChange =>
      change.kind === "subnetRemoved" || (change.kind === "removed" && change.what === "subnetRemoved"),
  );
  const chunkNetuids = [
    ...new Set(
      changes
        .filter((change) => change.kind === "chunk" || (change.kind === "removed" && change.what === "holders"))
        .map((change) => change.netuid),
    ),
  ];
  const stored = await state.hashes(chunkNetuids.map(subnetsKeys.holderChunks));
  const chunks = new Map<number, PendingChunks>(
    chunkNetuids.map((netuid, index) => [
      netuid,
      new Map([...(stored[index] ?? new Map<string, string>())].map(([field, text]) => [field, decodeChunk(text)])),
    ]),
  );
  for (const change of changes) {
    if (change.kind === "subnetRemoved" || (change.kind === "removed" && change.what === "subnetRemoved")) continue;
    if (change.kind === "snapshot") {
      series(change.what, change.netuid).ops.push({ kind: "add", point: change.point });
      if (change.epoch === undefined) continue;
      // Its payload waits for the index standing before it (once the series is loaded).
      const point: NewPoint = { ...change.point, p: "" };
      epochs.set(point, change.epoch);
      series("yieldIndex", change.netuid).ops.push({ kind: "add", point });
    } else if (change.kind === "chunk") {
      const set = addChunk(chunks.get(change.netuid)!, change.chunk);
      if (set === undefined) continue;
      const point: NewPoint = pointOf(set.ref, HolderPositions.encode(set).finish());
      if (set.baseDigest !== undefined) {
        point.d = 1;
        deltas.set(point, set);
      }
      series("holders", change.netuid).ops.push({ kind: "add", point });
    } else {
      if (change.what === "holders") dropChunks(chunks.get(change.netuid)!, change.hash);
      series(change.what, change.netuid).ops.push({ kind: "remove", block: change.block, hash: change.hash });
    }
  }
  const entries = [...pending.values()];
  const identityChecks = [
    ...new Set([
      ...entries.filter((entry) => entry.what === "subnet" || entry.what === "validators").map((entry) => entry.netuid),
      ...removals.map((removal) => removal.netuid),
    ]),
  ];
  const loaded = await state.loadSeries(entries);
  for (const entry of epochs.size === 0 ? [] : loaded) fillYieldIndex(entry, epochs);
  const decodedSets = new Map<string, HolderPositions>();
  const holderSeries = new Set(entries.filter((entry) => entry.what === "holders").map((entry) => entry.layout.points));
  // The history database keeps the deltas themselves (read-models holderPoints.ts rebuilds the sets).
  for (const entry of deltas.size === 0 || state.store === "postgres" ? [] : loaded) {
    if (!holderSeries.has(entry.layout.points)) continue;
    for (const skipped of resolveHolderDeltas(entry, deltas, decodedSets, entry.layout.keepPoints))
      log.warn(
        { netuid: skipped.netuid, block: skipped.ref?.blockNumber, hash: skipped.ref?.blockHash },
        "holder delta skipped: its base is not the subnet's newest set; the holders wait for the subnet's next keyframe",
      );
  }
  return { pending: entries, loaded, chunks, removals, identityChecks, decodedSets };
}

/**
 * Writes each yield index point of a loaded series: the index standing just before it (the series'
 * stored points with the batch's earlier operations applied, removals of reorganised epochs
 * included) plus its epoch's increments. The same fold in either store gives the same points.
 */
function fillYieldIndex(entry: LoadedSeries, epochs: ReadonlyMap<NewPoint, ReadonlyMap<string, bigint>>): void {
  entry.ops.forEach((op, at) => {
    if (op.kind !== "add") return;
    const increments = epochs.get(op.point);
    if (increments === undefined) return;
    const before = foldSeries(entry.loaded, entry.ops.slice(0, at), []);
    const standing = [entry.loaded.base, ...before.points]
      .filter((point) => point !== undefined && point.o < op.point.o)
      .at(-1);
    const previous = standing === undefined ? undefined : decodeYieldIndex(standing);
    op.point.p = encodeYieldIndex(addEpoch(previous, op.point.b, increments));
  });
}

/** Pending chunks as both stores keep them: base64 HolderPositions by `<blockHash>:<chunkIndex>`. */
function encodedChunks(map: PendingChunks): [string, string][] {
  return [...map].map(([field, chunk]) => [
    field,
    Buffer.from(HolderPositions.encode(chunk).finish()).toString("base64"),
  ]);
}

/** The holder set the stored ranking of `netuid` was made from (tag `<ordinal>:<hash>`), if the batch loaded its point. */
function rankedSet(plan: SubnetsPlan, netuid: number, tag: string | null): HolderPositions | undefined {
  if (tag === null) return undefined;
  const series = plan.loaded.find((entry) => entry.layout.points === subnetsLayout("holders", netuid).points);
  if (series === undefined) return undefined;
  const point = [series.loaded.base, ...series.loaded.tail].find(
    (candidate) => candidate !== undefined && `${candidate.o}:${candidate.h}` === tag,
  );
  return point === undefined ? undefined : decodedSet(plan.decodedSets, point.p);
}

/** What Redis derives after a restore: the subnets listed, and each subnet's holder ranking from its newest set. */
async function deriveSubnets(redis: Redis, newest: ReadonlyMap<string, SeriesPoint>): Promise<void> {
  const netuids = new Set<number>(Object.keys(await redis.hgetall(subnetsKeys.removedSubnets)).map(Number));
  const multi = redis.multi();
  for (const [key, point] of newest) {
    const found = /:subnets:([a-z-]+):(\d+):points$/.exec(key);
    if (found === null) continue;
    const netuid = Number(found[2]);
    if (found[1] === "subnet" || found[1] === "validators") netuids.add(netuid);
    if (found[1] !== "holders") continue;
    const set = HolderPositions.decode(Buffer.from(point.p, "base64"));
    queueRankings(multi, netuid, set, undefined);
    const tag = `${point.o}:${point.h}`;
    multi.set(subnetsKeys.holderRanked(netuid), tag);
    multi.set(subnetsKeys.holderRankedHead(netuid), JSON.stringify({ tag, ref: set.ref, coverage: set.coverage }));
  }
  for (const netuid of netuids)
    queueMembership(multi, {
      seriesKeys: [subnetsLayout("subnet", netuid).points, subnetsLayout("validators", netuid).points],
      setKey: subnetsKeys.netuids,
      removalsKey: subnetsKeys.removedSubnets,
      netuid,
    });
  await execPipeline(multi);
}

/** A subnets series' layout from its points key (keys.ts), for the restore. */
function subnetsLayoutOf(key: string): SeriesLayout | undefined {
  const prefix = `${DATA_PREFIX}subnets:`;
  const found = key.startsWith(prefix) ? /^([a-z-]+):(\d+):points$/.exec(key.slice(prefix.length)) : null;
  if (found === null) return undefined;
  const kind = SUBNETS_KIND_OF_KEY[found[1]!];
  return kind === undefined ? undefined : subnetsLayout(kind, Number(found[2]));
}

/** The key segment of each series kind (libs/read-models subnets.ts). */
const SUBNETS_KIND_OF_KEY: Record<string, SubnetsKind> = {
  subnet: "subnet",
  validators: "validators",
  "validator-flags": "validatorFlags",
  "validator-root-stakes": "rootStakes",
  pool: "pool",
  emission: "emission",
  holders: "holders",
  "yield-index": "yieldIndex",
};
