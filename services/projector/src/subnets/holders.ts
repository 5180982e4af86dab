import { HolderPositions } from "@platform/proto/events/v1/chain_network";
import { applyHolderSetDelta, holderSetDigest, sameDigest } from "@platform/proto/holderSets";
import { foldSeries, type LoadedTail, type NewPoint, type SeriesOp } from "../shared/series.js";

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

/**
 * Turns the holder deltas among a series' ops into whole sets, in op order: each applies to the
 * newest set before it as the ops so far leave the series (a reorganisation's removal in the same
 * batch included), and only when that set's digest is the delta's base. A delta that finds another
 * set (the topic read from a point its base has left, a set lost) is dropped from the ops and
 * returned: the subnet's holders stand still until its next keyframe.
 */
export function resolveHolderDeltas(
  series: { loaded: LoadedTail; ops: SeriesOp[] },
  deltas: ReadonlyMap<NewPoint, HolderPositions>,
): HolderPositions[] {
  const skipped: HolderPositions[] = [];
  for (let index = 0; index < series.ops.length; index++) {
    const op = series.ops[index]!;
    const delta = op.kind === "add" ? deltas.get(op.point) : undefined;
    if (op.kind !== "add" || delta === undefined) continue;
    const sofar = foldSeries(series.loaded, series.ops.slice(0, index), []);
    const base = [series.loaded.base, ...sofar.points]
      .filter((point) => point !== undefined && point.o < op.point.o)
      .at(-1);
    const baseSet = base === undefined ? undefined : HolderPositions.decode(Buffer.from(base.p, "base64"));
    if (baseSet === undefined || delta.baseDigest === undefined || !sameDigest(digestOf(baseSet), delta.baseDigest)) {
      series.ops.splice(index, 1);
      index -= 1;
      skipped.push(delta);
      continue;
    }
    const { baseDigest: _base, ...keyframe } = delta;
    const whole: HolderPositions = { ...keyframe, positions: applyHolderSetDelta(baseSet.positions, delta.positions) };
    const { d: _delta, ...point } = op.point;
    series.ops[index] = {
      kind: "add",
      point: { ...point, p: Buffer.from(HolderPositions.encode(whole).finish()).toString("base64") },
    };
  }
  return skipped;
}

/** A stored set's digest: carried since deltas, computed for sets stored before. */
const digestOf = (set: HolderPositions) => set.digest ?? holderSetDigest(set.positions);
