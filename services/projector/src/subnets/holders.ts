import { HolderPositions } from "@platform/proto/events/v1/chain_network";
import { applyHolderSetDelta, holderSetDigest, sameDigest } from "@platform/proto/holderSets";
import type { LoadedTail, NewPoint, SeriesOp } from "../shared/series.js";

/**
 * Holder sets arrive in chunks (HolderPositions with chunk_index / chunk_count, all of one block).
 * A subnet's holder set is replaced only once every chunk of a block is there. A set with a
 * `baseDigest` is a delta against the subnet's previous set (resolveHolderDeltas).
 */

/** Pending chunks of one subnet, by `<blockHash>:<chunkIndex>`. */
export type PendingChunks = Map<string, HolderPositions>;

export const chunkField = (blockHash: string, index: number) => `${blockHash.toLowerCase()}:${index}`;

/**
 * Adds a chunk. When it completes its block, the chunks of that block (and any older incomplete
 * block, which can no longer complete) leave `pending` and the whole set comes back as one
 * HolderPositions with chunk_count 1 and the positions in chunk order.
 */
export function addChunk(pending: PendingChunks, chunk: HolderPositions): HolderPositions | undefined {
  const ref = chunk.ref;
  if (ref === undefined) throw new Error("holder chunk without ChainRef");
  if (chunk.chunkCount < 1 || chunk.chunkIndex >= chunk.chunkCount)
    throw new Error(`bad chunk ${chunk.chunkIndex}/${chunk.chunkCount}`);
  const hash = ref.blockHash.toLowerCase();
  pending.set(chunkField(hash, chunk.chunkIndex), chunk);
  const ofBlock = [...pending.entries()].filter(([field]) => field.startsWith(`${hash}:`));
  if (ofBlock.length < chunk.chunkCount) return undefined;
  const chunks = ofBlock.map(([, value]) => value).sort((left, right) => left.chunkIndex - right.chunkIndex);
  const block = BigInt(ref.blockNumber);
  for (const [field, value] of [...pending.entries()]) {
    if (field.startsWith(`${hash}:`) || BigInt(value.ref?.blockNumber ?? "0") < block) pending.delete(field);
  }
  return {
    ref,
    netuid: chunk.netuid,
    coverage: chunk.coverage,
    chunkIndex: 0,
    chunkCount: 1,
    positions: chunks.flatMap((value) => value.positions),
    ...(chunk.baseDigest === undefined ? {} : { baseDigest: chunk.baseDigest }),
    ...(chunk.digest === undefined ? {} : { digest: chunk.digest }),
  };
}

/** Drops the pending chunks of a block a reorganisation undid. */
export function dropChunks(pending: PendingChunks, blockHash: string): void {
  const prefix = `${blockHash.toLowerCase()}:`;
  for (const field of [...pending.keys()]) if (field.startsWith(prefix)) pending.delete(field);
}

export const encodeSet = (set: HolderPositions) => Buffer.from(HolderPositions.encode(set).finish()).toString("base64");
export const decodeChunk = (text: string) => HolderPositions.decode(Buffer.from(text, "base64"));

/** A stored set, decoded once per batch: a whole set at mainnet size is ~200 KB of protobuf. */
export function decodedSet(decoded: Map<string, HolderPositions>, p: string): HolderPositions {
  let set = decoded.get(p);
  if (set === undefined) {
    set = decodeChunk(p);
    decoded.set(p, set);
  }
  return set;
}

/**
 * Turns the holder deltas among a series' ops into whole sets, in op order: each applies to the
 * newest set before it as the ops so far leave the series (a reorganisation's removal in the same
 * batch included), and only when that set's digest is the delta's base. A delta that finds another
 * set (the topic read from a point its base has left, a set lost) is dropped from the ops and
 * returned: the subnet's holders stand still until its next keyframe.
 *
 * One walk over the ops, keeping the points that stand as foldSeries would leave them, and each
 * set decoded once at most: a catch-up batch brings hundreds of a subnet's deltas, and folding again
 * before each (as this did) grew with their square.
 *
 * Only the sets among the newest `keep` standing points are encoded (the series keeps no more): a
 * backlog's earlier sets are each the base of the next and nothing else, and encoding every one
 * (~200 KB of protobuf at mainnet size) was the largest part of the subnets projection's own CPU
 * in a catch-up (bench/HISTORY.md, 7 Dec). The others keep a placeholder `p` that never reaches a
 * store.
 */
