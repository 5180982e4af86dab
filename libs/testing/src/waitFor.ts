import { setTimeout as sleep } from "node:timers/promises";

export interface WaitForOptions {
  /** What is awaited, for the error message. */
  what: string;
  timeoutMs?: number;
  intervalMs?: number;
  /** Gives up at once with the signal's reason when it aborts (the awaited process died, say). */
  signal?: AbortSignal;
}

/** Polls `probe` until it resolves truthy; rejects with the last failure once `timeoutMs` passes, or when `signal` aborts. */
export async function waitFor<T>(probe: () => Promise<T | undefined | false>, options: WaitForOptions): Promise<T> {
  const { what, timeoutMs = 30_000, intervalMs = 100, signal } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    signal?.throwIfAborted();
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`, { cause: lastError });
    }
    await sleep(intervalMs, undefined, { signal }).catch(() => undefined);
  }
}
