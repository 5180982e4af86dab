import { setTimeout as sleep } from "node:timers/promises";
import type { ChainConfig } from "@platform/chain";
import type { Logger } from "@platform/log";
import type { Account } from "viem";
import { demoRoutes } from "./demoRoutes.js";
import { createDemoTrader } from "./demoTrader.js";
import { createFiller, type OpenArgs } from "./filler.js";
import { createOracle, type FilledArgs } from "./oracle.js";
import { settlerChains } from "./settlerChains.js";
import { settlerEventFeed } from "./settlerEventFeed.js";

export interface DemoSettings {
  users: number;
  /** Time between demo orders. */
  orderIntervalMs: number;
  fillWindowSeconds: number;
  unfilledEvery: number;
  seed: number;
}

export interface IntentsSimulatorOptions {
  chains: ChainConfig;
  filler: Account;
  oracle: Account;
  /** Time between rounds of reading new events and acting on them. */
  pollIntervalMs: number;
  /** The filler's minimum fee, basis points of the input. */
  minFeeBps: number;
  /** Demo users opening orders; omitted, the simulator only fills and settles what others open. */
  demo?: DemoSettings;
  log: Logger;
}

export interface RunningIntentsSimulator {
  /** Counters for tests and the log. */
  stats(): { filled: number; settled: number; opened: number; refunded: number };
  stop(): Promise<void>;
}

/**
 * Plays the filler and the oracle on every settler chain, and optionally demo users, in one loop:
 * read new Open and Filled events, fill, settle, open and refund demo orders. One loop keeps each
 * account's transactions in sequence, so their nonces never race. Events are followed from the
 * chains' heads at start: the devnet starts empty with the stack.
 */
export async function startIntentsSimulator(options: IntentsSimulatorOptions): Promise<RunningIntentsSimulator> {
  const { log } = options;
  const chains = settlerChains(options.chains);
  const heads = await Promise.all(chains.map((chain) => chain.publicClient.getBlockNumber({ cacheTime: 0 })));
  const openFeeds = chains.map((chain, index) => settlerEventFeed<OpenArgs>(chain, "Open", heads[index]!));
  const fillFeeds = chains.map((chain, index) => settlerEventFeed<FilledArgs>(chain, "Filled", heads[index]!));
  const filler = createFiller({
    chains,
    account: options.filler,
    minFeeBps: options.minFeeBps,
    log: log.child({ role: "filler" }),
  });
  const oracle = createOracle({ chains, account: options.oracle, log: log.child({ role: "oracle" }) });
  const demo =
    options.demo === undefined
      ? undefined
      : createDemoTrader({
          routes: demoRoutes(options.chains, chains),
          funder: options.filler,
          ...options.demo,
          log: log.child({ role: "demo" }),
        });
  if (demo !== undefined) await demo.prepare();

  let stopping = false;
  let nextDemoAt = Date.now();
  const round = async () => {
    for (const feed of openFeeds) filler.take(await feed.poll());
    await filler.work();
    for (const feed of fillFeeds) oracle.take(await feed.poll());
    await oracle.work();
    if (demo !== undefined) {
      if (Date.now() >= nextDemoAt) {
        nextDemoAt = Date.now() + options.demo!.orderIntervalMs;
        await demo.openOne();
      }
      await demo.refundDue();
    }
  };
  const loop = (async () => {
    while (!stopping) {
      try {
        await round();
      } catch (error) {
        // A node hiccup: the feeds have not advanced past what failed, so the next round retries it.
        log.warn({ err: error }, "simulator round failed");
      }
      if (!stopping) await sleep(options.pollIntervalMs);
    }
  })();
  log.info(
    { chains: chains.map((chain) => chain.chainId), demoUsers: demo?.users.length ?? 0 },
    "intents simulator started",
  );

  return {
    stats: () => ({
      filled: filler.filled,
      settled: oracle.settled,
      opened: demo?.opened ?? 0,
      refunded: demo?.refunded ?? 0,
    }),
    async stop() {
      stopping = true;
      await loop;
    },
  };
}
