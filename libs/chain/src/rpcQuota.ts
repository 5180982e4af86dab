import { PlatformError } from "@platform/errors/base";
import type { Transport } from "viem";

/** Thrown when a chain's user-triggered reads are at their quota: nothing was sent to the node. */
export class RpcQuotaExceededError extends PlatformError {
  constructor(readonly chainId: number) {
    super(`chain ${chainId}: too many user-triggered RPC requests in flight and queued`, {
      code: "RPC_QUOTA_EXCEEDED",
      retryable: true,
    });
  }
}

export interface RpcQuotaLimits {
  /** JSON-RPC requests sent to the node at once, at most. */
  maxInFlight: number;
  /** Requests waiting for a slot, at most; beyond it a request fails at once (503, retry). */
  maxQueued: number;
}

export interface RpcQuota {
  run<T>(request: () => Promise<T>): Promise<T>;
  inFlight(): number;
  queued(): number;
}

/**
 * A chain's budget for reads users trigger. The node serves the ingestion too (or shares a provider
 * plan with it): whatever users send, at most `maxInFlight` requests reach it at once, and a burst
 * beyond the queue is refused instead of growing memory and latency without bound.
 */
export function createRpcQuota(chainId: number, limits: RpcQuotaLimits): RpcQuota {
  let inFlight = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next === undefined) inFlight -= 1;
    // The slot passes to the next waiter as it is: inFlight stays the same.
    else next();
  };
  return {
    async run(request) {
      if (inFlight >= limits.maxInFlight) {
        if (waiting.length >= limits.maxQueued) throw new RpcQuotaExceededError(chainId);
        await new Promise<void>((resolve) => waiting.push(resolve));
      } else {
        inFlight += 1;
      }
      try {
        return await request();
      } finally {
        release();
      }
    },
    inFlight: () => inFlight,
    queued: () => waiting.length,
  };
}

/** The transport with every request passed through the quota (batched or not, one request = one slot). */
export function withQuota<T extends Transport>(transport: T, quota: RpcQuota): T {
  return ((parameters: Parameters<T>[0]) => {
    const built = transport(parameters);
    return {
      ...built,
      request: ((args: unknown, options: unknown) =>
        quota.run(() =>
          (built.request as (a: unknown, o: unknown) => Promise<unknown>)(args, options),
        )) as typeof built.request,
    };
  }) as T;
}

/** Whether a quota refusal is somewhere in an error's cause chain (viem wraps transport errors). */
export function isQuotaExceeded(error: unknown): boolean {
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 10; cause = cause.cause, depth++) {
    if (cause instanceof RpcQuotaExceededError) return true;
  }
  return false;
}
