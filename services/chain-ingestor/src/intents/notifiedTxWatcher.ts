import type { OutgoingRecord } from "@platform/bus";
import type { Logger } from "@platform/log";
import type { Address, Client, Hex } from "viem";
import { toHeader } from "../follower/headerReader.js";
import { resolutionRecord, resolveDropped, resolveMined, type RpcReceipt } from "./notifiedTxResolution.js";

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
  /** Pause between receipt lookups of a transaction not mined yet. */
  retryIntervalMs: number;
  log: Logger;
  now?: () => Date;
  /** Notifications followed at once, at most; more are ignored (the block follower still sees the chain). */
  maxTracked?: number;
}

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
  firstSeenMs: number;
  timer?: NodeJS.Timeout;
  checking: boolean;
}

/**
 * Answers `intents.notified` hints: fetches the notified transaction's receipt at once and publishes
 * what became of it (NotifiedTxResolved: SUCCEEDED with its orderIds, or REVERTED), so the mirror
 * moves before the block follower reaches that block; retries a transaction not yet mined until
 * its window ends, then publishes DROPPED. A hint is never a fact: the record says only what the
 * chain said, and losing a hint only delays the update.
 */
export function createNotifiedTxWatcher(options: NotifiedTxWatcherOptions): NotifiedTxWatcher {
  const { log } = options;
  const now = options.now ?? (() => new Date());
  const maxTracked = options.maxTracked ?? 10_000;
  const chains = new Map(options.chains.map((chain) => [String(chain.chainId), chain] as const));
  const tracked = new Map<string, Tracked>();
  let stopped = false;

  const schedule = (entry: Tracked, delayMs: number): void => {
    if (stopped) return;
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => void check(entry), delayMs);
    entry.timer.unref();
  };

  const finish = (entry: Tracked): void => {
    clearTimeout(entry.timer);
    tracked.delete(`${entry.chain.chainId}:${entry.txHash}`);
  };

  const check = async (entry: Tracked): Promise<void> => {
    if (stopped || entry.checking) return;
    entry.checking = true;
    const { chain, txHash } = entry;
    try {
      const receipt = (await chain.client.request({ method: "eth_getTransactionReceipt", params: [txHash] })) as RpcReceipt | null;
      if (receipt !== null) {
        const block = (await chain.client.request({ method: "eth_getBlockByHash", params: [receipt.blockHash, false] })) as Parameters<typeof toHeader>[0] | null;
        if (block === null) throw new Error(`block ${receipt.blockHash} of the receipt vanished (a reorganisation); looking again`);
        const resolution = resolveMined({ chainId: chain.chainId, receipt, block: toHeader(block), settler: chain.settler, now: now() });
        await chain.publish(resolutionRecord(resolution));
        log.info({ chainId: chain.chainId, txHash, outcome: resolution.outcome, orderIds: resolution.orderIds }, "notified transaction resolved");
        finish(entry);
        return;
      }
      if (now().getTime() - entry.firstSeenMs >= options.dropAfterMs) {
        await chain.publish(resolutionRecord(resolveDropped({ chainId: chain.chainId, txHash, now: now() })));
        log.info({ chainId: chain.chainId, txHash }, "notified transaction not mined within its window; dropped");
        finish(entry);
        return;
      }
      schedule(entry, options.retryIntervalMs);
    } catch (error) {
      // The node or Kafka is away for now: keep the transaction and look again.
      log.warn({ err: error, chainId: chain.chainId, txHash }, "could not resolve a notified transaction yet; retrying");
      schedule(entry, Math.max(options.retryIntervalMs, 1_000));
    } finally {
      entry.checking = false;
    }
  };

  return {
    handle(payload) {
      if (stopped || typeof payload !== "object" || payload === null) return;
      const { chainId, txHash } = payload as { chainId?: unknown; txHash?: unknown };
      if ((typeof chainId !== "string" && typeof chainId !== "number") || typeof txHash !== "string" || !TX_HASH.test(txHash)) return;
      const chain = chains.get(String(chainId));
      if (chain === undefined) return;
      const key = `${chain.chainId}:${txHash.toLowerCase()}`;
      const known = tracked.get(key);
      if (known !== undefined) {
        // A repeated hint: look now rather than at the next retry.
        schedule(known, 0);
        return;
      }
      if (tracked.size >= maxTracked) {
        log.warn({ chainId: chain.chainId, txHash, tracked: tracked.size }, "too many notified transactions followed; this one waits for the block follower");
        return;
      }
      const entry: Tracked = { chain, txHash: txHash.toLowerCase() as Hex, firstSeenMs: now().getTime(), checking: false };
      tracked.set(key, entry);
      void check(entry);
    },
    tracked: () => tracked.size,
    stop() {
      stopped = true;
      for (const entry of tracked.values()) clearTimeout(entry.timer);
      tracked.clear();
    },
  };
}
