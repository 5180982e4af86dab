/**
 * The history schema's names, shared by the migrations, the projector (writes) and data-query
 * (reads). Tables that grow with the chain are partitioned by block range
 * (`history.partition_plan`): old partitions can be detached, moved to another tablespace or
 * dropped without touching the rest (PostgreSQL 15 does not compress them).
 */
export const HISTORY_SCHEMA = "history";

export const historyTables = {
  migrations: "history.schema_migrations",
  offsets: "history.projection_offsets",
  accountPoints: "history.account_points",
  accountTransactions: "history.account_transactions",
  accountBlocks: "history.account_blocks",
  seriesPoints: "history.series_points",
  seriesBuckets: "history.series_buckets",
  projectionState: "history.projection_state",
  intentOrders: "history.intent_orders",
  intentOrderChanges: "history.intent_order_changes",
  streamPositions: "history.stream_positions",
  partitionPlan: "history.partition_plan",
} as const;

/** The tables partitioned by block range (their `partition_plan` rows), by their unqualified names. */
export type BlockPartitionedTable = "account_points" | "account_transactions" | "series_points";

/** Blocks per partition unless configured otherwise: 216,000 blocks, 30 days at Finney's 12 s. */
export const DEFAULT_BLOCKS_PER_PARTITION = 216_000;
