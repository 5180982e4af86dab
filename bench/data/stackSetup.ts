// What bench/data's runners share (run.ts, the single-URL routes; mixRun.ts, the realistic mix): the
// whole local stack from dist with the native network, an unlimited-tier data:read key and its
// token, and the baseline process (baseline.ts) on the stack's Redis.
import { join } from "node:path";
import { DEMO_TEMPO } from "@platform/devnet";
import {
  authCli,
  freePorts,
  NODE_FLAGS,
  type PortPlan,
  type RunningStack,
  redisAdminUrl,
  repoRoot,
  type ServiceName,
  serviceCredentialEnv,
  silentProgress,
  startStack,
} from "@platform/local-stack";
import { type ManagedProcess, rpcRequest, spawnManaged, tempDir, waitFor } from "@platform/testing";
import type { HalBody } from "./routes.js";

export interface BenchStack {
  stack: RunningStack;
  ports: PortPlan;
  /** The stack's state directory (logs under `logs/`); removed by `stop` unless BENCH_KEEP_STATE=1. */
  statePath: string;
  gatewayUrl: string;
  redisUrl: string;
  /**
   * The read models' Redis Cluster (`redisCluster`), its nodes and the admin user's credentials:
   * where the baseline reads instead of `redisUrl`.
   */
  readModelsCluster?: { nodes: string; username: string; password: string };
  /**
   * The history database as data-query reaches it: POSTGRES_URL and data-query's read-only role
   * (POSTGRES_USERNAME/POSTGRES_PASSWORD); empty when the stack runs without PostgreSQL.
   */
  historyEnv: Record<string, string>;
  /** The same as the projector's role (it writes history.series_points): bench/data/history.ts seeds with it. */
  historyWriterEnv: Record<string, string>;
  /** Stops the stack and removes its state (kept, and said so, with BENCH_KEEP_STATE=1). */
  stop(): Promise<void>;
}

/**
 * Starts the whole local stack from `dist` (Kafka, Redis, NATS, anvil, the Subtensor runtime under
 * chopsticks, the services, the simulator), as production runs it, with warn-level logs.
 */
export async function startBenchStack(
  name: string,
  options: {
    /** The native network's block time (the local stack's own default, 2 s, when unset). */
    nativeBlockTimeMs?: number;
    /** Time between the coin price feed's rounds (the simulator's own default, 3 s, when unset). */
    priceIntervalMs?: number;
    /** The read models on a Redis Cluster of the stack's own (startStack's redisCluster). */
    redisCluster?: boolean;
    /** Extra environment of some services (startStack's serviceEnv). */
    serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  } = {},
): Promise<BenchStack> {
  const state = tempDir(name);
  const ports = await freePorts();
  process.stdout.write("starting the stack (Kafka, Redis, NATS, anvil, the Subtensor runtime, services, simulator)…\n");
  const stack = await startStack({
    stateDir: state.path,
    ports,
    detached: false,
    runtime: "dist",
    progress: silentProgress,
    logLevel: "warn",
    nativeNetwork: true,
    ...(options.redisCluster === true ? { redisCluster: true } : {}),
    ...(options.serviceEnv === undefined ? {} : { serviceEnv: options.serviceEnv }),
    ...(options.nativeBlockTimeMs === undefined ? {} : { nativeBlockTimeMs: options.nativeBlockTimeMs }),
    ...(options.priceIntervalMs === undefined
      ? {}
      : { simulatorEnv: { SIM_PRICE_INTERVAL_MS: String(options.priceIntervalMs) } }),
  });
  if (stack.descriptor.substrate !== undefined && stack.descriptor.substrate.blockTimeMs > 0)
    await passFirstEpochs(stack.descriptor.substrate.httpUrl);
  const postgresUrl = stack.descriptor.infrastructure.postgresUrl;
  const historyEnvOf = (service: string) =>
    postgresUrl === undefined
      ? {}
      : {
          POSTGRES_URL: postgresUrl,
          ...serviceCredentialEnv(join(state.path, "secrets"), service, { POSTGRES_URL: postgresUrl }),
        };
  return {
    stack,
    ports,
    statePath: state.path,
    historyEnv: historyEnvOf("data-query"),
    historyWriterEnv: historyEnvOf("projector"),
    gatewayUrl: stack.descriptor.gatewayUrl,
    redisUrl: redisAdminUrl(stack.descriptor),
    ...(stack.descriptor.infrastructure.redisClusterNodes === undefined
      ? {}
      : {
          readModelsCluster: {
            nodes: stack.descriptor.infrastructure.redisClusterNodes,
            username: "admin",
            password: decodeURIComponent(new URL(redisAdminUrl(stack.descriptor)).password),
          },
        }),
    async stop() {
      await stack.stop();
      if (process.env.BENCH_KEEP_STATE === "1") process.stdout.write(`state and logs kept in ${state.path}\n`);
      else state.remove();
    },
  };
}

