export { accountsKeys, BLOCKS_KEPT } from "./accounts.js";
export { dataChangeLog, intentsChangeLog, type DataChangeKind } from "./changeLogs.js";
export {
  alphaOfMember,
  rankHolders,
  rankMember,
  RANK_WIDTH,
  type ColdkeyRow,
  type PositionRow,
  type RankedEntry,
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
export { marketKeys } from "./market.js";
export {
  BUCKET_NAMES,
  BUCKET_SECONDS,
  ORDINAL_SPAN,
  ordinalOf,
  type BlockCounts,
  type BucketAggregate,
  type BucketName,
  type PointMeasure,
  type RunningCounts,
  type SeriesPoint,
} from "./series.js";
export { subnetsKeys } from "./subnets.js";
export { readModelVersionKeys, type VersionedProjection } from "./versions.js";
