import { invalidArgument, notFound } from "@platform/errors";
import { type AsOf, type BlockSelector, type ChainRef, Finality } from "@platform/proto/common/v1/common";
import { NetworkStatsSnapshot } from "@platform/proto/events/v1/chain_network";
import { marketKeys, type SeriesPoint } from "@platform/read-models";
import { asOfOf } from "./asOfRef.js";
import { decodePoint, newestPoints } from "./readModel.js";
import { blockBeforeHistory, type SeriesStores, seriesAt } from "./seriesAt.js";

/**
 * Reads of a `latest` route at a past block (`block_number`, issue 41): which block a request is
 * pinned to, and how final it is. The network stats series is the chain's timeline here: the
 * ingestor publishes it at every block it reads, so its first point is the first block followed,
 * its point at a block names that block (hash, time), and its newest point carries the finalized
 * head the ingestor saw (NetworkStatsSnapshot.finalized_block_number).
 */

/** What a read asked for besides the newest block: a block number, or the newest finalized block. */
export type Wanted = { number: number } | "finalized";

/** The request's BlockSelector; undefined for the newest block (no `block_number`). */
export function wantedOf(at: BlockSelector | undefined): Wanted | undefined {
  const block = at?.block;
  if (block === undefined) return undefined;
  if (block.$case === "finalized") return "finalized";
  const number = Number(block.value);
  if (!Number.isSafeInteger(number))
    throw invalidArgument("INVALID_PARAMETER", "block_number must be a block number or finalized", {
      parameter: "block_number",
    });
  return { number };
}

/** The block a read is pinned to. */
export interface Pin {
  block: number;
  /** The network snapshot at that block (its hash and time name the block when a route's own series skips it). */
  stats: SeriesPoint;
  /** Every block at or below this one is final, as the newest network snapshot says. */
  finalizedThrough: number | undefined;
}

/**
 * Pins `wanted` below `head`, the newest block the route's own series reached (what it answers
 * without block_number): a block above it is BLOCK_NOT_YET_INDEXED, `finalized` is the newest
 * finalized block no higher than it, and a block before the first one followed (or older than the
 * stores keep) is BLOCK_BEFORE_HISTORY.
 */
export async function pinBlock(stores: SeriesStores, wanted: Wanted, head: number): Promise<Pin> {
  const [newest] = await newestPoints(stores.redis, [marketKeys.statsPoints]);
  const finalizedThrough = finalizedThroughOf(newest);
  let block: number;
  if (wanted === "finalized") {
    if (finalizedThrough === undefined)
      throw notFound("BLOCK_NOT_YET_INDEXED", "no block is known to be finalized yet; retry shortly", {
        headBlockNumber: head,
      });
    block = Math.min(finalizedThrough, head);
  } else {
    if (wanted.number > head)
      throw notFound("BLOCK_NOT_YET_INDEXED", `block ${wanted.number} is above the newest block indexed, ${head}`, {
        blockNumber: wanted.number,
        headBlockNumber: head,
      });
    block = wanted.number;
  }
  const [stats] = await seriesAt(stores, [marketKeys.statsPoints], block);
  if (stats === undefined) throw blockBeforeHistory(block, "the first block followed");
  return { block, stats, finalizedThrough };
}

function finalizedThroughOf(point: SeriesPoint | undefined): number | undefined {
  if (point === undefined) return undefined;
  const through = decodePoint(point, NetworkStatsSnapshot).finalizedBlockNumber;
  return through === undefined ? undefined : Number(through);
}

/**
 * The as_of of an answer read at `pin` from a snapshot taken at `ref`: final when its block is at
 * or below the finalized head, else as final as the snapshot said when it was published.
 */
export function asOfPinned(ref: ChainRef | undefined, pin: Pin | undefined): AsOf {
  const asOf = asOfOf(ref);
  if (pin?.finalizedThrough !== undefined && Number(asOf.blockNumber) <= pin.finalizedThrough)
    asOf.finality = Finality.FINALITY_FINALIZED;
  return asOf;
}

/** The lowest of the series' newest blocks: what a list answers at without block_number. */
export function lowestBlock(points: readonly (SeriesPoint | undefined)[]): number | undefined {
  const blocks = points.filter((point): point is SeriesPoint => point !== undefined).map((point) => point.b);
  return blocks.length === 0 ? undefined : Math.min(...blocks);
}

/**
 * What a cursor's scope adds for the block asked for: a walk started at one block (or at the
 * finalized one) is not continued at another. Nothing for the newest block, so cursors issued
 * before block_number existed stay valid.
 */
export function blockScope(at: BlockSelector | undefined): string[] {
  const wanted = wantedOf(at);
  return wanted === undefined ? [] : [wanted === "finalized" ? "finalized" : `block:${wanted.number}`];
}
