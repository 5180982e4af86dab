import { setTimeout as sleep } from "node:timers/promises";
import type { BlockFollower, StepOutcome } from "./blockFollower.js";

export interface FollowLoopOptions {
  follower: BlockFollower;
  /** Wait between polls once caught up; about the chain's block time. */
  pollIntervalMs: number;
  signal: AbortSignal;
  onStep?: (outcome: StepOutcome) => void;
  /**
   * Decides about a failed step: "retry" (the node blinked: try again after a pause) or "stop"
   * (the loop rejects with the error, e.g. a failed commit whose outcome only Kafka knows).
   */
  onError: (error: unknown, failures: number) => "retry" | "stop";
}

/**
 * Drives a follower: steps back to back while behind (a backlog is worked off at full speed), then
 * once per poll interval. Resolves when the signal aborts.
 */
export async function runFollowLoop(options: FollowLoopOptions): Promise<void> {
  const { follower, signal } = options;
  let failures = 0;
  while (!signal.aborted) {
    let pause = options.pollIntervalMs;
    try {
      const outcome = await follower.step();
      failures = 0;
      options.onStep?.(outcome);
      if (outcome.kind === "reorganised" || (outcome.kind === "advanced" && outcome.tip < outcome.latest)) pause = 0;
    } catch (error) {
      failures += 1;
      if (options.onError(error, failures) === "stop") throw error;
      pause = Math.min(5_000, options.pollIntervalMs * 2 ** Math.min(failures, 5));
    }
    if (pause > 0 && !signal.aborted) await sleep(pause, undefined, { signal }).catch(() => undefined);
  }
}
