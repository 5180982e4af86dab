import { setTimeout as sleep } from "node:timers/promises";
import type { Hex, PrivateKeyAccount } from "viem";
import { type OpenedStream, openEventStream } from "../../test/e2e/src/support/eventStream.js";
import { type Gateway, intentStatus, notify } from "./gateway.js";
import { chainSeconds, type Origin, prepareOpen, rpc } from "./origin.js";

export type Mode = "block follower only" | "with notification hint" | "event stream";

export interface LatencySample {
  mode: Mode;
  orderId: Hex;
  /** Broadcast until the receipt was available from the node (the chain's own latency). */
  chainMs: number;
  /** Receipt available until the gateway answered OPEN for the order. */
  mirrorMs: number;
}

/** How often the bench looks at the chain head and at a pending order's status. */
const HEAD_POLL_MS = 10;
const STATUS_POLL_MS = 20;
const OPEN_TIMEOUT_MS = 30_000;

/**
 * When each transaction's receipt became available: the first moment a poll of the node's head saw
 * the block holding it (every HEAD_POLL_MS, so at most that much late).
 */
function watchMinedTransactions(origin: Origin): { minedAt(txHash: Hex): Promise<number>; stop(): void } {
  const mined = new Map<string, number>();
  let stopped = false;
  let last: bigint | undefined;
  const loop = (async () => {
    while (!stopped) {
      try {
        const head = BigInt(await rpc<Hex>(origin.rpcUrl, "eth_blockNumber", []));
        const seenAt = performance.now();
        if (last === undefined) last = head;
        for (let number = last + 1n; number <= head; number++) {
          const block = await rpc<{ transactions: Hex[] }>(origin.rpcUrl, "eth_getBlockByNumber", [
            `0x${number.toString(16)}`,
            false,
          ]);
          for (const txHash of block.transactions) mined.set(txHash.toLowerCase(), seenAt);
        }
        last = head;
      } catch {
        // The node is busy; look again.
      }
      await sleep(HEAD_POLL_MS);
    }
  })();
  return {
    async minedAt(txHash) {
      const deadline = performance.now() + OPEN_TIMEOUT_MS;
      for (;;) {
        const at = mined.get(txHash.toLowerCase());
        if (at !== undefined) return at;
        if (performance.now() > deadline) throw new Error(`transaction ${txHash} was never seen mined`);
        await sleep(HEAD_POLL_MS);
      }
    },
    stop() {
      stopped = true;
      void loop;
    },
  };
}

/** When the wallet's event stream (GET /intents/v1/events) brought the order's OPEN status event. */
async function openEventAt(stream: OpenedStream, orderId: Hex, from: number): Promise<number> {
  const event = await stream.next(
    (candidate) =>
      candidate.event === "status" &&
      (candidate.data as { orderId?: string; status?: string }).orderId === orderId &&
      (candidate.data as { status?: string }).status === "OPEN",
    OPEN_TIMEOUT_MS,
    from,
  );
  return arrivals.get(event) ?? performance.now();
}

/** Arrival time of each event read by the streams of "event stream" mode. */
const arrivals = new WeakMap<object, number>();

async function measureOne(
  origin: Origin,
  gateway: Gateway,
  account: PrivateKeyAccount,
  txNonce: number,
  mode: Mode,
  watcher: ReturnType<typeof watchMinedTransactions>,
  stream: OpenedStream | undefined,
): Promise<LatencySample> {
  const open = await prepareOpen(origin, account, txNonce, await chainSeconds(origin));
  const broadcastAt = performance.now();
  await rpc(origin.rpcUrl, "eth_sendRawTransaction", [open.raw]);
  if (mode === "with notification hint") {
    await notify(gateway, {
      userAddress: account.address,
      originChainId: origin.chainId,
      txHash: open.txHash,
      orderId: open.orderId,
    });
  }
  const deadline = performance.now() + OPEN_TIMEOUT_MS;
  let visibleAt: number | undefined;
  if (stream !== undefined) visibleAt = await openEventAt(stream, open.orderId, 0);
  while (visibleAt === undefined) {
    if ((await intentStatus(gateway, open.orderId)) === "OPEN") visibleAt = performance.now();
    else if (performance.now() > deadline)
      throw new Error(`order ${open.orderId} was not OPEN within ${OPEN_TIMEOUT_MS} ms`);
    else await sleep(STATUS_POLL_MS);
  }
  const minedAt = await watcher.minedAt(open.txHash);
  return { mode, orderId: open.orderId, chainMs: minedAt - broadcastAt, mirrorMs: visibleAt - minedAt };
}

/**
 * Opens `count` orders of one mode from the wallets, each wallet one order at a time after a
 * random pause under one block time, so broadcasts fall anywhere in the block interval. The modes
 * run one after the other, not interleaved: a notification makes the ingestor poll its chain
 * quickly for a while, which would speed up the orders without one too.
 */
export async function measureLatency(
  origin: Origin,
  gateway: Gateway,
  wallets: readonly PrivateKeyAccount[],
  mode: Mode,
  count: number,
): Promise<LatencySample[]> {
  const watcher = watchMinedTransactions(origin);
  const samples: LatencySample[] = [];
  const streams: OpenedStream[] = [];
  let next = 0;
  try {
    await Promise.all(
      wallets.map(async (account) => {
        let txNonce = Number(
          BigInt(await rpc<Hex>(origin.rpcUrl, "eth_getTransactionCount", [account.address, "pending"])),
        );
        // One stream per wallet, open before its first order, as a wallet app would hold it.
        const stream = mode === "event stream" ? await walletStream(gateway, account) : undefined;
        if (stream) streams.push(stream);
        while (next < count) {
          next += 1;
          await sleep(Math.random() * 1_000);
          samples.push(await measureOne(origin, gateway, account, txNonce++, mode, watcher, stream));
        }
      }),
    );
  } finally {
    watcher.stop();
    for (const stream of streams) stream.close();
  }
  return samples;
}

/** The wallet's event stream, live (caught up), with each event's arrival time noted. */
async function walletStream(gateway: Gateway, account: PrivateKeyAccount): Promise<OpenedStream> {
  const token = gateway.headers.authorization!.slice("Bearer ".length);
  const stream = await openEventStream(`${gateway.base}/intents/v1/events?userAddress=${account.address}`, token);
  if (stream.status !== 200) throw new Error(`GET /intents/v1/events answered ${stream.status}`);
  const push = stream.events.push.bind(stream.events);
  stream.events.push = (...events) => {
    for (const event of events) arrivals.set(event, performance.now());
    return push(...events);
  };
  await stream.next((event) => event.event === "live", OPEN_TIMEOUT_MS);
  return stream;
}
