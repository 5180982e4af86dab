import { givesUp } from "./PlatformError.js";

/**
 * The wait before try number `attempt + 1` after `attempt` failures in a row: `firstMs`, doubled
 * per failure (at most `maxDoublings` times), never above `maxMs`. Every reconnect and retry loop
 * of the platform waits by this one rule.
 */
export function backoffDelay(
  attempt: number,
  options: { firstMs: number; maxMs: number; maxDoublings?: number },
): number {
  const doublings = Math.min(Math.max(0, attempt), options.maxDoublings ?? 30);
  return Math.min(options.maxMs, options.firstMs * 2 ** doublings);
}

/**
 * The wait before the next try of a retry loop after `attempt` failures, the last being `error`; or
 * undefined when the error says trying again cannot succeed (givesUp): the loop stops at once.
 */
export function retryDelay(
  error: unknown,
  attempt: number,
  options: { firstMs: number; maxMs: number; maxDoublings?: number },
): number | undefined {
  return givesUp(error) ? undefined : backoffDelay(attempt, options);
}
