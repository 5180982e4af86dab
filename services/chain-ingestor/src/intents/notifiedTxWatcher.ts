import type { OutgoingRecord } from "@platform/bus";
import { backoffDelay, TransientError } from "@platform/errors/base";
import type { Logger } from "@platform/log";
import type { Address, Client, Hex } from "viem";
import { toHeader } from "../evm/rpcHeaderReader.js";
import { type RpcReceipt, resolutionRecord, resolveDropped, resolveMined } from "./notifiedTxResolution.js";

export interface WatchedChain {
  chainId: number;
  client: Client;
  settler: Address;
  /** Publishes a record through the chain's transactional publisher; rejects while it is unavailable. */
  publish(record: OutgoingRecord): Promise<void>;
}

export interface NotifiedTxWatcherOptions {
  chains: readonly WatchedChain[];
  /** A transaction not mined this long after its notification is DROPPED. */
  dropAfterMs: number;
  /** First pause between receipt lookups of a transaction not mined yet; it doubles after each look. */
  retryIntervalMs: number;
  /** The longest pause between two looks; 60 s by default. */
  maxRetryIntervalMs?: number;
  log: Logger;
  now?: () => Date;
  /** Notifications followed at once, at most; more are ignored (the block follower still sees the chain). */
  maxTracked?: number;
  /** Notifications one API key has followed at once, at most (hints without a key share one count). */
  maxTrackedPerKey?: number;
}

/** Defaults: a few hundred honest notifications in flight fit; one key cannot take them all. */
export const DEFAULT_MAX_TRACKED = 1_000;
export const DEFAULT_MAX_TRACKED_PER_KEY = 20;
export const DEFAULT_MAX_RETRY_INTERVAL_MS = 60_000;

export interface NotifiedTxWatcher {
  /** Takes an `intents.notified` signal `{chainId, txHash}`; anything else is ignored. */
  handle(payload: unknown): void;
  /** Transactions still waited for. */
  tracked(): number;
  stop(): void;
}

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

interface Tracked {
  chain: WatchedChain;
  txHash: Hex;
  apiKeyId: string;
  firstSeenMs: number;
  /** Looks so far that found nothing: the next pause is retryIntervalMs * 2^looks. */
  looks: number;
  timer?: NodeJS.Timeout;
  checking: boolean;
}

/**
 * Answers `intents.notified` hints: fetches the notified transaction's receipt at once and publishes
 * what became of it (NotifiedTxResolved: SUCCEEDED with its orderIds, or REVERTED), so the mirror
 * moves before the block follower reaches that block; retries a transaction not yet mined until
 * its window ends, then publishes DROPPED. A hint is never a fact: the record says only what the
 * chain said, and losing a hint only delays the update.
 *
 * Hints are user-triggered, so the work each costs is bounded: looks back off exponentially (a
 * transaction that never comes costs about 16 look-ups over 10 minutes, not 600), at most
 * `maxTracked` transactions are followed at once and `maxTrackedPerKey` per API key, and each
 * chain's client is the watcher's own, with its own request rate (intentsIngestor.ts).
 */
