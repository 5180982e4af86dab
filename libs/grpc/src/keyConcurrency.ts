import { resourceExhausted } from "@platform/errors";

export interface KeyConcurrency {
  /** Runs `work` for the key, or refuses at once (429 RATE_LIMITED) when the key already runs `limit`. */
  run<T>(apiKeyId: string, work: () => Promise<T>): Promise<T>;
  /** Calls in progress for the key. */
  running(apiKeyId: string): number;
}

/**
 * How many chain-heavy calls (a preflight is a dozen reads, an eth_call and a gas estimate) one API
 * key may have in progress at once. The gateway's rate limit counts requests per window; this
 * bounds what one key can hold on the chains' quota at any moment, so one client's burst cannot
 * take every slot. Calls without a key id (direct gRPC) share one bucket.
 */
export function createKeyConcurrency(limit: number, what: string): KeyConcurrency {
  const running = new Map<string, number>();
  return {
    async run(apiKeyId, work) {
      const now = running.get(apiKeyId) ?? 0;
      if (now >= limit) {
        throw resourceExhausted(
          "RATE_LIMITED",
          `at most ${limit} ${what} at once per API key; wait for one to finish`,
          { limit },
        );
      }
      running.set(apiKeyId, now + 1);
      try {
        return await work();
      } finally {
        const left = (running.get(apiKeyId) ?? 1) - 1;
        if (left === 0) running.delete(apiKeyId);
        else running.set(apiKeyId, left);
      }
    },
    running: (apiKeyId) => running.get(apiKeyId) ?? 0,
  };
}
