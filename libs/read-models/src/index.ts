export { accountsKeys, BLOCKS_KEPT } from "./accounts.js";
export { type DataChangeKind, dataChangeLog, intentsChangeLog } from "./changeLogs.js";
export { DATA_PREFIX, DATA_TAG, INTENTS_PREFIX, INTENTS_TAG } from "./hashTags.js";
export { historySeriesKey, MARKET_SERIES_PREFIX, snapshotPointOf, subnetsSeriesKeptAs } from "./historySeries.js";
export { wholeHolderPoints } from "./holderPoints.js";
export {
  alphaOfMember,
  type ColdkeyRow,
  type PositionRow,
  RANK_WIDTH,
  type RankedEntry,
  rankHolders,
  rankMember,
} from "./holderRanking.js";
export {
  idPrefixes,
  intentsKeys,
  intentsReadKeys,
  orderVersion,
  placeholderSuffix,
  recordKeyOfMember,
  txId,
  txVersion,
  versionOf,
} from "./intents.js";
export { PROJECTION_NAMES, type ProjectionKeySpace, type ProjectionName, projectionKeySpaces } from "./keySpaces.js";
export {
  marketKeys,
  TRADER_COUNTS_KEPT,
  TRADER_WINDOW_BLOCKS,
  type TraderSide,
  traderBlockPrefix,
  traderBlockTag,
} from "./market.js";
export {
  type BlockCounts,
  type BlockVolume,
  BUCKET_NAMES,
  BUCKET_SECONDS,
  type BucketAggregate,
  type BucketName,
  type FlowCounters,
  ORDINAL_SPAN,
  ordinalOf,
  type PointMeasure,
  type RunningCounts,
  type RunningVolume,
  type SeriesPoint,
} from "./series.js";
export { subnetsKeys } from "./subnets.js";
export { readModelVersionKeys, type VersionedProjection } from "./versions.js";
export {
  addEpoch,
  decodeYieldIndex,
  type EpochDividends,
  encodeYieldIndex,
  epochIncrement,
  INDEX_SCALE,
  type YieldIndex,
} from "./yieldIndex.js";
