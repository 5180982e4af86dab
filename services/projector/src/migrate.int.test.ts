import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  connectHistory,
  HISTORY_ROLES,
  HISTORY_SCHEMA_VERSION,
  type HistoryRole,
  provisionHistory,
} from "@platform/history";
import { type RunningPostgres, startPostgres, tempDir } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/*
 * The migrate entry point (the Kubernetes Job's `node dist/migrate.js`) as a child process, against a
 * real PostgreSQL whose roles and database are provisioned but whose schema was never migrated.
 */

const projectorDir = fileURLToPath(new URL("..", import.meta.url));

/**
 * As deploy/local's testRuntime: the built file when PLATFORM_TEST_RUNTIME=dist (scripts/test builds
 * first), else the TypeScript source through tsx, which needs no build.
 */
function migrateCommand(): string[] {
  const runtime = process.env.PLATFORM_TEST_RUNTIME;
  if (runtime === "dist") return [join(projectorDir, "dist", "migrate.js")];
  return ["--conditions=@platform/source", "--import", "tsx", join(projectorDir, "src", "migrate.ts")];
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** The JSON log lines on stdout. */
  lines: Array<Record<string, unknown>>;
}

async function runMigrate(env: Record<string, string>): Promise<Run> {
  const result = await promisify(execFile)(process.execPath, migrateCommand(), {
    cwd: projectorDir,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    timeout: 30_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: typeof error.code === "number" ? error.code : -1,
      stdout: error.stdout ?? "",
      stderr: error.stderr ?? "",
    }),
  );
  const lines = result.stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { ...result, lines };
}

let server: RunningPostgres;
let dir: { path: string; remove(): void };
const passwords = Object.fromEntries(
  HISTORY_ROLES.map((role) => [role, randomBytes(18).toString("base64url")]),
) as Record<HistoryRole, string>;
let url: string;

beforeAll(async () => {
  dir = tempDir("projector-migrate");
  const superuserPassword = randomBytes(18).toString("base64url");
  server = await startPostgres({
    dataDir: join(dir.path, "data"),
    logFile: join(dir.path, "postgres.log"),
    superuserPassword,
  });
  await provisionHistory({
    superuserUrl: `postgres://postgres:${superuserPassword}@127.0.0.1:${server.port}/postgres`,
    passwords,
  });
  url = `postgres://127.0.0.1:${server.port}/platform`;
}, 60_000);

afterAll(async () => {
  await server?.stop();
  dir?.remove();
});

describe("projector's migrate entry point", () => {
  it("applies the history schema as history_owner, logs the versions, and exits 0; a second run applies nothing", async () => {
    const owner = { POSTGRES_URL: url, POSTGRES_USERNAME: "history_owner", POSTGRES_PASSWORD: passwords.history_owner };
    const first = await runMigrate(owner);
    expect(first.code, first.stderr).toBe(0);
    const expected = Array.from({ length: HISTORY_SCHEMA_VERSION }, (_, index) => index + 1);
    expect(first.lines).toEqual([
      expect.objectContaining({
        level: "info",
        service: "projector",
        job: "migrate",
        applied: expected,
        version: HISTORY_SCHEMA_VERSION,
      }),
    ]);
    const reader = connectHistory({
      url,
      username: "data_query",
      password: passwords.data_query,
      max: 1,
      applicationName: "test",
    });
    try {
      const rows = await reader`select version from history.schema_migrations order by version`;
      expect(rows.map((row) => row.version)).toEqual(expected);
    } finally {
      await reader.end({ timeout: 2 });
    }

    const again = await runMigrate(owner);
    expect(again.code, again.stderr).toBe(0);
    expect(again.lines).toEqual([
      expect.objectContaining({
        applied: [],
        version: HISTORY_SCHEMA_VERSION,
        msg: expect.stringContaining("already"),
      }),
    ]);
  });

  it("exits 1 with the reason when it cannot migrate, never printing the password", async () => {
    const [wrongPassword, notOwner] = await Promise.all([
      runMigrate({ POSTGRES_URL: url, POSTGRES_USERNAME: "history_owner", POSTGRES_PASSWORD: "not-the-password" }),
      // data_query may read the schema but not change it (its migrations table is the owner's).
      runMigrate({ POSTGRES_URL: url, POSTGRES_USERNAME: "data_query", POSTGRES_PASSWORD: passwords.data_query }),
    ]);
    expect(wrongPassword.code).toBe(1);
    expect(wrongPassword.lines).toEqual([
      expect.objectContaining({
        level: "error",
        msg: expect.stringMatching(
          /^history migration failed: .*password authentication failed for user "history_owner"/,
        ),
      }),
    ]);
    expect(wrongPassword.stdout + wrongPassword.stderr).not.toContain("not-the-password");
    expect(notOwner.code).toBe(1);
    expect(notOwner.lines[0]).toMatchObject({ level: "error", msg: expect.stringMatching(/permission denied/) });
    expect(notOwner.stdout + notOwner.stderr).not.toContain(passwords.data_query);
  });

  it("names a missing variable and exits 78, like every service", async () => {
    const result = await runMigrate({ POSTGRES_USERNAME: "history_owner" });
    expect(result.code).toBe(78);
    expect(result.stderr.trim()).toBe("projector-migrate: configuration error: POSTGRES_URL: is required but not set");
  });
});
