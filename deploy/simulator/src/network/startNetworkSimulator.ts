import type { Logger } from "@platform/log";
import { createNetworkContext, type NetworkContext, type NetworkSimulatorOptions } from "./context.js";
import { simulateNetworkStep } from "./step.js";

export interface StartNetworkSimulatorOptions extends NetworkSimulatorOptions {
  /** Pause between the end of one step and the start of the next. */
  intervalMs: number;
  log: Logger;
}

export interface RunningNetworkSimulator {
  /** The context the steps run with, e.g. to derive its accounts or send extra transfers. */
  context: NetworkContext;
  /** Stops the timer and resolves once a step in progress has finished. */
  stop(): Promise<void>;
}

/**
 * Runs `simulateNetworkStep` on a timer until stopped. A failed step is logged and the next one still
 * runs: a node hiccup must not end the devnet's activity.
 */
export async function startNetworkSimulator(options: StartNetworkSimulatorOptions): Promise<RunningNetworkSimulator> {
  if (!Number.isFinite(options.intervalMs) || options.intervalMs < 0) {
    throw new RangeError(`intervalMs must be a non-negative number, got ${options.intervalMs}`);
  }
  const context = await createNetworkContext(options);
  const log = options.log.child({ component: "network-simulator" });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();

  const tick = async () => {
    try {
      const result = await simulateNetworkStep(context);
      log.debug({ step: result.step, transactions: result.transactions.length, block: result.blockNumber.toString() }, "network step");
    } catch (error) {
      log.warn({ error }, "network step failed");
    }
    if (!stopped) timer = setTimeout(run, options.intervalMs);
  };
  const run = () => {
    current = tick();
  };
  run();
  log.info({ accounts: context.accounts.length, subnets: context.subnets.length, intervalMs: options.intervalMs }, "network simulator started");

  return {
    context,
    stop: async () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await current;
    },
  };
}
