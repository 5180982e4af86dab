import type { Logger } from "@platform/log";
import { createPriceFeedMover, type PriceFeedMover, type PriceFeedMoverOptions } from "./priceFeedMover.js";

export interface StartPriceSimulatorOptions extends PriceFeedMoverOptions {
  /** Pause between the end of one round and the start of the next. */
  intervalMs: number;
  log: Logger;
}

export interface RunningPriceSimulator {
  mover: PriceFeedMover;
  /** Stops the timer and resolves once a round in progress has been mined. */
  stop(): Promise<void>;
}

/**
 * Submits a price-feed round on a timer until stopped. A failed round is logged and the next one
 * still goes out: a node hiccup must not freeze the devnet's price.
 */
export async function startPriceSimulator(options: StartPriceSimulatorOptions): Promise<RunningPriceSimulator> {
  if (!Number.isFinite(options.intervalMs) || options.intervalMs < 0) {
    throw new RangeError(`intervalMs must be a non-negative number, got ${options.intervalMs}`);
  }
  const mover = await createPriceFeedMover(options);
  const log = options.log.child({ component: "price-simulator" });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();

  const tick = async () => {
    try {
      const round = await mover.submitRound();
      log.debug(
        { round: round.roundId.toString(), answer: round.answer.toString(), block: round.blockNumber.toString() },
        "price feed round",
      );
    } catch (error) {
      log.warn({ error }, "price feed round failed");
    }
    if (!stopped) timer = setTimeout(run, options.intervalMs);
  };
  const run = () => {
    current = tick();
  };
  run();
  log.info(
    { chainId: mover.chain.id, priceFeed: mover.priceFeed, intervalMs: options.intervalMs },
    "price simulator started",
  );

  return {
    mover,
    stop: async () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await current;
    },
  };
}
