import { join } from "node:path";
import {
  freePorts,
  type PortPlan,
  repoRoot,
  serviceCommand,
  serviceProcessSpecs,
  testRuntime,
} from "@platform/local-stack";
import {
  type ManagedProcess,
  type RunningKafka,
  type RunningRedis,
  spawnManaged,
  startKafka,
  startNats,
  startRedis,
  tempDir,
  waitFor,
} from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// A running service loses Redis, then Kafka: its /readyz turns 503 within 5 s, the process stays
// up, and it is ready again within 10 s of the server's return, with nobody restarting it.
const dir = tempDir("dependency-loss");
let ports: PortPlan;
let redis: RunningRedis;
let kafka: RunningKafka;
let tc: ManagedProcess;
let readyUrl: string;

async function readyStatus(): Promise<number> {
  try {
    const response = await fetch(readyUrl, { signal: AbortSignal.timeout(1_000) });
    await response.body?.cancel();
    return response.status;
  } catch {
    return 0;
  }
}

async function timeUntil(status: number, timeoutMs: number): Promise<number> {
  const started = Date.now();
  await waitFor(async () => (await readyStatus()) === status, {
    what: `/readyz ${status}`,
    timeoutMs,
    intervalMs: 100,
  });
  return Date.now() - started;
}

beforeAll(async () => {
  ports = await freePorts();
  const nats = await startNats({ dir: join(dir.path, "nats"), logFile: join(dir.path, "nats.log") });
  [redis, kafka] = await Promise.all([
    startRedis({ port: ports.redis, dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") }),
    startKafka({
      port: ports.kafka,
      controllerPort: ports.kafkaController,
      dataDir: join(dir.path, "kafka"),
      logFile: join(dir.path, "kafka.log"),
    }),
  ]);
  const spec = serviceProcessSpecs(
    ports,
    {
      kafkaBrokers: kafka.brokers,
      redisUrl: redis.url,
      natsUrl: nats.url,
      chainsFile: join(repoRoot, "deploy", "config", "local", "chains.json"),
      secretsDir: dir.path,
    },
    "info",
  ).find((candidate) => candidate.name === "tc")!;
  readyUrl = spec.readyUrl;
  const { command, args } = serviceCommand(repoRoot, "tc", testRuntime());
  tc = spawnManaged({
    name: "tc",
    command,
    args,
    cwd: repoRoot,
    logFile: join(dir.path, "tc.log"),
    env: { PATH: process.env.PATH, ...spec.env, READINESS_INTERVAL_MS: "500" },
  });
  await timeUntil(200, 60_000);
  afterAllStops.push(() => nats.stop());
}, 180_000);

const afterAllStops: Array<() => Promise<void>> = [];
afterAll(async () => {
  await tc?.stop();
  await Promise.all([redis?.stop(), kafka?.stop(), ...afterAllStops.map((stop) => stop())]);
  dir.remove();
}, 60_000);

describe("readiness follows the dependencies and recovers by itself", () => {
  it("Redis lost: 503 within 5 s, back to 200 within 10 s of its return", async () => {
    await redis.process.kill("SIGKILL");
    await redis.process.exited;
    expect(await timeUntil(503, 5_000)).toBeLessThan(5_000);
    redis = await startRedis({ port: ports.redis, dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
    expect(await timeUntil(200, 10_000)).toBeLessThan(10_000);
  }, 30_000);

  it("Kafka lost: 503 within 5 s, back to 200 within 10 s of its return", async () => {
    await kafka.process.kill("SIGKILL");
    await kafka.process.exited;
    expect(await timeUntil(503, 5_000)).toBeLessThan(5_000);
    kafka = await startKafka({
      port: ports.kafka,
      controllerPort: ports.kafkaController,
      dataDir: join(dir.path, "kafka"),
      logFile: join(dir.path, "kafka.log"),
    });
    expect(await timeUntil(200, 10_000)).toBeLessThan(10_000);
  }, 120_000);

  it("the service process never crashed", async () => {
    const ended = await Promise.race([tc.exited, new Promise((resolve) => setTimeout(() => resolve("running"), 100))]);
    expect(ended).toBe("running");
  });
});
