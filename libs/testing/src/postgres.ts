import { execFile, execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { freePort } from "./freePort.js";
import { type ManagedProcess, spawnManaged } from "./process.js";
import { isListening } from "./tcp.js";
import { waitFor } from "./waitFor.js";

export interface StartPostgresOptions {
  port?: number;
  /** The cluster's folder (PGDATA): created by initdb when it holds no cluster yet. */
  dataDir: string;
  logFile: string;
  /** The superuser `postgres`'s password (scram-sha-256 over TCP); written to a file for initdb, never to argv. */
  superuserPassword: string;
  /**
   * Tests trade durability for speed (fsync, synchronous_commit and full-page writes off: a crash
   * of the machine may lose the cluster); the local stack keeps PostgreSQL's defaults.
   */
  durable?: boolean;
  /** Extra `-c name=value` settings. */
  settings?: Record<string, string>;
  detached?: boolean;
}

export interface RunningPostgres {
  /** `postgres://127.0.0.1:<port>/postgres`, without credentials. */
  url: string;
  port: number;
  dataDir: string;
  process: ManagedProcess;
  stop(): Promise<void>;
}

/**
 * Starts Debian's PostgreSQL (postgresql-15) on loopback, TCP only, and waits until it accepts
 * connections. PostgreSQL refuses to run as root, so as root (CI, this workplace) initdb and the
 * server run as the `postgres` user the package creates, through setpriv, which execs: the managed
 * pid is the server's own.
 */
export async function startPostgres(options: StartPostgresOptions): Promise<RunningPostgres> {
  const port = options.port ?? (await freePort());
  const bin = postgresBinDir();
  const dataDir = resolve(options.dataDir);
  const owner = serverUser();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (owner !== undefined) {
    openPathTo(dataDir);
    chownSync(dataDir, owner.uid, owner.gid);
  }
  if (!existsSync(join(dataDir, "PG_VERSION"))) initCluster(bin, dataDir, options.superuserPassword, owner);
  const settings: Record<string, string> = {
    listen_addresses: "127.0.0.1",
    port: String(port),
    unix_socket_directories: "",
    ...(options.durable ? {} : { fsync: "off", synchronous_commit: "off", full_page_writes: "off" }),
    ...options.settings,
  };
  const server = join(bin, "postgres");
  const args = ["-D", dataDir, ...Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`])];
  const process = spawnManaged({
    name: "postgres",
    ...(owner === undefined ? { command: server, args } : asUser(owner, server, args)),
    logFile: options.logFile,
    detached: options.detached,
  });
  // Listening is not ready: a starting server refuses queries ("the database system is starting up").
  const isReady = join(bin, "pg_isready");
  await waitFor(
    async () =>
      (await isListening(port)) &&
      (await new Promise<boolean>((done) =>
        execFile(isReady, ["-q", "-h", "127.0.0.1", "-p", String(port)], (error) => done(error === null)),
      )),
    { what: `postgres on port ${port}`, timeoutMs: 30_000, intervalMs: 50 },
  );
  return {
    url: `postgres://127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    process,
    // SIGTERM is a smart shutdown that waits for clients; SIGINT (fast) ends their sessions.
    stop: async () => {
      process.kill("SIGINT");
      await process.stop();
    },
  };
}

/** The newest installed server's bin folder (Debian: /usr/lib/postgresql/<major>/bin), or POSTGRES_BIN_DIR. */
export function postgresBinDir(): string {
  const override = process.env.POSTGRES_BIN_DIR;
  if (override) return override;
  const root = "/usr/lib/postgresql";
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(join(root, name, "bin", "postgres")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors[0] === undefined)
    throw new Error("PostgreSQL was not found in /usr/lib/postgresql; run deploy/local/install-deps.sh");
  return join(root, majors[0], "bin");
}

interface ServerUser {
  uid: number;
  gid: number;
}

/** The `postgres` account when running as root (the server will not), else none: run as ourselves. */
function serverUser(): ServerUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string): number => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  const [uid, gid] = [id("-u"), id("-g")];
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error("running as root needs the postgres user");
  return { uid, gid };
}

function asUser(owner: ServerUser, command: string, args: string[]): { command: string; args: string[] } {
  return {
    command: "setpriv",
    args: [`--reuid=${owner.uid}`, `--regid=${owner.gid}`, "--clear-groups", "--", command, ...args],
  };
}

/** Lets the server's user reach its folder: temporary folders are 0700 and owned by root. */
function openPathTo(folder: string): void {
  for (let parent = dirname(folder); parent !== dirname(parent); parent = dirname(parent)) {
    const mode = statSync(parent).mode;
    if ((mode & 0o001) === 0) chmodSync(parent, (mode & 0o7777) | 0o711);
  }
}

function initCluster(bin: string, dataDir: string, password: string, owner: ServerUser | undefined): void {
  const passwordFile = join(dataDir, "..", `.${Buffer.from(dataDir).toString("hex").slice(-16)}.pw`);
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (owner !== undefined) chownSync(passwordFile, owner.uid, owner.gid);
  const initdb = join(bin, "initdb");
  const args = [
    "-D",
    dataDir,
    "-U",
    "postgres",
    "--auth=scram-sha-256",
    `--pwfile=${passwordFile}`,
    "-E",
    "UTF8",
    "--locale=C.UTF-8",
    "--no-sync",
    "--no-instructions",
  ];
  try {
    const call = owner === undefined ? { command: initdb, args } : asUser(owner, initdb, args);
    execFileSync(call.command, call.args, { stdio: ["ignore", "pipe", "pipe"] });
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

/**
 * Takes a base backup of a running server with pg_basebackup (plain format, the WAL it needs
 * streamed alongside), as the superuser `postgres`, into `target`: what a restore starts from.
 * The password travels in the environment, never in argv.
 */
export async function takeBaseBackup(
  server: RunningPostgres,
  target: string,
  superuserPassword: string,
): Promise<void> {
  const owner = serverUser();
  mkdirSync(target, { recursive: true, mode: 0o700 });
  if (owner !== undefined) {
    openPathTo(target);
    chownSync(target, owner.uid, owner.gid);
  }
  const basebackup = join(postgresBinDir(), "pg_basebackup");
  const args = [
    "-h",
    "127.0.0.1",
    "-p",
    String(server.port),
    "-U",
    "postgres",
    "-D",
    target,
    "-X",
    "stream",
    "-c",
    "fast",
  ];
  const call = owner === undefined ? { command: basebackup, args } : asUser(owner, basebackup, args);
  await new Promise<void>((done, failed) =>
    execFile(
      call.command,
      call.args,
      { env: { ...process.env, PGPASSWORD: superuserPassword } },
      (error, _stdout, stderr) => (error === null ? done() : failed(new Error(`pg_basebackup failed: ${stderr}`))),
    ),
  );
}