export function resolveHolderDeltas(
  series: { loaded: LoadedTail; ops: SeriesOp[] },
  deltas: ReadonlyMap<NewPoint, HolderPositions>,
  /** Sets decoded or made here, by their point's `p`: the rankings read them again. */
  decoded: Map<string, HolderPositions> = new Map(),
  /** How many points the series keeps (its layout's keepPoints). */
  keep = Number.POSITIVE_INFINITY,
): HolderPositions[] {
  const skipped: HolderPositions[] = [];
  /** The whole sets made here, by their point, until encoded. */
  const made = new Map<NewPoint, HolderPositions>();
  const setOf = (point: NewPoint) => made.get(point) ?? decodedSet(decoded, point.p);
  const standing: NewPoint[] = series.loaded.tail.map(({ a: _aggregates, n: _counts, ...point }) => point);
  const resolved: SeriesOp[] = [];
  for (const op of series.ops) {
    if (op.kind === "remove") {
      removeStanding(standing, op.block, op.hash);
      resolved.push(op);
      continue;
    }
    const delta = deltas.get(op.point);
    if (delta === undefined) {
      addStanding(standing, op.point);
      resolved.push(op);
      continue;
    }
    const base = newestBefore(series.loaded.base, standing, op.point.o);
    const baseSet = base === undefined ? undefined : setOf(base);
    if (baseSet === undefined || delta.baseDigest === undefined || !sameDigest(digestOf(baseSet), delta.baseDigest)) {
      skipped.push(delta);
      continue;
    }
    const { baseDigest: _base, ...keyframe } = delta;
    const whole: HolderPositions = { ...keyframe, positions: applyHolderSetDelta(baseSet.positions, delta.positions) };
    const { d: _delta, ...point } = op.point;
    const wholePoint: NewPoint = { ...point, p: `${UNENCODED}${point.o}:${point.h}` };
    made.set(wholePoint, whole);
    addStanding(standing, wholePoint);
    resolved.push({ kind: "add", point: wholePoint });
  }
  for (const point of standing.slice(-keep)) {
    const whole = made.get(point);
    if (whole === undefined) continue;
    point.p = Buffer.from(HolderPositions.encode(whole).finish()).toString("base64");
    decoded.set(point.p, whole);
  }
  series.ops.splice(0, series.ops.length, ...resolved);
  return skipped;
}

/** The `p` of a made set that cannot stand in the series after the batch: never stored, never read. */
const UNENCODED = "unencoded:";

/** The newest of the stored base and the standing points below `ordinal`. */
function newestBefore(base: NewPoint | undefined, standing: readonly NewPoint[], ordinal: number) {
  for (let index = standing.length - 1; index >= 0; index--) if (standing[index]!.o < ordinal) return standing[index];
  return base !== undefined && base.o < ordinal ? base : undefined;
}

/** As foldSeries applies an add: the point replaces any of its ordinal, in ordinal order. */
function addStanding(standing: NewPoint[], point: NewPoint): void {
  const at = standing.findIndex((entry) => entry.o >= point.o);
  if (at === -1) standing.push(point);
  else standing.splice(at, standing[at]!.o === point.o ? 1 : 0, point);
}

/** As foldSeries applies a remove: the points of that block and hash leave. */
function removeStanding(standing: NewPoint[], block: number, hash: string): void {
  for (let index = standing.length - 1; index >= 0; index--)
    if (standing[index]!.b === block && standing[index]!.h === hash) standing.splice(index, 1);
}

/** A stored set's digest: carried since deltas, computed for sets stored before. */
const digestOf = (set: HolderPositions) => set.digest ?? holderSetDigest(set.positions);
