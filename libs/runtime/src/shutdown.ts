import type { Logger } from "@platform/log";

export interface ShutdownStep {
  name: string;
  run: () => Promise<void> | void;
}

/**
 * Runs the steps in order on SIGTERM or SIGINT (stop taking work, drain, close connections), then
 * exits 0. A step that hangs past `timeoutMs` is abandoned so Kubernetes' grace period is honoured.
 * Returns a function that triggers the same sequence, for fatal errors.
 */
export function handleShutdown(
  log: Logger,
  steps: ShutdownStep[],
  timeoutMs = 15_000,
): (reason: string) => Promise<void> {
  let running: Promise<void> | undefined;
  const shutdown = (reason: string): Promise<void> => {
    running ??= (async () => {
      log.info({ reason }, "shutting down");
      const timer = setTimeout(() => {
        log.error({ timeoutMs }, "shutdown did not finish in time; exiting");
        process.exit(1);
      }, timeoutMs);
      timer.unref();
      for (const step of steps) {
        try {
          await step.run();
        } catch (error) {
          log.warn({ err: error, step: step.name }, "shutdown step failed");
        }
      }
      log.info("stopped");
      process.exit(0);
    })();
    return running;
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
  return shutdown;
}
