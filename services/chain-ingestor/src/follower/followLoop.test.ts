import { DecodeError, TransientError } from "@platform/errors/base";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { BlockFollower, StepOutcome } from "./blockFollower.js";
import { pollInterval, runFollowLoop } from "./followLoop.js";

/** A follower that is always caught up (or as scripted), recording when each poll happened. */
function recordingFollower(outcomes: (() => StepOutcome)[] = []) {
  const polls: number[] = [];
  const follower: BlockFollower = {
    step: async () => {
      polls.push(Date.now());
      return outcomes.shift()?.() ?? { kind: "idle", latest: 10n };
    },
    tip: () => undefined,
  };
  return { follower, polls };
}

const gaps = (times: readonly number[]) => times.slice(1).map((time, index) => time - times[index]!);

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});

afterEach(() => {
  vi.useRealTimers();
});

describe("pollInterval", () => {
  it("answers the expedited pause for the window after expedite, then the normal one again", () => {
    let now = 0;
    const interval = pollInterval({ normalMs: 250, expeditedMs: 50, now: () => now });
    expect(interval.current()).toBe(250);
    interval.expedite(15_000);
    expect(interval.current()).toBe(50);
    // A shorter hint inside the window does not shorten it; a later one extends it.
    now = 10_000;
    interval.expedite(1_000);
    now = 14_999;
    expect(interval.current()).toBe(50);
    now = 15_000;
    expect(interval.current()).toBe(250);
    interval.expedite(15_000);
    now = 29_999;
    expect(interval.current()).toBe(50);
    now = 30_000;
    expect(interval.current()).toBe(250);
    expect(interval.normalMs).toBe(250);
  });
});

describe("runFollowLoop", () => {
  it("expedite: polls every 50 ms for 15 s after a notification, then at the normal interval again", async () => {
    const { follower, polls } = recordingFollower();
    const interval = pollInterval({ normalMs: 1_000 });
    const abort = new AbortController();
    const loop = runFollowLoop({ follower, pollIntervalMs: interval, signal: abort.signal, onError: () => "retry" });

    await vi.advanceTimersByTimeAsync(5_000);
    expect(gaps(polls).every((gap) => gap === 1_000)).toBe(true);
    expect(polls).toHaveLength(6);

    // The notification arrives midway through a normal pause: it ends the pause (the next poll is at
    // once, not in the remaining 500 ms), then polls go 50 ms apart.
    await vi.advanceTimersByTimeAsync(500);
    const hintAt = Date.now();
    interval.expedite(15_000);
    await vi.advanceTimersByTimeAsync(15_000);
    const during = polls.filter((time) => time >= hintAt);
    expect(during[0]).toBe(hintAt);
    const expedited = gaps(during);
    expect(expedited.length).toBeGreaterThan(250);
    expect(expedited.every((gap) => gap === 50)).toBe(true);

    // Once the window has passed, back to the normal interval.
    const windowEnd = hintAt + 15_000;
    await vi.advanceTimersByTimeAsync(5_000);
    const after = polls.filter((time) => time >= windowEnd);
    expect(gaps(after)).toEqual(gaps(after).map(() => 1_000));
    expect(after.length).toBeGreaterThanOrEqual(4);

    abort.abort();
    await loop;
  });

  it("steps back to back while behind, and backs off from the normal interval after errors even when expedited", async () => {
    const behind = (): StepOutcome => ({ kind: "advanced", tip: 5n, latest: 10n });
    const failing = (): StepOutcome => {
      throw new Error("node away");
    };
    const { follower, polls } = recordingFollower([behind, behind, failing, failing]);
    const interval = pollInterval({ normalMs: 200 });
    interval.expedite(60_000);
    const abort = new AbortController();
    const failures: number[] = [];
    const loop = runFollowLoop({
      follower,
      pollIntervalMs: interval,
      signal: abort.signal,
      onError: (_error, count) => (failures.push(count), "retry"),
    });
    await vi.advanceTimersByTimeAsync(1_300);
    // Two steps at once (behind), a third at once after them; back-off 400 ms, then 800 ms; then expedited polls.
    expect(gaps(polls.slice(0, 5))).toEqual([0, 0, 400, 800]);
    expect(failures).toEqual([1, 2]);
    expect(gaps(polls.slice(4, 6))).toEqual([50]);
    abort.abort();
    await loop;
  });

  it("retries after a retryable error, and stops at once after one that says trying again cannot succeed", async () => {
    const transient = (): StepOutcome => {
      throw new TransientError("node away");
    };
    const undecodable = (): StepOutcome => {
      throw new DecodeError("a storage value of the wrong shape");
    };
    const { follower, polls } = recordingFollower([transient, undecodable, transient]);
    const abort = new AbortController();
    const failures: number[] = [];
    const loop = runFollowLoop({
      follower,
      pollIntervalMs: 200,
      signal: abort.signal,
      onError: (_error, count) => (failures.push(count), "retry"),
    });
    const stopped = expect(loop).rejects.toBeInstanceOf(DecodeError);
    await vi.advanceTimersByTimeAsync(5_000);
    await stopped;
    // Tried again 400 ms after the transient failure; not after the undecodable one, though onError said "retry".
    expect(gaps(polls)).toEqual([400]);
    expect(failures).toEqual([1, 2]);
  });

  it("reads a plain number before every pause, and resolves as soon as the signal aborts", async () => {
    const { follower, polls } = recordingFollower();
    const abort = new AbortController();
    let ms = 300;
    const options = {
      follower,
      get pollIntervalMs() {
        return ms;
      },
      signal: abort.signal,
      onError: () => "retry" as const,
    };
    const loop = runFollowLoop(options);
    await vi.advanceTimersByTimeAsync(600);
    // The pause already running keeps its length; the next ones take the new value.
    ms = 100;
    await vi.advanceTimersByTimeAsync(500);
    expect(gaps(polls)).toEqual([300, 300, 300, 100, 100]);
    abort.abort();
    await loop;
  });
});
