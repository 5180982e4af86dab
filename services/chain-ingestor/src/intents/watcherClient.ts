import type { ConfiguredChain } from "@platform/chain";
import { type Client, createPublicClient, http, type Transport } from "viem";

export interface RequestRate {
  /** Resolves when the next request may go out. */
  take(): Promise<void>;
}

/**
 * At most `perSecond` requests a second on average, `burst` at once (GCRA: each request is due one
 * interval after the one before; up to `burst` may be early). Requests over the rate wait, in order.
 */
export function createRequestRate(perSecond: number, burst: number, now: () => number = Date.now): RequestRate {
  const interval = 1_000 / perSecond;
  let due = 0;
  return {
    take() {
      const at = now();
      due = Math.max(due, at);
      const wait = due - at - (burst - 1) * interval;
      due += interval;
      if (wait <= 0) return Promise.resolve();
      return new Promise((resolve) => setTimeout(resolve, wait).unref());
    },
  };
}

/** The transport with every request (each JSON-RPC call) waiting for the rate first. */
export function rateLimited<T extends Transport>(transport: T, rate: RequestRate): T {
  return ((parameters: Parameters<T>[0]) => {
    const built = transport(parameters);
    const request = built.request as (args: unknown, options: unknown) => Promise<unknown>;
    return {
      ...built,
      request: (async (args: unknown, options: unknown) => {
        await rate.take();
        return request(args, options);
      }) as typeof built.request,
    };
  }) as T;
}

export interface WatcherRpcSettings {
  /** Receipt look-ups per second per chain, on average. */
  requestsPerSecond: number;
}

/**
 * The notified-transaction watcher's own client: not the block follower's, so users' notifications
 * can neither fill its batches nor delay them, and with its own request rate, so however many
 * transactions are followed, the node sees at most that many look-ups a second from them. One retry
 * at most: the watcher looks again later anyway.
 */
export function watcherClient(chain: ConfiguredChain, settings: WatcherRpcSettings): Client {
  const transport = http(chain.rpcUrl, {
    timeout: chain.rpc.timeoutMs,
    retryCount: Math.min(chain.rpc.retryCount, 1),
    retryDelay: chain.rpc.retryDelayMs,
  });
  const burst = Math.max(1, Math.ceil(settings.requestsPerSecond));
  return createPublicClient({
    transport: rateLimited(transport, createRequestRate(settings.requestsPerSecond, burst)),
  });
}
