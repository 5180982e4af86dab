import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { startHistoryServer } from "@platform/history/testing";
import {
  authCli,
  freePorts,
  type PortPlan,
  prepareSecrets,
  repoRoot,
  type ServiceProcessSpec,
  serviceCommand,
  serviceProcessSpecs,
  testRuntime,
} from "@platform/local-stack";
import { accountsKeys, marketKeys } from "@platform/read-models";
import {
  freePort,
  type ManagedProcess,
  spawnManaged,
  startKafka,
  startRedis,
  tempDir,
  waitFor,
} from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Issue 7: the gateway with two replicas of the `accounts` data-query group behind one gRPC target
// (`ipv4:` lists both, as a headless Service's DNS name would). Under steady load one replica is
// killed (SIGKILL, then SIGTERM), comes back on its address, and must be seen taking calls again
// without the gateway being restarted.
const dir = tempDir("multi-replica");
const ADDRESS = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY";
const WORKERS = 8;

interface Replica {
  name: string;
  spec: ServiceProcessSpec;
  opsUrl: string;
  process?: ManagedProcess;
}

let ports: PortPlan;
let replicas: Replica[];
let gatewayUrl: string;
let token: string;
const stops: Array<() => Promise<void>> = [];

function start(name: string, service: "auth" | "data-query" | "gateway", env: Record<string, string>): ManagedProcess {
  const { command, args } = serviceCommand(repoRoot, service, testRuntime());
  const handle = spawnManaged({
    name,
    command,
    args,
    cwd: repoRoot,
    logFile: join(dir.path, `${name}.log`),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
  });
  return handle;
}

/** As long as the local stack waits (startStack's readyTimeoutMs): on a loaded machine the first
 * consumer-group join on a fresh Kafka took over 60 s once. */
async function ready(url: string, timeoutMs = 90_000): Promise<void> {
  await waitFor(
    async () => {
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
        await response.body?.cancel();
        return response.status === 200;
      } catch {
        return false;
      }
    },
    { what: url, timeoutMs, intervalMs: 100 },
  );
}

async function startReplica(replica: Replica): Promise<void> {
  replica.process = start(replica.name, "data-query", replica.spec.env);
  await ready(`${replica.opsUrl}/readyz`);
}

/** OK answers of GetBalanceLatest this replica process has served since it started. */
async function servedCalls(replica: Replica): Promise<number> {
  const text = await (await fetch(`${replica.opsUrl}/metrics`)).text();
  const line = text
    .split("\n")
    .find(
      (candidate) =>
        candidate.startsWith("grpc_server_handled_total") &&
        candidate.includes('grpc_method="getBalanceLatest"') &&
        candidate.includes('grpc_code="OK"'),
    );
  return line ? Number(line.split(" ").at(-1)) : 0;
}

interface LoadResult {
  ok: number;
  failed: Array<{ status: number; body: string }>;
}