export function createNotifiedTxWatcher(options: NotifiedTxWatcherOptions): NotifiedTxWatcher {
  const { log } = options;
  const now = options.now ?? (() => new Date());
  const maxTracked = options.maxTracked ?? DEFAULT_MAX_TRACKED;
  const maxTrackedPerKey = options.maxTrackedPerKey ?? DEFAULT_MAX_TRACKED_PER_KEY;
  const maxRetryIntervalMs = options.maxRetryIntervalMs ?? DEFAULT_MAX_RETRY_INTERVAL_MS;
  const perKey = new Map<string, number>();
  const chains = new Map(options.chains.map((chain) => [String(chain.chainId), chain] as const));
  const tracked = new Map<string, Tracked>();
  let stopped = false;

  const schedule = (entry: Tracked, delayMs: number): void => {
    if (stopped) return;
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => void check(entry), delayMs);
    entry.timer.unref();
  };

  /** The pause after a look: doubling to maxRetryIntervalMs; after one that found nothing, never past the end of the window. */
  const backoff = (entry: Tracked, clipToWindow: boolean): number => {
    const pause = backoffDelay(entry.looks, { firstMs: options.retryIntervalMs, maxMs: maxRetryIntervalMs });
    entry.looks += 1;
    if (!clipToWindow) return pause;
    const windowLeft = entry.firstSeenMs + options.dropAfterMs - now().getTime();
    return Math.max(0, Math.min(pause, windowLeft));
  };

  const finish = (entry: Tracked): void => {
    clearTimeout(entry.timer);
    if (tracked.delete(`${entry.chain.chainId}:${entry.txHash}`)) {
      const left = (perKey.get(entry.apiKeyId) ?? 1) - 1;
      if (left <= 0) perKey.delete(entry.apiKeyId);
      else perKey.set(entry.apiKeyId, left);
    }
  };

  const check = async (entry: Tracked): Promise<void> => {
    if (stopped || entry.checking) return;
    entry.checking = true;
    const { chain, txHash } = entry;
    try {
      const receipt = (await chain.client.request({
        method: "eth_getTransactionReceipt",
        params: [txHash],
      })) as RpcReceipt | null;
      if (receipt !== null) {
        const block = (await chain.client.request({
          method: "eth_getBlockByHash",
          params: [receipt.blockHash, false],
        })) as Parameters<typeof toHeader>[0] | null;
        if (block === null)
          throw new TransientError(
            `block ${receipt.blockHash} of the receipt vanished (a reorganisation); looking again`,
            { code: "REORGANISED" },
          );
        const resolution = resolveMined({
          chainId: chain.chainId,
          receipt,
          block: toHeader(block),
          settler: chain.settler,
          now: now(),
        });
        await chain.publish(resolutionRecord(resolution));
        log.info(
          { chainId: chain.chainId, txHash, outcome: resolution.outcome, orderIds: resolution.orderIds },
          "notified transaction resolved",
        );
        finish(entry);
        return;
      }
      if (now().getTime() - entry.firstSeenMs >= options.dropAfterMs) {
        await chain.publish(resolutionRecord(resolveDropped({ chainId: chain.chainId, txHash, now: now() })));
        log.info({ chainId: chain.chainId, txHash }, "notified transaction not mined within its window; dropped");
        finish(entry);
        return;
      }
      schedule(entry, backoff(entry, true));
    } catch (error) {
      // The node or Kafka is away for now: keep the transaction and look again, later each time
      // (past the window too: the outcome still has to be published).
      log.warn(
        { err: error, chainId: chain.chainId, txHash },
        "could not resolve a notified transaction yet; retrying",
      );
      schedule(entry, backoff(entry, false));
    } finally {
      entry.checking = false;
    }
  };

  return {
    handle(payload) {
      if (stopped || typeof payload !== "object" || payload === null) return;
      const {
        chainId,
        txHash,
        apiKeyId: rawKeyId,
      } = payload as { chainId?: unknown; txHash?: unknown; apiKeyId?: unknown };
      const apiKeyId = typeof rawKeyId === "string" ? rawKeyId.slice(0, 128) : "";
      if (
        (typeof chainId !== "string" && typeof chainId !== "number") ||
        typeof txHash !== "string" ||
        !TX_HASH.test(txHash)
      )
        return;
      const chain = chains.get(String(chainId));
      if (chain === undefined) return;
      const key = `${chain.chainId}:${txHash.toLowerCase()}`;
      const known = tracked.get(key);
      // A repeated hint changes nothing: looking sooner would let repeats undo the backoff.
      if (known !== undefined) return;
      if (tracked.size >= maxTracked) {
        log.warn(
          { chainId: chain.chainId, txHash, tracked: tracked.size },
          "too many notified transactions followed; this one waits for the block follower",
        );
        return;
      }
      const keyCount = perKey.get(apiKeyId) ?? 0;
      if (keyCount >= maxTrackedPerKey) {
        log.warn(
          { chainId: chain.chainId, txHash, apiKeyId, tracked: keyCount },
          "too many notified transactions followed for this API key; this one waits for the block follower",
        );
        return;
      }
      const entry: Tracked = {
        chain,
        txHash: txHash.toLowerCase() as Hex,
        apiKeyId,
        firstSeenMs: now().getTime(),
        looks: 0,
        checking: false,
      };
      tracked.set(key, entry);
      perKey.set(apiKeyId, keyCount + 1);
      void check(entry);
    },
    tracked: () => tracked.size,
    stop() {
      stopped = true;
      for (const entry of tracked.values()) clearTimeout(entry.timer);
      tracked.clear();
      perKey.clear();
    },
  };
}
