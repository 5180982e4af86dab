import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { isAlive, isListening, stopPid } from "@platform/testing";
import { readDescriptor, type StackDescriptor } from "./descriptor.js";
import { FUND_USAGE } from "./fundUsage.js";
import { defaultStateDir } from "./paths.js";
import { configuredPorts } from "./ports.js";
import { consoleProgress } from "./progress.js";
import { type ObservabilityOptions, observabilityFromEnv } from "./prometheus.js";
import type { ExternalInfrastructure } from "./startStack.js";
import { renderSummary } from "./summary.js";

const [command = "up", ...rest] = process.argv.slice(2);
const stateDir = process.env.STACK_STATE_DIR ?? defaultStateDir;

try {
  switch (command) {
    case "up":
      await up();
      break;
    case "stop":
      await stop();
      break;
    case "status":
      process.exitCode = await status();
      break;
    case "logs":
      logs(rest[0]);
      break;
    case "fund":
      process.exitCode = await fund(rest);
      break;
    default:
      process.stderr.write(`usage: deploy/local/stack up | stop | status | logs [name] | fund <address> [options]\n`);
      process.exitCode = 2;
  }
} catch (error) {
  process.stderr.write(`\n${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}

async function up(): Promise<void> {
  const existing = readDescriptor(stateDir);
  if (existing?.processes.some((entry) => isAlive(entry.pid))) {
    process.stdout.write("The stack is already running (deploy/local/stack stop ends it).\n\n");
    process.stdout.write(renderSummary(existing));
    return;
  }
  // Loaded here, not above: it brings the chains' libraries, which `status` and `stop` do not need
  // (they answer in a second instead of several).
  const [{ startStack }, { otelServiceEnv }] = await Promise.all([
    import("./startStack.js"),
    import("./tracingEnv.js"),
  ]);
  const observability = observabilityOptions();
  const otelEnv = otelServiceEnv();
  const progress = consoleProgress();
  const started = Date.now();
  const stack = await startStack({
    stateDir,
    ports: configuredPorts(),
    detached: true,
    runtime: "dist",
    external: externalFromEnv(),
    logLevel: process.env.STACK_LOG_LEVEL ?? "info",
    progress,
    nativeNetwork: true,
    nativeBlockTimeMs: nativeBlockTimeFromEnv(),
    kafkaNodes: kafkaNodesFromEnv(),
    ...chainTopicsRetentionFromEnv(),
    ...(observability === undefined ? {} : { observability }),
    // OTEL_* of this shell go to every service (README, Tracing).
    ...(otelEnv === undefined ? {} : { serviceEnv: otelEnv }),
  });
  progress.done(`stack ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.stdout.write(`\n${renderSummary(stack.descriptor)}`);
}

/** `STACK_SUBTENSOR_BLOCK_MS`: the native network's block time (2,000 ms by default, as a fast local stand-in for 12 s). */
function nativeBlockTimeFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const value = env.STACK_SUBTENSOR_BLOCK_MS;
  if (value === undefined || value === "") return undefined;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 200 || ms > 60_000) {
    process.stderr.write(
      `STACK_SUBTENSOR_BLOCK_MS: must be a whole number of milliseconds between 200 and 60000, got "${value}"\n`,
    );
    process.exit(78);
  }
  return ms;
}

/** `STACK_KAFKA_NODES`: 1 (the default) or a KRaft cluster of that many nodes, e.g. 3 with replication factor 3. */
function kafkaNodesFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const value = env.STACK_KAFKA_NODES;
  if (value === undefined || value === "") return 1;
  if (!/^[1-5]$/.test(value)) {
    process.stderr.write(`STACK_KAFKA_NODES: must be a whole number from 1 to 5, got "${value}"\n`);
    process.exit(78);
  }
  return Number(value);
}

/**
 * `STACK_CHAIN_TOPICS_RETENTION_MS`: the chain topics' `retention.ms` (the services'
 * CHAIN_TOPICS_RETENTION_MS), a positive number of ms or -1 for ever; 7 days when unset.
 */
function chainTopicsRetentionFromEnv(env: NodeJS.ProcessEnv = process.env): { chainTopicsRetentionMs?: number } {
  const value = env.STACK_CHAIN_TOPICS_RETENTION_MS;
  if (value === undefined || value === "") return {};
  if (!/^(-1|[1-9]\d{0,14})$/.test(value)) {
    process.stderr.write(
      `STACK_CHAIN_TOPICS_RETENTION_MS: must be a whole number of milliseconds or -1, got "${value}"\n`,
    );
    process.exit(78);
  }
  return { chainTopicsRetentionMs: Number(value) };
}

/** `STACK_OBSERVABILITY=1` (and its tuning variables): Prometheus with the alert rules; exit 78 naming a malformed variable. */
function observabilityOptions(): ObservabilityOptions | undefined {
  try {
    return observabilityFromEnv();
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(78);
  }
}

/**
 * `STACK_KAFKA_BROKERS`, `STACK_REDIS_URL`, `STACK_NATS_URL`, `STACK_POSTGRES_URL` (a superuser's URL:
 * the stack provisions its roles and database there), `STACK_CHAINS_FILE` point at servers the
 * stack then does not start.
 */
