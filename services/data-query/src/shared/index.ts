export { asOfFromHash, readAsOf, readModel } from "./asOf.js";
export {
  bucketStartMs,
  bucketStarts,
  DURATION,
  intervalMs,
  intervalName,
  resolveInterval,
  type IntervalRules,
} from "./buckets.js";
export { decodeCursor, encodeCursor, invalidCursor, queryScope, type CursorPosition } from "./cursor.js";
export { formatDecimal, mulIntByDecimal, parseDecimal, type Decimal } from "./decimal.js";
export { orderOf, pageLimitOf, type Order, type PageRules } from "./page.js";
export {
  BLOCK_TIME_MS,
  parseTime,
  resolveWindow,
  windowTooLarge,
  type ResolvedWindow,
  type WindowRules,
} from "./window.js";
export { scanZset, type ZsetEntry, type ZsetScanOptions } from "./zsetScan.js";
