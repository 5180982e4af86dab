import { inSpan, isTracingEnabled, ROOT_CONTEXT, SpanKind } from "@platform/telemetry";
import type { BlockFollower, FollowerCommit } from "./blockFollower.js";

/**
 * The root span of the event path: a step's blocks read and published (its Kafka transaction,
 * whose records carry the trace on to the projections, is a child). It starts when the step
 * started reading, and covers the commit. Idle polls make no span. Nothing at all while tracing
 * is off.
 */
export interface IngestTracing {
  /** The follower, noting when each step starts reading. */
  follower(follower: BlockFollower): BlockFollower;
  /** Runs a step's commit inside its span. */
  commit<E>(step: FollowerCommit<E>, run: () => Promise<void>): Promise<void>;
}

export function ingestTracing(source: string, chainId: number): IngestTracing {
  if (!isTracingEnabled()) return { follower: (follower) => follower, commit: (_step, run) => run() };
  let readStartedAt: number | undefined;
  return {
    follower: (follower) => ({
      tip: () => follower.tip(),
      step: () => {
        readStartedAt = Date.now();
        return follower.step();
      },
    }),
    commit: (step, run) =>
      inSpan(
        `ingest ${source}`,
        {
          kind: SpanKind.INTERNAL,
          parent: ROOT_CONTEXT,
          ...(readStartedAt === undefined ? {} : { startTime: readStartedAt }),
          attributes: {
            "ingest.source": source,
            "chain.id": chainId,
            "ingest.blocks": step.blocks.length,
            "ingest.orphaned_blocks": step.orphaned.length,
            "ingest.tip_block": Number(step.tip.number),
            ...(step.blocks[0] === undefined ? {} : { "ingest.first_block": Number(step.blocks[0].header.number) }),
          },
        },
        run,
      ),
  };
}
