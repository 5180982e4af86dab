import { type HttpTransport, http } from "viem";
import type { ConfiguredChain } from "./chainConfig.js";
import { type RpcQuota, type RpcQuotaLimits, withQuota } from "./rpcQuota.js";

export interface UserReadSettings extends RpcQuotaLimits {
  /** Retries of a failed request, at most; a user can retry, and retries multiply a burst's load. */
  maxRetries: number;
}

/** Defaults: one service's user-triggered reads of one chain never hold more than 32 requests at the node. */
export const DEFAULT_USER_READS: UserReadSettings = { maxInFlight: 32, maxQueued: 128, maxRetries: 1 };

/**
 * The transport for reads a user's request triggers (quotes, preflight, notifications, SIWE
 * contract-wallet checks): the chain's `preflightRpcUrl` when configured, else its `rpcUrl`, every
 * request through `quota`, and at most `maxRetries` retries. Ingestion never shares it, so no user
 * burst takes the connections or the provider budget the chain's follower runs on.
 */
export function userReadTransport(chain: ConfiguredChain, quota: RpcQuota, maxRetries: number): HttpTransport {
  return withQuota(
    http(chain.preflightRpcUrl ?? chain.rpcUrl, {
      timeout: chain.rpc.timeoutMs,
      retryCount: Math.min(chain.rpc.retryCount, maxRetries),
      retryDelay: chain.rpc.retryDelayMs,
    }),
    quota,
  );
}
