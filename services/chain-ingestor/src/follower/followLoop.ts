import { retryDelay } from "@platform/errors/base";
import type { BlockFollower, StepOutcome } from "./blockFollower.js";

/**
 * The pause between polls once caught up, which a hint can shorten for a while: after a
 * notification the transaction is about to be mined, and its block should be read as soon as the
 * node has it.
 */
export interface PollInterval {
  /** The pause before the next poll, read before every pause. */
  current(): number;
  /**
   * Polls every `expeditedMs` for the next `forMs` (extending, never shortening, a running window),
   * and ends a pause already under way: the hint means there is something to read now.
   */
  expedite(forMs: number): void;
  /** The usual pause, the base of the back-off after errors. */
  readonly normalMs: number;
  /** Calls `wake` at every expedite until the returned function is called. */
  onExpedite?(wake: () => void): () => void;
}

export interface PollIntervalOptions {
  /** About the chain's block time. */
  normalMs: number;
  /** While expedited; 50 ms by default. */
  expeditedMs?: number;
  /** Milliseconds since the epoch; Date.now by default. */
  now?: () => number;
}

export function pollInterval(options: PollIntervalOptions): PollInterval {
  const now = options.now ?? Date.now;
  const expeditedMs = options.expeditedMs ?? 50;
  let expeditedUntil = 0;
  const wakers = new Set<() => void>();
  return {
    normalMs: options.normalMs,
    current: () => (now() < expeditedUntil ? expeditedMs : options.normalMs),
    expedite(forMs) {
      expeditedUntil = Math.max(expeditedUntil, now() + forMs);
      for (const wake of [...wakers]) wake();
    },
    onExpedite(wake) {
      wakers.add(wake);
      return () => wakers.delete(wake);
    },
  };
}

export interface FollowLoopOptions {
  follower: BlockFollower;
  /** Wait between polls once caught up: a fixed number (about the chain's block time), or a `PollInterval`. */
  pollIntervalMs: number | PollInterval;
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
  // A number is read before every pause (a caller may still hand a getter in its place).
  const interval: Pick<PollInterval, "current" | "normalMs" | "onExpedite"> =
    typeof options.pollIntervalMs === "number"
      ? {
          current: () => options.pollIntervalMs as number,
          get normalMs() {
            return options.pollIntervalMs as number;
          },
        }
      : options.pollIntervalMs;
  let failures = 0;
  while (!signal.aborted) {
    let pause: number;
    // A pause between polls ends early on a hint; the back-off after errors does not.
    let wakes = false;
    try {
      const outcome = await follower.step();
      failures = 0;
      options.onStep?.(outcome);
      const behind = outcome.kind === "reorganised" || (outcome.kind === "advanced" && outcome.tip < outcome.latest);
      pause = behind ? 0 : interval.current();
      wakes = true;
    } catch (error) {
      failures += 1;
      const delay = retryDelay(error, failures, { firstMs: interval.normalMs, maxMs: 5_000, maxDoublings: 5 });
      // The caller hears of every failure, even one that stops the loop at once (givesUp).
      if (options.onError(error, failures) === "stop" || delay === undefined) throw error;
      pause = delay;
    }
    if (pause > 0 && !signal.aborted) await pauseFor(pause, signal, wakes ? interval.onExpedite : undefined);
  }
}

/**
 * Resolves after `ms`, at once when the signal aborts, or at the next expedite when `onExpedite` is
 * given (on the global timers, so fake timers drive it in tests).
 */
function pauseFor(ms: number, signal: AbortSignal, onExpedite?: (wake: () => void) => () => void): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      stopWaking?.();
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    const stopWaking = onExpedite?.(done);
  });
}
