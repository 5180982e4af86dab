import type { RateLimiter } from "../../access/rateLimiter.js";

export type KeyEnd = "revoked" | "rotated";

export interface KeyWatch {
  /** Calls `ended` once the key is revoked or its secret rotated; returns the way to stop watching. */
  watch(keyId: string, credential: { secretVersion: number; tier: string }, ended: (why: KeyEnd) => void): () => void;
  close(): void;
}

/**
 * Checks the keys of open event streams again every `intervalMs`, one rate-limit script call per
 * key (cost 0: it reads the key's status and spends nothing), however many streams each holds: a
 * revoked or rotated key's streams end within one interval.
 */
export function createKeyWatch(limiter: RateLimiter, intervalMs: number, onError: (error: unknown) => void): KeyWatch {
  const byKey = new Map<
    string,
    { keyId: string; secretVersion: number; tier: string; listeners: Set<(why: KeyEnd) => void> }
  >();
  const check = async () => {
    await Promise.all(
      [...byKey].map(async ([id, entry]) => {
        const verdict = await limiter.admit(entry.keyId, entry.secretVersion, entry.tier, 0);
        if (verdict.kind !== "revoked" && verdict.kind !== "rotated") return;
        byKey.delete(id);
        for (const listener of entry.listeners) listener(verdict.kind);
      }),
    ).catch(onError);
  };
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void check().finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return {
    watch(keyId, credential, ended) {
      const id = `${keyId}\n${credential.secretVersion}`;
      let entry = byKey.get(id);
      if (entry === undefined) {
        entry = { keyId, secretVersion: credential.secretVersion, tier: credential.tier, listeners: new Set() };
        byKey.set(id, entry);
      }
      const listeners = entry.listeners;
      listeners.add(ended);
      return () => {
        listeners.delete(ended);
        if (listeners.size === 0 && byKey.get(id)?.listeners === listeners) byKey.delete(id);
      };
    },
    close: () => clearInterval(timer),
  };
}