/** WORKERS loops of the same idempotent read until `until` resolves. */
async function steadyLoad(until: Promise<unknown>): Promise<LoadResult> {
  const result: LoadResult = { ok: 0, failed: [] };
  let done = false;
  void until.finally(() => {
    done = true;
  });
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      while (!done) {
        try {
          const response = await fetch(`${gatewayUrl}/data/v1/accounts/${ADDRESS}/balance/latest`, {
            headers: { authorization: `Bearer ${token}` },
            signal: AbortSignal.timeout(5_000),
          });
          const body = await response.text();
          if (response.status === 200) result.ok += 1;
          else result.failed.push({ status: response.status, body });
        } catch (error) {
          result.failed.push({ status: 0, body: String(error) });
        }
      }
    }),
  );
  return result;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  ports = await freePorts();
  // data-query's accounts group needs the history database (issue 41), as its data_query role.
  const [redis, kafka, history] = await Promise.all([
    startRedis({ port: ports.redis, dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") }),
    startKafka({
      port: ports.kafka,
      controllerPort: ports.kafkaController,
      dataDir: join(dir.path, "kafka"),
      logFile: join(dir.path, "kafka.log"),
    }),
    startHistoryServer({ dataDir: join(dir.path, "postgres") }),
  ]);
  stops.push(
    () => kafka.stop(),
    () => redis.stop(),
    () => history.stop(),
  );
  // No projector runs here: the accounts read model gets the head a projection would have written
  // (accountsKeys.head, libs/read-models), so reads answer zeros with as_of.
  execFileSync("redis-cli", [
    "-u",
    redis.url,
    "HSET",
    accountsKeys.head,
    "chainId",
    "31964",
    "blockNumber",
    "1",
    "blockHash",
    `0x${"ab".repeat(32)}`,
    "timestamp",
    new Date().toISOString(),
  ]);
  // ...and the markers a caught-up projector keeps (data-query answers REBUILDING without them).
  execFileSync("redis-cli", ["-u", redis.url, "MSET", accountsKeys.marker, "complete", marketKeys.marker, "complete"]);
  const secretsDir = join(dir.path, "secrets");
  await prepareSecrets(secretsDir, testRuntime());
  const infra = {
    kafkaBrokers: kafka.brokers,
    redisUrl: redis.url,
    natsUrl: "nats://127.0.0.1:1",
    postgresUrl: history.url,
    chainsFile: join(repoRoot, "deploy", "config", "local", "chains.json"),
    secretsDir,
  };
  const specs = serviceProcessSpecs(ports, infra, "info");
  const specOf = (name: string) => specs.find((spec) => spec.name === name)!;

  const auth = start("auth", "auth", specOf("auth").env);
  stops.unshift(() => auth.stop());
  await ready(specOf("auth").readyUrl);

  const dataQuery = specOf("data-query");
  replicas = await Promise.all(
    ["a", "b"].map(async (suffix) => {
      const [grpcPort, opsPort] = [await freePort(), await freePort()];
      const env = {
        ...dataQuery.env,
        GRPC_PORT: String(grpcPort),
        OPS_PORT: String(opsPort),
        DATA_QUERY_GROUPS: "accounts",
        POSTGRES_USERNAME: "data_query",
        POSTGRES_PASSWORD: history.passwords.data_query,
        SHUTDOWN_TIMEOUT_MS: "10000",
      };
      return {
        name: `data-query-${suffix}`,
        spec: { ...dataQuery, env, grpcTarget: `127.0.0.1:${grpcPort}` },
        opsUrl: `http://127.0.0.1:${opsPort}`,
      };
    }),
  );
  await Promise.all(replicas.map(startReplica));
  stops.unshift(async () => {
    for (const replica of replicas) await replica.process?.stop();
  });

  const gatewaySpec = specOf("gateway");
  gatewayUrl = `http://127.0.0.1:${ports.gateway}`;
  const gateway = start("gateway", "gateway", {
    ...gatewaySpec.env,
    DATA_ACCOUNTS_GRPC_TARGET: `ipv4:${replicas.map((replica) => replica.spec.grpcTarget).join(",")}`,
  });
  stops.unshift(() => gateway.stop());
  await waitFor(async () => (await fetch(`${gatewayUrl}/healthz`).catch(() => undefined))?.status === 200, {
    what: "gateway live",
    timeoutMs: 60_000,
  });

  const key = JSON.parse(
    await authCli(
      testRuntime(),
      ["keys", "create", "--name", "load", "--scopes", "data:read", "--tier", "unlimited", "--json"],
      { AUTH_ADMIN_GRPC_TARGET: specOf("auth").adminGrpcTarget! },
    ),
  ) as { id: string; secret: string };
  const response = await fetch(`${gatewayUrl}/auth`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "API_KEY", username: key.id, password: key.secret }),
  });
  token = ((await response.json()) as { access_token: string }).access_token;
  await waitFor(
    async () =>
      (
        await fetch(`${gatewayUrl}/data/v1/accounts/${ADDRESS}/balance/latest`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).status === 200,
    {
      what: "first data answer",
      timeoutMs: 30_000,
    },
  );
}, 240_000);

afterAll(async () => {
  for (const stop of stops) await stop().catch(() => undefined);
  dir.remove();
}, 60_000);

describe("gateway over two data-query replicas", () => {
  it("spreads calls over both replicas", async () => {
    const before = await Promise.all(replicas.map(servedCalls));
    const load = await steadyLoad(sleep(1_500));
    const after = await Promise.all(replicas.map(servedCalls));
    expect(load.failed).toEqual([]);
    expect(after[0]! - before[0]!).toBeGreaterThan(load.ok / 5);
    expect(after[1]! - before[1]!).toBeGreaterThan(load.ok / 5);
  }, 30_000);

  it("keeps answering through a SIGKILL of one replica (at most the in-flight calls fail) and uses the replica again once it is back", async () => {
    const [victim] = replicas;
    const scenario = (async () => {
      await sleep(1_000);
      victim!.process!.kill("SIGKILL");
      await sleep(2_000);
      await startReplica(victim!);
      await sleep(2_000);
    })();
    const load = await steadyLoad(scenario);
    // Reads are retried on UNAVAILABLE, so even calls in flight on the killed replica should succeed.
    expect(load.failed.length).toBeLessThanOrEqual(WORKERS);
    expect(load.ok).toBeGreaterThan(100);
    expect(await servedCalls(victim!)).toBeGreaterThan(0);
  }, 90_000);

  it("drains on SIGTERM with zero failed requests, and uses the replica again once it is back", async () => {
    const [, victim] = replicas;
    const scenario = (async () => {
      await sleep(1_000);
      victim!.process!.kill("SIGTERM");
      expect(await victim!.process!.exited).toBe(0);
      await startReplica(victim!);
      await sleep(2_000);
    })();
    const load = await steadyLoad(scenario);
    expect(load.failed).toEqual([]);
    expect(load.ok).toBeGreaterThan(100);
    expect(await servedCalls(victim!)).toBeGreaterThan(0);
  }, 90_000);
});
