import { projectionsComplete, type Redis } from "@platform/store";
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
  | { kind: "rotated" }
  /** The key is not in auth's registry because the registry itself is being rebuilt (Redis lost it). */
  | { kind: "registry-rebuilding" };

export interface RateLimiter {
  /** Checks the key and spends `cost` units of its tier's budget, atomically, in one round trip. */
  admit(keyId: string, secretVersion: number, tierName: string, cost: number): Promise<AdmitVerdict>;
}

/** auth's registry marker (services/auth/src/registry/keys.ts). */
const AUTH_REGISTRY_MARKER = "auth:registry";

/**
 * The rate-limit script's keys: auth's record of the key (services/auth/src/registry/keys.ts) and
 * its budget. Both carry the key id as their hash tag, so the script touches one Redis Cluster slot.
 */
export const rateLimitKeys = (keyId: string): [authKey: string, budgetKey: string] => [
  `auth:key:{${keyId}}`,
  `rl:{${keyId}}:default`,
];

type WithScript = Redis & {
  admitRequests(authKey: string, limitKey: string, ...args: Array<string | number>): Promise<number[]>;
};

/** The requests of one key, token secret version and tier waiting for this turn's script call. */
interface Batch {
  keyId: string;
  secretVersion: number;
  tier: Tier;
  requests: Array<{ cost: number; settle(verdict: AdmitVerdict): void; fail(error: unknown): void }>;
}

/**
 * GCRA budgets per key and tier, shared by every gateway replica through Redis. The requests of one
 * key that arrive in the same event-loop turn (a client's concurrent calls land together) are
 * admitted by one script call, in order, each with its own verdict: one Redis command and one
 * read-modify-write of the budget instead of one each.
 */
export function createRateLimiter(redis: Redis, tiers: readonly Tier[], defaultTier: string): RateLimiter {
  const byName = new Map(tiers.map((tier) => [tier.name, tier]));
  const fallback = byName.get(defaultTier);
  if (!fallback) throw new Error(`the default tier ${defaultTier} is not among the configured tiers`);
  // defineCommand sends EVALSHA and falls back to EVAL once, so the script text crosses the wire rarely.
  redis.defineCommand("admitRequests", { numberOfKeys: 2, lua: RATE_LIMIT_SCRIPT });
  const scripted = redis as WithScript;
  let batches = new Map<string, Batch>();

  const flush = () => {
    const due = batches;
    batches = new Map();
    for (const batch of due.values()) void run(batch);
  };

  const run = async (batch: Batch) => {
    const { keyId, secretVersion, tier, requests } = batch;
    let flat: number[];
    try {
      flat = await scripted.admitRequests(
        ...rateLimitKeys(keyId),
        secretVersion,
        1000 / tier.ratePerSecond,
        tier.burst,
        ...requests.map((request) => request.cost),
      );
    } catch (error) {
      for (const request of requests) request.fail(error);
      return;
    }
    // An unknown key is revoked only if auth's registry is whole: after Redis lost it, auth
    // replays it from Kafka (its marker, `auth:registry`, says `complete` once it has caught up),
    // and until then a valid token's key may just not be back yet. Rare: revoked keys only.
    if (flat[0] === -1) {
      if (!(await projectionsComplete(redis, [AUTH_REGISTRY_MARKER]).catch(() => false))) {
        for (const request of requests) request.settle({ kind: "registry-rebuilding" });
        return;
      }
    }
    requests.forEach((request, index) => request.settle(verdictOf(flat, index, tier)));
  };

  return {
    admit(keyId, secretVersion, tierName, cost) {
      const tier = byName.get(tierName) ?? fallback;
      const id = `${keyId}\n${secretVersion}\n${tier.name}`;
      return new Promise<AdmitVerdict>((settle, fail) => {
        let batch = batches.get(id);
        if (batch === undefined) {
          if (batches.size === 0) setImmediate(flush);
          batch = { keyId, secretVersion, tier, requests: [] };
          batches.set(id, batch);
        }
        batch.requests.push({ cost, settle, fail });
      });
    },
  };
}

/** The verdict of the batch's `index`-th request in the script's flattened answer. */
function verdictOf(flat: number[], index: number, tier: Tier): AdmitVerdict {
  if (flat[0] === -1) return { kind: "revoked" };
  if (flat[0] === -2) return { kind: "rotated" };
  const [verdict, remaining, resetMs, retryAfterMs] = flat.slice(index * 4, index * 4 + 4) as [
    number,
    number,
    number,
    number,
  ];
  if (verdict === 0) return { kind: "limited", tier, remaining, resetMs, retryAfterMs };
  return { kind: "allowed", tier, remaining, resetMs };
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
