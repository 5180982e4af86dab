import { mkdirSync } from "node:fs";
import { findBinary } from "./findBinary.js";
import { freePort } from "./freePort.js";
import { type ManagedProcess, spawnManaged } from "./process.js";
import { isListening } from "./tcp.js";
import { waitFor } from "./waitFor.js";

export interface StartRedisOptions {
  port?: number;
  /** Working folder for AOF files. */
  dir: string;
  logFile: string;
  /** The local stack keeps an append-only file; tests don't need one. */
  appendOnly?: boolean;
  /**
   * Users and their grants (redis-server's `aclfile`, e.g. @platform/store redisAclFile). Without
   * one, the `default` user may do anything without a password.
   */
  aclFile?: string;
  /** TLS only (no plain port): PEM certificate and key of the server, and the CA clients are checked against. */
  tls?: { certFile: string; keyFile: string; caFile: string };
  detached?: boolean;
}

export interface RunningRedis {
  /** The address, without credentials. */
  url: string;
  port: number;
  process: ManagedProcess;
  stop(): Promise<void>;
}

/** Starts Debian's redis-server on loopback and waits until it accepts connections. */
export async function startRedis(options: StartRedisOptions): Promise<RunningRedis> {
  const port = options.port ?? (await freePort());
  mkdirSync(options.dir, { recursive: true });
  const process = spawnManaged({
    name: "redis",
    command: findBinary("redis-server", "REDIS_SERVER_BIN"),
    args: [
      "--bind",
      "127.0.0.1",
      "--port",
      String(port),
      "--dir",
      options.dir,
      "--save",
      "",
      "--appendonly",
      options.appendOnly ? "yes" : "no",
      "--daemonize",
      "no",
      "--protected-mode",
      "yes",
      ...(options.aclFile === undefined ? [] : ["--aclfile", options.aclFile]),
      ...(options.tls === undefined
        ? []
        : [
            "--tls-port",
            String(port),
            "--port",
            "0",
            "--tls-cert-file",
            options.tls.certFile,
            "--tls-key-file",
            options.tls.keyFile,
            "--tls-ca-cert-file",
            options.tls.caFile,
            "--tls-auth-clients",
            "no",
          ]),
    ],
    logFile: options.logFile,
    detached: options.detached,
  });
  await waitFor(() => isListening(port), { what: `redis on port ${port}`, timeoutMs: 15_000, intervalMs: 50 });
  const scheme = options.tls === undefined ? "redis" : "rediss";
  return { url: `${scheme}://127.0.0.1:${port}`, port, process, stop: () => process.stop() };
}
