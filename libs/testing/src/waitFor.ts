import { setTimeout as sleep } from "node:timers/promises";

export interface WaitForOptions {
  /** What is awaited, for the error message. */
  what: string;
  timeoutMs?: number;
  intervalMs?: number;
}

/** Polls `probe` until it resolves truthy; rejects with the last failure once `timeoutMs` passes. */
export async function waitFor<T>(probe: () => Promise<T | undefined | false>, options: WaitForOptions): Promise<T> {
  const { what, timeoutMs = 30_000, intervalMs = 100 } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`, { cause: lastError });
    }
    await sleep(intervalMs);
  }
}
