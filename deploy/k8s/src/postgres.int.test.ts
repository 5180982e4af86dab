import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  backupScript,
  PG_ISREADY_COMMAND,
  POSTGRES_DATABASE,
  pgHbaConf,
  postgresqlConf,
  replicaConf,
  replicaInitScript,
  restoreScript,
  rolesSql,
} from "./postgres.js";
import { POSTGRES_ROLES } from "./postgresRoles.js";

/*
 * The files the PostgreSQL manifests mount, run on a real PostgreSQL 15 (Debian's postgresql-15,
 * the version of the postgres:15-bookworm image): the server configuration and pg_hba.conf as
 * generated, the bootstrap SQL with passwords read from Secret-like files, the replica's clone
 * and streaming, the backup script (three runs, the oldest pruned) and the restore script, whose
 * result the server starts from. Only the paths differ from the pods' (-c settings on the command
 * line, which win over the file, as in the overlays). PostgreSQL refuses to run as root: as root,
 * the servers and scripts run as the OS user postgres, which the generated `local … peer` line admits.
 */

const BIN = process.env.POSTGRES_BIN_DIR ?? "/usr/lib/postgresql/15/bin";
const bin = (name: string) => join(BIN, name);
const asRoot = process.getuid?.() === 0;
const osUser = asRoot ? "postgres" : execFileSync("id", ["-un"], { encoding: "utf8" }).trim();
const ids = asRoot
  ? {
      uid: Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" })),
      gid: Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" })),
    }
  : {};

let dir: string;
const path = (...parts: string[]) => join(dir, ...parts);
const passwords: Record<string, string> = {};
const servers: string[] = [];

