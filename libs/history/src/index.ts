export {
  connectHistory,
  type HistoryConnection,
  type HistoryDb,
  type HistoryTransaction,
  historyAnswers,
} from "./connectHistory.js";
export { type PartitionKeeper, partitionKeeper } from "./ensurePartitions.js";
export {
  HISTORY_PRIVILEGES,
  type HistoryClientRole,
  type HistoryPrivileges,
  historyGrantStatements,
} from "./historyPrivileges.js";
export {
  HISTORY_SCHEMA_VERSION,
  historySchemaVersion,
  type MigrationReport,
  migrateHistory,
} from "./migrateHistory.js";
export { type Migration, migrations } from "./migrations.js";
export { HISTORY_ROLES, type HistoryRole, type ProvisionOptions, provisionHistory } from "./provisionHistory.js";
export {
  type BlockPartitionedTable,
  DEFAULT_BLOCKS_PER_PARTITION,
  HISTORY_SCHEMA,
  historyTables,
} from "./schema.js";
