import postgres from "postgres";

/** A pool of connections to the history database (postgres.js): tagged-template queries, `begin` for transactions. */
export type HistoryDb = postgres.Sql;
/** The connection inside `HistoryDb.begin`: the same queries, in one transaction. */
export type HistoryTransaction = postgres.TransactionSql;

export interface HistoryConnection {
  /** `postgres://host:port/database`, without credentials (those come from their own variables). */
  url: string;
  username?: string | undefined;
  password?: string | undefined;
  /** Connections in the pool; 8 by default. */
  max?: number;
  /** Names the connections in pg_stat_activity. */
  applicationName: string;
  /** How long a connection attempt may take, in seconds; 5 by default. */
  connectTimeoutSeconds?: number;
}

/**
 * Opens the pool lazily (the first query connects), so a service starts while PostgreSQL is away
 * and its readiness says so. postgres.js was chosen over pg by bench/store/postgresDrivers.ts:
 * equal commit latency, and reads at least 1.1x (up to 2.7x) as fast with a lower median, since it
 * pipelines prepared statements on each connection.
 */
export function connectHistory(connection: HistoryConnection): HistoryDb {
  return postgres(connection.url, {
    ...(connection.username === undefined ? {} : { username: connection.username }),
    ...(connection.password === undefined ? {} : { password: connection.password }),
    max: connection.max ?? 8,
    connect_timeout: connection.connectTimeoutSeconds ?? 5,
    idle_timeout: 60,
    connection: { application_name: connection.applicationName },
    // Notices (e.g. "relation already exists, skipping") are the server talking to itself.
    onnotice: () => undefined,
  });
}

/** Whether the database answers within `timeoutMs` (a readiness probe). */
export async function historyAnswers(db: HistoryDb, timeoutMs = 1_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    return await Promise.race([db`select 1 as ok`.then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