/**
 * Builds the native chain past every subnet's first epoch at once: a subnet's validators hold their
 * permits only from its first epoch on (validators/latest lists none before), and at Bittensor's
 * 12 s blocks the demo tempo would take six minutes to get there. The block timer is held while
 * chopsticks builds the blocks on demand, then goes on at its own pace.
 */
async function passFirstEpochs(httpUrl: string): Promise<void> {
  process.stdout.write(`building ${DEMO_TEMPO + 2} native blocks at once, past every subnet's first epoch…\n`);
  await buildNativeBlocks(httpUrl, DEMO_TEMPO + 2);
}

/**
 * Builds `count` native blocks at once (chopsticks, about 1 s each here), the block timer held
 * meanwhile: a chain long enough that its early blocks are older than the read models' 64-point
 * Redis windows, so reads at them go to PostgreSQL (bench/data/history.ts, the mix's block reads).
 */
export async function buildNativeBlocks(httpUrl: string, count: number): Promise<void> {
  const call = (method: string, params: unknown[] = []) => rpcRequest(httpUrl, method, params);
  await call("dev_pauseBlockTimer");
  try {
    // In calls of at most 20 blocks: one call for many outlasts the RPC client's timeout here.
    for (let left = count; left > 0; left -= 20) await call("dev_newBlock", [{ count: Math.min(20, left) }]);
  } finally {
    await call("dev_resumeBlockTimer");
  }
}

/** The native chain's best block number, as the stack's node reports it. */
export async function chainHead(httpUrl: string): Promise<number> {
  return Number.parseInt((await rpcRequest<{ number: string }>(httpUrl, "chain_getHeader")).number, 16);
}

export interface DataKey {
  id: string;
  secret: string;
}

/**
 * An `unlimited`-tier API key with `data:read`, created through the admin CLI: the gateway checks
 * the token and runs the rate-limit script on every request, and never refuses one.
 */
export async function createDataKey(stack: RunningStack, name: string): Promise<DataKey> {
  const authTarget = stack.descriptor.processes.find((entry) => entry.name === "auth")!.adminGrpcTarget!;
  return JSON.parse(
    await authCli(
      "dist",
      ["keys", "create", "--name", name, "--scopes", "data:read", "--tier", "unlimited", "--json"],
      { AUTH_ADMIN_GRPC_TARGET: authTarget },
    ),
  ) as DataKey;
}

/** The Authorization header of a fresh access token for `key` (tokens live 15 minutes). */
export async function authorization(gatewayUrl: string, key: DataKey): Promise<Record<string, string>> {
  const issued = await fetch(`${gatewayUrl}/auth`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "API_KEY", username: key.id, password: key.secret }),
  });
  if (issued.status !== 200) throw new Error(`POST /auth answered ${issued.status}`);
  return { authorization: `Bearer ${((await issued.json()) as { access_token: string }).access_token}` };
}

export interface BaselineProcess {
  url: string;
  process: ManagedProcess;
  /** Resolves once it answers /readyz (its Redis client is ready). */
  ready(): Promise<void>;
}

/**
 * Starts baseline.ts as its own process on the stack's Redis: the express app, or with
 * `http: "node"` the same handlers on node's HTTP server (BASELINE_HTTP=node).
 */