async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen({ port, host: "127.0.0.1", exclusive: true }, () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/** Runs a command as the servers' OS user; returns its exit status and output. */
function run(command: string, args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(command, args, {
    ...ids,
    cwd: dir,
    encoding: "utf8",
    env: { PATH: `${BIN}:/usr/bin:/bin`, HOME: dir, LC_ALL: "C.UTF-8", ...env },
    timeout: 120_000,
  });
  return { status: result.status, output: `${result.stdout ?? ""}${result.stderr ?? ""}` };
}
function runOk(command: string, args: string[], env: Record<string, string> = {}): string {
  const result = run(command, args, env);
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (${result.status}):\n${result.output}`);
  return result.output;
}

/** The server settings the pods get from their files, pointed at this test's folders. */
function serverOptions(port: number, config: "postgresql.conf" | "replica.conf", extra: string[] = []): string {
  return [
    `-c config_file=${path("etc", config)}`,
    `-c hba_file=${path("etc", "pg_hba.conf")}`,
    ...(asRoot ? [] : [`-c ident_file=${path("etc", "pg_ident.conf")}`]),
    `-c port=${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${path("run")}`,
    ...extra,
  ].join(" ");
}
function start(
  pgdata: string,
  port: number,
  config: "postgresql.conf" | "replica.conf",
  env = {},
  extra: string[] = [],
) {
  runOk(
    bin("pg_ctl"),
    [
      "start",
      "--wait",
      "--timeout=60",
      `--pgdata=${pgdata}`,
      `--log=${pgdata}.log`,
      "-o",
      serverOptions(port, config, extra),
    ],
    env,
  );
  servers.push(pgdata);
}
function stop(pgdata: string) {
  runOk(bin("pg_ctl"), ["stop", "--wait", "--mode=fast", `--pgdata=${pgdata}`]);
  servers.splice(servers.indexOf(pgdata), 1);
}

/** psql as the superuser on the pod's socket (peer), or as a role over TCP with its password. */
function psql(port: number, sql: string, as: { role?: string; database?: string } = {}) {
  const tcp = as.role !== undefined;
  return run(
    bin("psql"),
    [
      "--no-psqlrc",
      "--tuples-only",
      "--no-align",
      "--set=ON_ERROR_STOP=1",
      `--host=${tcp ? "127.0.0.1" : path("run")}`,
      `--port=${port}`,
      `--username=${as.role ?? "postgres"}`,
      `--dbname=${as.database ?? POSTGRES_DATABASE}`,
      "--command",
      sql,
    ],
    tcp && passwords[as.role!] ? { PGPASSWORD: passwords[as.role!]! } : {},
  );
}
const query = (port: number, sql: string, as: { role?: string; database?: string } = {}) => {
  const result = psql(port, sql, as);
  if (result.status !== 0) throw new Error(`${sql} as ${as.role ?? "postgres"} failed:\n${result.output}`);
  return result.output.trim();
};

let primaryPort: number;
const primary = () => path("primary", "pgdata");

beforeAll(async () => {
  if (!existsSync(bin("postgres")))
    throw new Error(`PostgreSQL 15 not found in ${BIN}: install postgresql-15 (or set POSTGRES_BIN_DIR)`);
  dir = mkdtempSync(join(tmpdir(), "platform-k8s-postgres-"));
  for (const folder of ["etc", "run", "secrets", "weak-secrets", "primary", "replica", "backups"])
    mkdirSync(path(folder));
  // The mounted files: configuration, bootstrap SQL, scripts, and one Secret per role.
  writeFileSync(path("etc", "postgresql.conf"), postgresqlConf());
  writeFileSync(path("etc", "replica.conf"), replicaConf());
  // Not root: the generated `local all postgres peer` line maps this OS user to postgres.
  writeFileSync(
    path("etc", "pg_hba.conf"),
    asRoot ? pgHbaConf() : pgHbaConf().replace(/(^local\s+all\s+postgres\s+peer)$/m, "$1 map=tests"),
  );
  writeFileSync(path("etc", "pg_ident.conf"), `tests ${osUser} postgres\n`);
  writeFileSync(path("etc", "10-roles.sql"), rolesSql());
  writeFileSync(path("etc", "replica-init.sh"), replicaInitScript());
  writeFileSync(path("etc", "backup.sh"), backupScript());
  writeFileSync(path("etc", "restore.sh"), restoreScript());
  for (const [role, { secret }] of Object.entries(POSTGRES_ROLES)) {
    passwords[role] = `${role}-${Math.random().toString(36).slice(2)}-${Date.now()}`;
    mkdirSync(path("secrets", secret));
    writeFileSync(path("secrets", secret, "password"), `${passwords[role]}\n`);
    mkdirSync(path("weak-secrets", secret));
    writeFileSync(path("weak-secrets", secret, "password"), role === "data_query" ? "short\n" : `${passwords[role]}\n`);
  }
  chmodSync(dir, 0o755);
  if (asRoot) execFileSync("chown", ["-R", "postgres:postgres", dir]);

  // What the image's entrypoint does on an empty volume: initdb, the database, the bootstrap SQL.
  primaryPort = await freePort();
  runOk(bin("initdb"), [
    `--pgdata=${primary()}`,
    "--username=postgres",
    "--data-checksums",
    "--encoding=UTF8",
    "--locale=C.UTF-8",
  ]);
  start(primary(), primaryPort, "postgresql.conf");
  query(primaryPort, `CREATE DATABASE ${POSTGRES_DATABASE}`, { database: "postgres" });
  runOk(bin("psql"), [
    "--no-psqlrc",
    "--set=ON_ERROR_STOP=1",
    `--host=${path("run")}`,
    `--port=${primaryPort}`,
    "--username=postgres",
    `--dbname=${POSTGRES_DATABASE}`,
    `--set=secrets_dir=${path("secrets")}`,
    `--file=${path("etc", "10-roles.sql")}`,
  ]);
  // What history-migrate does: history_owner creates the schema's tables (one partitioned).
  query(
    primaryPort,
    `CREATE TABLE balance_points (account text, block bigint, free numeric, PRIMARY KEY (account, block)) PARTITION BY RANGE (block);
     CREATE TABLE balance_points_0 PARTITION OF balance_points FOR VALUES FROM (0) TO (1000000);
     CREATE TABLE offsets (topic text PRIMARY KEY, next bigint NOT NULL);
     CREATE TABLE notes (id bigserial PRIMARY KEY, text text);`,
    { role: "history_owner" },
  );
}, 120_000);

afterAll(() => {
  for (const pgdata of [...servers]) run(bin("pg_ctl"), ["stop", "--mode=immediate", `--pgdata=${pgdata}`]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the bootstrap SQL's roles on a real PostgreSQL 15", () => {
  test("projector writes the history schema's tables and sequences, and creates nothing", () => {
    query(
      primaryPort,
      `INSERT INTO balance_points VALUES ('5F', 1, 10), ('5F', 2, 11);
       UPDATE balance_points SET free = 12 WHERE block = 2;
       DELETE FROM balance_points WHERE block = 1;
       INSERT INTO offsets VALUES ('chain.network.v1', 3);
       INSERT INTO notes (text) VALUES ('a sequence it may use');`,
      { role: "projector" },
    );
    expect(query(primaryPort, "SELECT count(*) FROM balance_points", { role: "projector" })).toBe("1");
    expect(psql(primaryPort, "CREATE TABLE history.mine (x int)", { role: "projector" }).output).toMatch(
      /permission denied for schema history/,
    );
    expect(psql(primaryPort, "TRUNCATE balance_points", { role: "projector" }).output).toMatch(/permission denied/);
    expect(psql(primaryPort, "CREATE TABLE public.mine (x int)", { role: "projector" }).output).toMatch(
      /permission denied for schema public/,
    );
  });

  test("data_query reads and cannot write", () => {
    expect(query(primaryPort, "SELECT free FROM balance_points WHERE block = 2", { role: "data_query" })).toBe("12");
    expect(psql(primaryPort, "INSERT INTO notes (text) VALUES ('no')", { role: "data_query" }).output).toMatch(
      /read-only transaction|permission denied/,
    );
    expect(
      psql(primaryPort, "BEGIN READ WRITE; INSERT INTO notes (text) VALUES ('no'); COMMIT", { role: "data_query" })
        .output,
    ).toMatch(/permission denied for table notes/);
  });

  test("pg_hba.conf: the roles only on the platform database, no superuser and no replication for them over TCP", () => {
    expect(psql(primaryPort, "SELECT 1", { role: "projector", database: "postgres" }).output).toMatch(
      /no pg_hba\.conf entry/,
    );
    passwords.postgres = "whatever";
    expect(psql(primaryPort, "SELECT 1", { role: "postgres" }).output).toMatch(/no pg_hba\.conf entry/);
    expect(psql(primaryPort, "SELECT 1", { role: "replicator" }).output).toMatch(/no pg_hba\.conf entry/);
    expect(
      query(primaryPort, "SELECT rolname FROM pg_roles WHERE rolreplication AND rolname <> 'postgres' ORDER BY 1"),
    ).toBe("replicator");
  });

  test("the probes' pg_isready (over TCP, no password, refused by pg_hba.conf) reports the server up, and a closed port down", () => {
    const probe = () =>
      run(bin("pg_isready"), [
        ...PG_ISREADY_COMMAND.slice(1).map((arg) => (arg.startsWith("--port=") ? `--port=${primaryPort}` : arg)),
      ]).status;
    expect(probe()).toBe(0);
    const other = run(bin("pg_isready"), ["--host=127.0.0.1", "--port=1", "--quiet"]).status;
    expect(other).toBe(2);
  });

  test("a missing or short password stops the bootstrap before any role is created", () => {
    const result = run(bin("psql"), [
      "--no-psqlrc",
      "--set=ON_ERROR_STOP=1",
      `--host=${path("run")}`,
      `--port=${primaryPort}`,
      "--username=postgres",
      "--dbname=postgres",
      `--set=secrets_dir=${path("weak-secrets")}`,
      `--file=${path("etc", "10-roles.sql")}`,
    ]);
    expect(result.status).not.toBe(0);
    expect(result.output).toMatch(/a role password is missing or shorter than 16 characters/);
    expect(result.output).not.toMatch(/CREATE ROLE/);
  });
});

describe("replication, backups and restore with the generated scripts", () => {
  test("the replica clones the primary as replicator and streams from it", async () => {
    const replicaPort = await freePort();
    const pgdata = path("replica", "pgdata");
    const conninfo = `host=127.0.0.1 port=${primaryPort} user=replicator application_name=postgres-replica`;
    runOk("bash", [path("etc", "replica-init.sh")], {
      PGDATA: pgdata,
      PRIMARY_HOST: "127.0.0.1",
      PRIMARY_PORT: String(primaryPort),
      PGPASSWORD: passwords.replicator!,
    });
    expect(existsSync(join(pgdata, "standby.signal"))).toBe(true);
    // As in the pod: primary_conninfo names no password; the walreceiver takes PGPASSWORD.
    start(pgdata, replicaPort, "replica.conf", { PGPASSWORD: passwords.replicator! }, [
      `-c "primary_conninfo=${conninfo}"`,
    ]);
    query(primaryPort, "INSERT INTO notes (text) VALUES ('streamed')", { role: "projector" });
    const deadline = Date.now() + 30_000;
    let seen = "";
    while (Date.now() < deadline) {
      seen = query(replicaPort, "SELECT count(*) FROM notes WHERE text = 'streamed'", { role: "data_query" });
      if (seen === "1") break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(seen).toBe("1");
    expect(query(primaryPort, "SELECT application_name, state FROM pg_stat_replication")).toBe(
      "postgres-replica|streaming",
    );
    expect(psql(replicaPort, "INSERT INTO notes (text) VALUES ('no')", { role: "projector" }).output).toMatch(
      /read-only transaction/,
    );
    // A second start finds the cluster and leaves it as it is.
    stop(pgdata);
    expect(
      runOk("bash", [path("etc", "replica-init.sh")], {
        PGDATA: pgdata,
        PRIMARY_HOST: "127.0.0.1",
        PRIMARY_PORT: String(primaryPort),
      }),
    ).toMatch(/holds a cluster already/);
  });

  test("three backups keep the newest BACKUP_KEEP; the restore brings back the newest one's data", async () => {
    const backup = () =>
      runOk("bash", [path("etc", "backup.sh")], {
        BACKUP_DIR: path("backups"),
        BACKUP_KEEP: "2",
        PRIMARY_HOST: "127.0.0.1",
        PRIMARY_PORT: String(primaryPort),
        PGPASSWORD: passwords.replicator!,
      });
    for (const round of [1, 2, 3]) {
      query(
        primaryPort,
        `INSERT INTO offsets VALUES ('round', ${round}) ON CONFLICT (topic) DO UPDATE SET next = ${round}`,
        {
          role: "projector",
        },
      );
      expect(backup()).toMatch(/complete/);
      // Folders are named by the second.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
    }
    const kept = readdirSync(path("backups")).sort();
    expect(kept).toHaveLength(2);
    for (const folder of kept)
      expect(readdirSync(path("backups", folder)).sort()).toEqual(["backup_manifest", "base.tar.gz", "pg_wal.tar.gz"]);
    // Written after the newest backup: a restore does not have it.
    query(primaryPort, "INSERT INTO offsets VALUES ('round', 4) ON CONFLICT (topic) DO UPDATE SET next = 4", {
      role: "projector",
    });

    stop(primary());
    const restored = runOk("bash", [path("etc", "restore.sh")], {
      BACKUP_DIR: path("backups"),
      PGDATA: primary(),
      BACKUP: "latest",
    });
    expect(restored).toMatch(new RegExp(`restore: .*${kept[1]} is in`));
    expect(readdirSync(path("primary")).some((name) => name.startsWith("pgdata.before-restore-"))).toBe(true);
    start(primary(), primaryPort, "postgresql.conf");
    expect(query(primaryPort, "SELECT next FROM offsets WHERE topic = 'round'", { role: "projector" })).toBe("3");
    expect(query(primaryPort, "SELECT free FROM balance_points WHERE block = 2", { role: "data_query" })).toBe("12");
    // It is a primary again, with the roles and grants of the backup.
    query(primaryPort, "INSERT INTO offsets VALUES ('after-restore', 1)", { role: "projector" });
    expect(query(primaryPort, "SELECT pg_is_in_recovery()")).toBe("f");

    // A named backup, and a name that is none.
    stop(primary());
    expect(
      run("bash", [path("etc", "restore.sh")], { BACKUP_DIR: path("backups"), PGDATA: primary(), BACKUP: "base-x" })
        .status,
    ).not.toBe(0);
    runOk("bash", [path("etc", "restore.sh")], { BACKUP_DIR: path("backups"), PGDATA: primary(), BACKUP: kept[0]! });
    start(primary(), primaryPort, "postgresql.conf");
    expect(query(primaryPort, "SELECT next FROM offsets WHERE topic = 'round'", { role: "projector" })).toBe("2");
  }, 120_000);
});
