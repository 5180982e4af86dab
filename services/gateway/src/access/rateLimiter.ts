import type { Redis } from "@platform/store";
import { RATE_LIMIT_SCRIPT } from "./rateLimitScript.js";

export interface Tier {
  name: string;
  /** Sustained units per second. */
  ratePerSecond: number;
  /** Units that may be spent at once from a rested budget. */
  burst: number;
}

export type AdmitVerdict =
  | { kind: "allowed"; tier: Tier; remaining: number; resetMs: number }
  | { kind: "limited"; tier: Tier; remaining: number; resetMs: number; retryAfterMs: number }
  | { kind: "revoked" }
  | { kind: "rotated" };

export interface RateLimiter {
  /** Checks the key and spends `cost` units of its tier's budget, atomically, in one round trip. */
  admit(keyId: string, secretVersion: number, tierName: string, cost: number): Promise<AdmitVerdict>;
}

type ScriptResult = [number, number, number, number];
type WithScript = Redis & { admitRequest(authKey: string, limitKey: string, ...args: Array<string | number>): Promise<ScriptResult> };

/** GCRA budgets per key and tier, shared by every gateway replica through Redis. */
export function createRateLimiter(redis: Redis, tiers: readonly Tier[], defaultTier: string): RateLimiter {
  const byName = new Map(tiers.map((tier) => [tier.name, tier]));
  const fallback = byName.get(defaultTier);
  if (!fallback) throw new Error(`the default tier ${defaultTier} is not among the configured tiers`);
  // defineCommand sends EVALSHA and falls back to EVAL once, so the script text crosses the wire rarely.
  redis.defineCommand("admitRequest", { numberOfKeys: 2, lua: RATE_LIMIT_SCRIPT });
  const scripted = redis as WithScript;
  return {
    async admit(keyId, secretVersion, tierName, cost) {
      const tier = byName.get(tierName) ?? fallback;
      const [verdict, remaining, resetMs, retryAfterMs] = await scripted.admitRequest(
        `auth:key:{${keyId}}`,
        `rl:{${keyId}}:default`,
        secretVersion,
        1000 / tier.ratePerSecond,
        tier.burst,
        cost,
      );
      if (verdict === -1) return { kind: "revoked" };
      if (verdict === -2) return { kind: "rotated" };
      if (verdict === 0) return { kind: "limited", tier, remaining, resetMs, retryAfterMs };
      return { kind: "allowed", tier, remaining, resetMs };
    },
  };
}

/** `free=10/20,standard=50/100` → tiers (rate per second / burst). */
export function parseTiers(text: string): Tier[] {
  return text.split(",").map((entry) => {
    const match = /^\s*([a-z][a-z0-9-]*)=(\d+(?:\.\d+)?)\/(\d+)\s*$/.exec(entry);
    if (!match) throw new Error(`'${entry}' is not name=rate/burst`);
    const ratePerSecond = Number(match[2]);
    const burst = Number(match[3]);
    if (ratePerSecond <= 0 || burst < 1) throw new Error(`'${entry}': rate must be positive and burst at least 1`);
    return { name: match[1]!, ratePerSecond, burst };
  });
}