export async function startBaseline(options: {
  name: string;
  redisUrl: string;
  /** Read the read models from this cluster instead (BenchStack's readModelsCluster). */
  cluster?: { nodes: string; username: string; password: string } | undefined;
  statePath: string;
  http: "express" | "node";
  /** BenchStack's historyEnv: the baseline reads the history database as data-query does. */
  historyEnv?: Record<string, string>;
  env?: Record<string, string>;
}): Promise<BaselineProcess> {
  const port = (await freePorts()).gateway;
  const url = `http://127.0.0.1:${port}`;
  const managed = spawnManaged({
    name: options.name,
    command: process.execPath,
    // data-query's V8 flags: the baseline runs data-query's own reads, so it gets the same young generation.
    args: [
      ...(NODE_FLAGS["data-query"] ?? []),
      "--conditions=@platform/source",
      "--import",
      "tsx",
      join(repoRoot, "bench", "data", "baseline.ts"),
    ],
    cwd: repoRoot,
    logFile: join(options.statePath, "logs", `${options.name}.log`),
    env: {
      PATH: process.env.PATH,
      NODE_ENV: "production",
      ...(options.cluster === undefined
        ? { REDIS_URL: options.redisUrl }
        : {
            REDIS_NODES: options.cluster.nodes,
            REDIS_USERNAME: options.cluster.username,
            REDIS_PASSWORD: options.cluster.password,
          }),
      HTTP_PORT: String(port),
      LOG_LEVEL: "warn",
      ...(options.http === "node" ? { BASELINE_HTTP: "node" } : {}),
      ...options.historyEnv,
      ...options.env,
    },
  });
  return {
    url,
    process: managed,
    ready: async () => {
      await waitFor(async () => (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200, {
        what: options.name,
        timeoutMs: 60_000,
      });
    },
  };
}

/**
 * Waits until `path` answers 200 with data on the gateway and on the baseline, both carrying the
 * same members and the same number of embedded items: the baseline must do the gateway's work, not
 * less. With `sameTag`, also until both answer the same ETag at once (the same bytes: read at the
 * same block, which may take a few tries while blocks move).
 */
export async function waitPopulated(options: {
  path: string;
  what: string;
  populated(body: HalBody): boolean;
  gatewayUrl: string;
  baselineUrl: string;
  headers: Record<string, string>;
  timeoutMs: number;
  sameTag?: boolean;
}): Promise<void> {
  const { path, headers } = options;
  const read = async (url: string, withHeaders?: Record<string, string>) => {
    const response = await fetch(url, withHeaders ? { headers: withHeaders } : {});
    return { status: response.status, tag: response.headers.get("etag"), body: (await response.json()) as HalBody };
  };
  const shape = (body: HalBody) =>
    JSON.stringify([
      Object.keys(body).sort(),
      Object.entries(body._embedded ?? {}).map(([name, items]) => [name, items.length]),
    ]);
  let last = "";
  await waitFor(
    async () => {
      const [gateway, base] = await Promise.all([
        read(`${options.gatewayUrl}${path}`, headers),
        read(`${options.baselineUrl}${path}`),
      ]);
      last = `gateway ${gateway.status} ${gateway.tag} ${JSON.stringify(gateway.body).slice(0, 300)}; baseline ${base.status} ${base.tag} ${JSON.stringify(base.body).slice(0, 300)}`;
      if (gateway.status !== 200 || base.status !== 200) return false;
      if (!options.populated(gateway.body) || !options.populated(base.body)) return false;
      if (shape(gateway.body) !== shape(base.body))
        throw new Error(`the baseline's answer differs in shape from the gateway's for ${path}`);
      return options.sameTag !== true || (gateway.tag !== null && gateway.tag === base.tag);
    },
    { what: `${options.what} answering data on both sides`, timeoutMs: options.timeoutMs, intervalMs: 500 },
  ).catch((error: unknown) => {
    throw new Error(`${error instanceof Error ? error.message : String(error)}; last: ${last}`, { cause: error });
  });
}
