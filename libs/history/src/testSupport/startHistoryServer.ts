import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { type RunningPostgres, startPostgres, tempDir } from "@platform/testing";
import { connectHistory, type HistoryDb } from "../connectHistory.js";
import { migrateHistory } from "../migrateHistory.js";
import { HISTORY_ROLES, type HistoryRole, provisionHistory } from "../provisionHistory.js";

export interface HistoryServer {
  postgres: RunningPostgres;
  /** `postgres://127.0.0.1:<port>/platform`, without credentials. */
  url: string;
  /** Each role's password (generated for this server). */
  passwords: Record<HistoryRole | "postgres", string>;
  /** A pool connected as `role` (closed by stop()). */
  connect(role: HistoryRole | "postgres", max?: number): HistoryDb;
  stop(): Promise<void>;
}

/** A real PostgreSQL for one test file: roles provisioned, schema migrated, passwords made here. */
export async function startHistoryServer(
  options: { dataDir?: string; durable?: boolean } = {},
): Promise<HistoryServer> {
  const dir = options.dataDir === undefined ? tempDir("history") : undefined;
  const root = options.dataDir ?? dir!.path;
  const secret = () => randomBytes(18).toString("base64url");
  const passwords = Object.fromEntries([...HISTORY_ROLES, "postgres"].map((role) => [role, secret()])) as Record<
    HistoryRole | "postgres",
    string
  >;
  const postgres = await startPostgres({
    dataDir: join(root, "data"),
    logFile: join(root, "postgres.log"),
    superuserPassword: passwords.postgres,
    ...(options.durable === undefined ? {} : { durable: options.durable }),
  });
  const base = `postgres://127.0.0.1:${postgres.port}`;
  const pools: HistoryDb[] = [];
  const stop = async () => {
    await Promise.all(pools.map((pool) => pool.end({ timeout: 2 }).catch(() => undefined)));
    await postgres.stop();
    dir?.remove();
  };
  const connect = (role: HistoryRole | "postgres", max = 4): HistoryDb => {
    const pool = connectHistory({
      url: `${base}/platform`,
      username: role,
      password: passwords[role],
      max,
      applicationName: `test-${role}`,
    });
    pools.push(pool);
    return pool;
  };
  try {
    await provisionHistory({
      superuserUrl: `postgres://postgres:${encodeURIComponent(passwords.postgres)}@127.0.0.1:${postgres.port}/postgres`,
      passwords,
    });
    await migrateHistory(connect("history_owner", 1));
  } catch (error) {
    // The caller gets no handle to stop it with: a server left running would outlive the test run.
    await stop();
    throw error;
  }
  return { postgres, url: `${base}/platform`, passwords, connect, stop };
}