function externalFromEnv(): ExternalInfrastructure {
  const env = process.env;
  return {
    kafkaBrokers: env.STACK_KAFKA_BROKERS
      ? env.STACK_KAFKA_BROKERS.split(",").map((broker) => broker.trim())
      : undefined,
    redisUrl: env.STACK_REDIS_URL || undefined,
    natsUrl: env.STACK_NATS_URL || undefined,
    postgresUrl: env.STACK_POSTGRES_URL || undefined,
    chainsFile: env.STACK_CHAINS_FILE || undefined,
  };
}

async function stop(): Promise<void> {
  const descriptor = readDescriptor(stateDir);
  if (!descriptor) {
    process.stdout.write("No stack descriptor found; nothing to stop.\n");
    return;
  }
  // Two waves, each all at once: what uses the servers (services, the simulator), then the servers
  // (a Kafka cluster's nodes together: a node left alone waits for a quorum that is gone).
  const users = descriptor.processes.filter((entry) => entry.opsUrl !== undefined || entry.name === "simulator");
  const servers = descriptor.processes.filter((entry) => !users.includes(entry));
  for (const wave of [users, servers])
    await Promise.all(
      wave.map(async (one) => {
        // PostgreSQL's SIGTERM waits for every client to leave; SIGINT (a fast shutdown) ends them.
        const running = isAlive(one.pid);
        if (one.name === "postgres" && running) process.kill(one.pid, "SIGINT");
        const stopped = (await stopPid(one.pid, one.name.startsWith("kafka") ? 30_000 : 15_000)) || running;
        process.stdout.write(`${stopped ? "stopped" : "not running"}: ${one.name} (pid ${one.pid})\n`);
      }),
    );
}

async function status(): Promise<number> {
  const descriptor = readDescriptor(stateDir);
  if (!descriptor) {
    process.stdout.write("The stack is not running (no .local/stack.json).\n");
    return 3;
  }
  let allUp = true;
  for (const entry of descriptor.processes) {
    const alive = isAlive(entry.pid);
    allUp &&= alive;
    const readiness = !alive
      ? ""
      : entry.opsUrl
        ? await readyState(`${entry.opsUrl}/readyz`)
        : entry.name === "postgres"
          ? await postgresState(descriptor.infrastructure.postgresUrl)
          : "";
    process.stdout.write(
      `${alive ? "up  " : "DOWN"}  ${entry.name.padEnd(20)} pid ${String(entry.pid).padEnd(8)} ${readiness}\n`,
    );
  }
  const gateway = await readyState(`${descriptor.gatewayUrl}/readyz`);
  process.stdout.write(`\ngateway ${descriptor.gatewayUrl}: ${gateway}\n`);
  return allUp && gateway === "ready" ? 0 : 1;
}

/** Whether the stack's PostgreSQL takes connections on its port (the history database's URL). */
async function postgresState(url: string | undefined): Promise<string> {
  if (url === undefined) return "";
  const { hostname, port } = new URL(url);
  return (await isListening(Number(port || 5432), hostname)) ? `accepting connections (${url})` : "not listening";
}

async function readyState(url: string): Promise<string> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.status === 200 ? "ready" : `not ready (${response.status})`;
  } catch {
    return "unreachable";
  }
}

/**
 * `fund <address> [--usdc N] [--eth N] [--tao N] [--chain NAME|ID]`: the devnet faucet. Exit 2 for a
 * wrong argument or a request this stack cannot serve, 3 when no stack is running, 1 when a chain
 * refused.
 */
async function fund(args: readonly string[]): Promise<number> {
  // Loaded here: the chains' libraries, which the other commands do not need.
  const [{ parseFundArgs }, { fundAccount, renderFundResult }, { FaucetError }] = await Promise.all([
    import("./fundArgs.js"),
    import("./fund.js"),
    import("@platform/devnet"),
  ]);
  const parsed = parseFundArgs(args);
  if (!parsed.ok) {
    process.stderr.write(`fund: ${parsed.error}\n${FUND_USAGE}\n`);
    return 2;
  }
  const descriptor = readDescriptor(stateDir);
  if (!descriptor?.processes.some((entry) => isAlive(entry.pid))) {
    process.stderr.write("fund: the stack is not running (deploy/local/stack up starts it)\n");
    return 3;
  }
  if (!descriptor.processes.some((entry) => entry.name.startsWith("anvil-"))) {
    process.stderr.write("fund: the stack's chains are not its own anvil nodes (STACK_CHAINS_FILE): no faucet there\n");
    return 2;
  }
  try {
    process.stdout.write(renderFundResult(await fundAccount(descriptor, parsed.request)));
    return 0;
  } catch (error) {
    if (!(error instanceof FaucetError && error.code === "FAUCET_REQUEST_REFUSED")) throw error;
    process.stderr.write(`fund: ${error.message}\n`);
    return 2;
  }
}

function logs(name: string | undefined): void {
  const descriptor: StackDescriptor | undefined = readDescriptor(stateDir);
  const folder = join(stateDir, "logs");
  if (!existsSync(folder)) {
    process.stdout.write("No logs yet: the stack has not run.\n");
    return;
  }
  const files = name ? [join(folder, `${name}.log`)] : (descriptor?.processes.map((entry) => entry.logFile) ?? []);
  const missing = files.find((file) => !existsSync(file));
  if (missing) {
    process.stderr.write(`No log ${missing}. Names: ${descriptor?.processes.map((entry) => entry.name).join(", ")}\n`);
    process.exitCode = 2;
    return;
  }
  // -F follows across restarts; Ctrl-C ends it.
  spawn("tail", ["-n", "50", "-F", ...files], { stdio: "inherit" });
}
