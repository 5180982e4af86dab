import type { ServiceRuntime } from "./serviceProcesses.js";

/**
 * How end-to-end tests start services. `scripts/test` builds the workspace first and sets
 * `PLATFORM_TEST_RUNTIME=dist`, so the processes start from the compiled output instead of
 * transforming the sources with tsx each time (seconds per process on two cores). A test run
 * straight from vitest has no such guarantee that `dist` is fresh, so it defaults to the sources.
 */
export function testRuntime(env: NodeJS.ProcessEnv = process.env): ServiceRuntime {
  const value = env.PLATFORM_TEST_RUNTIME;
  if (value === undefined || value === "" || value === "source") return "source";
  if (value === "dist") return "dist";
  throw new Error(`PLATFORM_TEST_RUNTIME: must be "source" or "dist", got "${value}"`);
}
