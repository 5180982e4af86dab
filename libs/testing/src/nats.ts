import { mkdirSync } from "node:fs";
import { findBinary } from "./findBinary.js";
import { freePort } from "./freePort.js";
import { type ManagedProcess, spawnManaged } from "./process.js";
import { isListening } from "./tcp.js";
import { waitFor } from "./waitFor.js";

export interface StartNatsOptions {
  port?: number;
  /** JetStream's store folder. */
  dir: string;
  logFile: string;
  /**
   * A configuration file (`-c`), e.g. with users and their permissions (@platform/signals
   * natsAuthorization); the command line's address, port and JetStream settings win over it.
   */
  configFile?: string;
  detached?: boolean;
}

export interface RunningNats {
  /** The address, without credentials. */
  url: string;
  port: number;
  process: ManagedProcess;
  stop(): Promise<void>;
}

/** Starts Debian's nats-server with JetStream on loopback and waits until it accepts connections. */
export async function startNats(options: StartNatsOptions): Promise<RunningNats> {
  const port = options.port ?? (await freePort());
  mkdirSync(options.dir, { recursive: true });
  const process = spawnManaged({
    name: "nats",
    command: findBinary("nats-server", "NATS_SERVER_BIN"),
    args: [
      ...(options.configFile === undefined ? [] : ["-c", options.configFile]),
      ...["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", options.dir],
    ],
    logFile: options.logFile,
    detached: options.detached,
  });
  await waitFor(() => isListening(port), { what: `nats on port ${port}`, timeoutMs: 15_000, intervalMs: 50 });
  return { url: `nats://127.0.0.1:${port}`, port, process, stop: () => process.stop() };
}
