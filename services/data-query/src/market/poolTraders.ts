import type { PoolSnapshot } from "@platform/proto/events/v1/chain_network";
import { marketKeys, traderBlockPrefix } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { run } from "../shared/readModel.js";

/** A pool's distinct buyers and sellers over the 7,200 blocks through a snapshot's block. */
export interface PoolTraders {
  buyers: number;
  sellers: number;
}

/**
 * The distinct traders the projector counted through each snapshot's block (its traders.ts), read
 * from the pool's `…:traders` zset by block and matched by the snapshot's block hash, so a count of
 * another branch's block never answers. Undefined where there is none: a block the projector
 * keeps no counts of (older than its newest 64 of the pool) or a snapshot without order flow.
 */
export async function poolTradersAt(
  redis: Redis,
  snapshots: readonly Pick<PoolSnapshot, "netuid" | "ref">[],
): Promise<(PoolTraders | undefined)[]> {
  if (snapshots.length === 0) return [];
  const results = await run(redis, (pipeline) => {
    for (const snapshot of snapshots) {
      const block = snapshot.ref?.blockNumber ?? "-1";
      pipeline.zrangebyscore(marketKeys.poolTraderCounts(snapshot.netuid), block, block);
    }
  });
  return snapshots.map((snapshot, index) => {
    if (snapshot.ref === undefined) return undefined;
    const prefix = traderBlockPrefix(snapshot.ref.blockNumber, snapshot.ref.blockHash);
    const member = (results[index] as string[]).find((candidate) => candidate.startsWith(prefix));
    if (member === undefined) return undefined;
    const [buyers, sellers] = member.slice(prefix.length).split(":").map(Number);
    return { buyers: buyers!, sellers: sellers! };
  });
}
