import type { PoolSnapshot } from "@platform/proto/events/v1/chain_network";
import type { FlowCounters, SeriesPoint } from "@platform/read-models";

/** A pool's volume at a snapshot, as the answer shows it. */
export interface PoolVolume {
  /** volume_total_rao: the snapshot's `SubnetVolume`, else the running volume the projector kept. */
  totalRao?: string;
  /** volume_since_block: the block the running volume counts from (absent with `SubnetVolume`). */
  sinceBlock?: string;
  /** The series' cumulative counter at the snapshot, which its buckets keep: the 24 h volume's end. */
  counterRao?: string;
  /** The series' order-flow counters at the snapshot (buys and sells), which its buckets keep too. */
  flow?: FlowCounters;
}

/**
 * The volume of a pool snapshot: the runtime's own `SubnetVolume` where it keeps one; otherwise the
 * projector's running sum of the snapshots' block volumes (read-models `RunningVolume`), counted
 * from the first block of its run. The cumulative counter (the point's measure) is the series'
 * monotone one, the same the buckets keep, so `volume_24h_rao` differences it with them.
 */
export function poolVolumeOf(
  snapshot: Pick<PoolSnapshot, "volumeTotalRao">,
  point: Pick<SeriesPoint, "m" | "w"> | undefined,
): PoolVolume {
  const counter = {
    ...(point?.m?.cumulative === undefined ? {} : { counterRao: point.m.cumulative }),
    ...(point?.m?.flow === undefined ? {} : { flow: point.m.flow }),
  };
  if (snapshot.volumeTotalRao !== undefined)
    return { totalRao: snapshot.volumeTotalRao, counterRao: point?.m?.cumulative ?? snapshot.volumeTotalRao };
  if (point?.w === undefined) return counter;
  return { totalRao: point.w.v, sinceBlock: String(point.w.s), ...counter };
}
