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
