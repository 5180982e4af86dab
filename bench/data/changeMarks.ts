// When the Data API's read models last changed, as the projections say it: each commit of the
// accounts, market and subnets projections appends to the data change log (rm:{data}:changes) in the
// same MULTI/EXEC as the change, and the same commit signals the gateway to drop the kept answers it
// makes stale. bench/data's mix splits its latencies by it (mixLoad.ts): the requests in flight
// within a second after a change meet the misses a block (or a price round) causes.
import { createRedis } from "@platform/store";
import { monotonicMicros } from "../src/cpuProfile.js";

export interface ChangeMarks {
  /** `performance.now()` of the newest change seen, undefined before the first. */
  lastAt(): number | undefined;
  /** Changes seen (stream entries) since the start. */
  count(): number;
  /**
   * When each batch of changes was seen, in microseconds of the monotonic clock, the clock V8's CPU
   * profiles (`--cpu-prof`) time their samples by: profileSummary.ts splits a profile by them.
   */
  monotonicMicros(): number[];
  stop(): Promise<void>;
}

const CHANGE_LOG = "rm:{data}:changes";

/** Follows the data change log from its tail with a blocking XREAD on a connection of its own. */
export function watchChangeMarks(redisUrl: string): ChangeMarks {
  const redis = createRedis({ url: redisUrl, connectionName: "bench-change-marks" });
  let lastAt: number | undefined;
  let count = 0;
  const seenAt: number[] = [];
  let stopped = false;
  const follow = async () => {
    let after = "$";
    while (!stopped) {
      let answer: Array<[string, Array<[string, string[]]>]> | null;
      try {
        answer = (await redis.xread("COUNT", 1_000, "BLOCK", 500, "STREAMS", CHANGE_LOG, after)) as typeof answer;
      } catch {
        // Not connected yet (the client queues nothing offline): wait, or this loop never yields to the I/O.
        await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      const entries = answer?.[0]?.[1] ?? [];
      if (entries.length === 0) continue;
      lastAt = performance.now();
      seenAt.push(monotonicMicros());
      count += entries.length;
      after = entries[entries.length - 1]![0];
    }
  };
  const following = follow();
  return {
    lastAt: () => lastAt,
    count: () => count,
    monotonicMicros: () => [...seenAt],
    async stop() {
      stopped = true;
      await following;
      redis.disconnect();
    },
  };
}
