/**
 * bench/native (API): how soon a block built on the local native chain is visible in the public
 * Data API. The whole local stack runs (startStack with the native network: chopsticks on the real
 * Subtensor runtime, Kafka, Redis, NATS, every service, the gateway); the chain builds no block of
 * its own. For each measured block: one signed `balances.transferKeepAlive` from //Alice to a fresh
 * account goes into the pool, `dev_newBlock` builds the block (t0: the moment it answers with the
 * block's hash), then the gateway's `GET /data/v1/accounts/{recipient}/balance/latest` is polled
 * every 20 ms until its `as_of.block_number` has reached the block and `balance_free_rao` is the
 * recipient's new balance (t1: that answer's arrival). Latency = t1 − t0.
 *
 *   pnpm bench:native-api
 *
 * Baseline, measured in the same run: the round trip of one `balance/latest` request (the median of
 * the requests made right after each block became visible), so a latency of k × baseline says how
 * many plain reads of the answer it costs. Along the way, where the time goes: when the block's
 * BlockSeen was committed in Kafka (read_committed; the chain-ingestor's share), when the accounts
 * read model's head (`rm:{data}:accounts:head` in Redis) reached it (the projector's share), and the rest
 * (data-query and the gateway, plus the poll's granularity); and, once the block showed, the native
 * source's own read of it (headersAt + readBlocks of the chain-ingestor's code, on a connection of
 * this process, no Kafka) done again and timed: the part of the ingestor's share that is reading.
 *
 * Knobs: BENCH_NATIVE_API_BLOCKS (30), BENCH_NATIVE_API_WARMUP (2 blocks, not counted),
 * BENCH_NATIVE_API_SPACING_MS (1000, from one block's build to the next, plus or minus
 * BENCH_NATIVE_API_JITTER_MS/2: 500, so a build falls anywhere in the ingestor's poll cycle, as a
 * real chain's blocks do), BENCH_NATIVE_API_POLL_MS (20), BENCH_NATIVE_API_TIMEOUT_MS (30000, a
 * block not visible by then counts as that long and as missed), BENCH_NATIVE_API_STAGES (1; 0 turns
 * the stage observers off: no Kafka consumer, no Redis polls, no re-read), BENCH_NATIVE_API_INGESTOR_ENV
 * (unset; e.g. `NATIVE_POLL_INTERVAL_MS=100`: the stack's
 * chain-ingestor is replaced by one started here with the stack's environment plus these
 * comma-separated settings, to measure a setting without changing the stack; the figures then say
 * so). The figures also go to bench/results/native-api-<time>.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { createKafkaClient } from "@platform/bus";
import { substrateNetworkSchema } from "@platform/chain";
import { connectNativeChain, nativeDevPair, nativeKeyring, nativeTx } from "@platform/devnet";
import {
  authCli,
  DEFAULT_PORTS,
  freePorts,
  type RunningStack,
  redisAdminUrl,
  repoRoot,
  type ServiceRuntime,
  serviceCommand,
  serviceProcessSpecs,
  silentProgress,
  startStack,
} from "@platform/local-stack";
import { createLogger } from "@platform/log";
import { decodePayload, TOPICS } from "@platform/proto/topics";
import { createRedis } from "@platform/store";
import { type ManagedProcess, rpcRequest, spawnManaged, tempDir } from "@platform/testing";
import type { Hex } from "viem";
import { connectNativeChain as connectNativeReader } from "../../services/chain-ingestor/src/native/node/chainReader.js";
import { nativeBlockSource } from "../../services/chain-ingestor/src/native/source/blockSource.js";

const numberFromEnv = (name: string, fallback: number, { zero = false } = {}) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 0 || (value === 0 && !zero))
    throw new Error(`${name} must be a ${zero ? "whole number (0 or more)" : "positive whole number"}`);
  return value;
};
const BLOCKS = numberFromEnv("BENCH_NATIVE_API_BLOCKS", 30);
const WARMUP = numberFromEnv("BENCH_NATIVE_API_WARMUP", 2, { zero: true });
const SPACING_MS = numberFromEnv("BENCH_NATIVE_API_SPACING_MS", 1_000, { zero: true });
const JITTER_MS = numberFromEnv("BENCH_NATIVE_API_JITTER_MS", 500, { zero: true });
const STAGES = numberFromEnv("BENCH_NATIVE_API_STAGES", 1, { zero: true }) > 0;
const POLL_MS = numberFromEnv("BENCH_NATIVE_API_POLL_MS", 20);
const TIMEOUT_MS = numberFromEnv("BENCH_NATIVE_API_TIMEOUT_MS", 30_000);
const INGESTOR_ENV = parseSettings("BENCH_NATIVE_API_INGESTOR_ENV");
/** Requests timed back to back after each block became visible: the baseline's samples. */
const BASELINE_REQUESTS = 5;
/** 1 TAO a transfer; far above the existential deposit (500 rao). */
const AMOUNT_RAO = 1_000_000_000n;
/** The timer of the stack's native chain: an hour, so every block is one this bench builds. */
const NATIVE_BLOCK_TIME_MS = 3_600_000;
/** The bench runs after `pnpm build`: the services start from their compiled output, as with `pnpm stack up`. */
const RUNTIME: ServiceRuntime = "dist";
const TARGETS = { latencyP95Ms: 2_000 };
/** The accounts read model's head (services/projector/src/accounts/keys.ts). */
const ACCOUNTS_HEAD_KEY = "rm:{data}:accounts:head";

const say = (line: string) => process.stdout.write(`${line}\n`);
const silent = process.env.BENCH_LOG_LEVEL
  ? createLogger({ service: "bench-native-api", level: process.env.BENCH_LOG_LEVEL as "debug" })
  : createLogger({
      service: "bench-native-api",
      level: "warn",
      destination: new Writable({ write: (_c, _e, callback) => callback() }),
    });

interface BlockSample {
  number: number;
  hash: string;
  /** Built → the first API answer showing it, ms. */
  latencyMs: number;
  /** Built → its BlockSeen committed in Kafka; undefined when not seen. */
  publishedMs?: number;
  /** Built → the accounts head in Redis at or past it. */
  readModelMs?: number;
  /** The native source's read of the block (headersAt + readBlocks), done again after it showed. */
  rereadMs?: number;
  /** API requests made until the block showed. */
  polls: number;
  /** The visible answer's round trip. */
  lastRttMs: number;
  finality: string | null;
  missed: boolean;
}

const runStarted = performance.now();
const state = tempDir("bench-native-api");
let stack: RunningStack | undefined;
let replacement: ManagedProcess | undefined;
try {
  say(
    `starting the local stack with the native network (chopsticks, real Subtensor runtime, block timer off; services from dist)…`,
  );
  const start = async () =>
    startStack({
      stateDir: state.path,
      ports: await freePorts(),
      detached: false,
      runtime: RUNTIME,
      progress: silentProgress,
      simulator: false,
      nativeNetwork: true,
      nativeBlockTimeMs: NATIVE_BLOCK_TIME_MS,
    });
  // A free port can be taken by another process before the service binds it: one more try, for that cause only.
  stack = await start().catch((error: Error) => {
    if (!/EADDRINUSE/.test(error.message)) throw error;
    return start();
  });
  const running = stack;
  const stackMs = performance.now() - runStarted;
  const substrate = running.descriptor.substrate;
  if (substrate === undefined) throw new Error("the stack has no native network (descriptor.substrate is missing)");
  say(
    `stack up in ${(stackMs / 1000).toFixed(1)} s: gateway ${running.descriptor.gatewayUrl}, native node ${substrate.httpUrl} (spec ${substrate.specVersion})`,
  );
  if (Object.keys(INGESTOR_ENV).length > 0) replacement = await replaceIngestor(running, INGESTOR_ENV);

  const api = await dataApi(running);
  const chain = await connectNativeChain(substrate.rpcUrl);
  const kafka = createKafkaClient({
    brokers: running.descriptor.infrastructure.kafkaBrokers,
    clientId: "bench-native-api",
    logger: silent,
    // The stack's Kafka has ACLs: the bench reads as its super user.
    ...(running.descriptor.kafkaAdmin ? { credentials: running.descriptor.kafkaAdmin } : {}),
  });
  const published = STAGES ? await watchBlockSeen(kafka) : undefined;
  const redis = createRedis({ url: redisAdminUrl(running.descriptor), connectionName: "bench-native-api" });
  // The chain-ingestor's own reader and block source, with the stack's network settings (chains.json).
  const network = substrateNetworkSchema.parse({
    name: substrate.name,
    chainId: substrate.chainId,
    rpcUrl: substrate.rpcUrl,
    blockTimeMs: substrate.blockTimeMs,
    finality: { safeDepth: 1, finalizedDepth: 3 },
    rpc: { timeoutMs: 10_000, retryCount: 2, retryDelayMs: 250 },
  });
  const reader = STAGES ? await connectNativeReader(network) : undefined;
  const source =
    reader === undefined ? undefined : nativeBlockSource({ reader, network, finalizedHead: () => undefined });
  try {
    const keyring = await nativeKeyring();
    const alice = nativeDevPair(keyring, "Alice");
    const recipient = keyring.addFromUri(`//bench-native-api/${Date.now()}`);
    let nonce = (await chain.api.rpc.system.accountNextIndex(alice.address)).toNumber();
    let expectedFree = await freeAt(chain.api, recipient.address);
    let head = await headNumber(substrate.httpUrl);

    // The stack has followed the seed's blocks once the API's as_of reaches the chain's head.
    const caughtUp = await pollBalance(api, recipient.address, (answer) => answer.blockNumber >= head, 120_000);
    if (caughtUp.answer === undefined)
      throw new Error(`the Data API did not reach the chain's head #${head} within 120 s`);
    say(
      `the Data API is at the chain's head #${head}; ${WARMUP} warm-up block(s), then ${BLOCKS} measured, one transfer each, ${SPACING_MS} ± ${JITTER_MS / 2} ms apart, polled every ${POLL_MS} ms${STAGES ? "" : " (stage observers off)"}`,
    );

    const samples: BlockSample[] = [];
    const rtts: number[] = [];
    let lastBuilt = 0;
    for (let index = 0; index < WARMUP + BLOCKS; index++) {
      const wait = lastBuilt + SPACING_MS + (Math.random() - 0.5) * JITTER_MS - performance.now();
      if (wait > 0) await sleep(wait);
      const tx = nativeTx(chain.api, "balances", "transferKeepAlive")(recipient.address, AMOUNT_RAO);
      const signed = await tx.signAsync(alice, { nonce });
      await chain.api.rpc.author.submitExtrinsic(signed);
      nonce += 1;
      expectedFree += AMOUNT_RAO;
      const number = head + 1;
      const expected = expectedFree.toString();

      const hash = await rpcRequest<string>(substrate.httpUrl, "dev_newBlock", [{ count: 1 }]);
      const built = performance.now();
      lastBuilt = built;
      const headReached = STAGES ? watchHead(redis, number, built + TIMEOUT_MS) : Promise.resolve(undefined);
      const visible = await pollBalance(
        api,
        recipient.address,
        (answer) => answer.blockNumber >= number && answer.freeRao === expected,
        TIMEOUT_MS,
      );
      const inReadModel = await headReached;

      // Checked after the clock stopped, so the checks cost the measurement nothing.
      const header = await rpcRequest<{ number: string }>(substrate.httpUrl, "chain_getHeader", [hash]);
      if (Number(header.number) !== number)
        throw new Error(`dev_newBlock built #${Number(header.number)}, #${number} was expected`);
      const onChain = await freeAt(chain.api, recipient.address, hash);
      if (onChain !== expectedFree)
        throw new Error(
          `block #${number}: the recipient holds ${onChain} rao, ${expectedFree} was expected (the transfer is missing?)`,
        );
      head = number;

      for (let request = 0; request < BASELINE_REQUESTS; request++)
        rtts.push((await api.balance(recipient.address)).rttMs);
      const rereadMs = source === undefined ? undefined : await reread(reader!, source, BigInt(number), hash as Hex);
      const seenAt = published?.at(hash);
      const sample: BlockSample = {
        number,
        hash,
        latencyMs: visible.answer === undefined ? TIMEOUT_MS : visible.at - built,
        ...(seenAt === undefined ? {} : { publishedMs: seenAt - built }),
        ...(inReadModel === undefined ? {} : { readModelMs: inReadModel - built }),
        ...(rereadMs === undefined ? {} : { rereadMs }),
        polls: visible.polls,
        lastRttMs: visible.answer?.rttMs ?? Number.NaN,
        finality: visible.answer?.finality ?? null,
        missed: visible.answer === undefined,
      };
      const label = index < WARMUP ? `warm-up ${index + 1}` : `block ${index - WARMUP + 1}/${BLOCKS}`;
      say(
        `  ${label} #${number}: visible after ${sample.latencyMs.toFixed(0)} ms (${sample.polls} polls${sample.missed ? ", MISSED" : ""})${STAGES ? `; published ${fmt(sample.publishedMs)}, read model ${fmt(sample.readModelMs)}; re-read ${fmt(sample.rereadMs)}` : ""}`,
      );
      if (index >= WARMUP) samples.push(sample);
      else rtts.length = 0;
    }

    const latencies = samples.map((sample) => sample.latencyMs);
    const latency = summary(latencies);
    const baselineMs = median(rtts);
    const stages = {
      published: summary(samples.flatMap((sample) => (sample.publishedMs === undefined ? [] : [sample.publishedMs]))),
      readModel: summary(samples.flatMap((sample) => (sample.readModelMs === undefined ? [] : [sample.readModelMs]))),
      publishedToReadModel: summary(
        samples.flatMap((sample) =>
          sample.publishedMs === undefined || sample.readModelMs === undefined
            ? []
            : [sample.readModelMs - sample.publishedMs],
        ),
      ),
      readModelToApi: summary(
        samples.flatMap((sample) => (sample.readModelMs === undefined ? [] : [sample.latencyMs - sample.readModelMs])),
      ),
      reread: summary(samples.flatMap((sample) => (sample.rereadMs === undefined ? [] : [sample.rereadMs]))),
      publishedBeyondReread: summary(
        samples.flatMap((sample) =>
          sample.publishedMs === undefined || sample.rereadMs === undefined
            ? []
            : [sample.publishedMs - sample.rereadMs],
        ),
      ),
    };
    const missed = samples.filter((sample) => sample.missed).length;
    const met = missed === 0 && latency.p95Ms <= TARGETS.latencyP95Ms;
    const runMs = performance.now() - runStarted;
    const figures = {
      machine: "2 cores",
      settings: {
        blocks: BLOCKS,
        warmup: WARMUP,
        spacingMs: SPACING_MS,
        jitterMs: JITTER_MS,
        stageObservers: STAGES,
        pollMs: POLL_MS,
        timeoutMs: TIMEOUT_MS,
        transferRao: AMOUNT_RAO.toString(),
        servicesRuntime: RUNTIME,
        ingestorEnv: INGESTOR_ENV,
        stack:
          "startStack: native network (chopsticks, spec " +
          String(substrate.specVersion) +
          ", block timer off), simulator off",
      },
      latency: { ...latency, missed, ratioP50: latency.p50Ms / baselineMs, ratioP95: latency.p95Ms / baselineMs },
      baseline: {
        what: "one GET balance/latest round trip through the gateway (median, after visibility)",
        ms: baselineMs,
        samples: rtts.length,
      },
      stages,
      samples,
      targets: TARGETS,
      met,
      stackStartMs: stackMs,
      runMs,
    };

    say("");
    say(`| measure (${samples.length} blocks) | p50 ms | p95 ms | max ms | ratio to baseline (p50 / p95) |`);
    say("|---|---|---|---|---|");
    say(`| baseline: one balance/latest round trip (${rtts.length} requests) | ${baselineMs.toFixed(1)} | | | 1.00 |`);
    if (STAGES) {
      say(
        `| the native source's read of one block, redone after it showed (no Kafka) | ${row(stages.reread, baselineMs)} |`,
      );
      say(`| built → BlockSeen committed in Kafka (chain-ingestor) | ${row(stages.published, baselineMs)} |`);
      say(`| built → accounts head in Redis (+ projector) | ${row(stages.readModel, baselineMs)} |`);
    }
    say(
      `| built → visible in the Data API${STAGES ? " (+ data-query, gateway, poll)" : ""} | ${row(latency, baselineMs)} |`,
    );
    say("");
    if (STAGES) {
      say(
        `published − re-read (the ingestor's wait for its next poll, heads, Kafka commit): p50 ${stages.publishedBeyondReread.p50Ms.toFixed(0)} ms, p95 ${stages.publishedBeyondReread.p95Ms.toFixed(0)} ms; published → read model: p50 ${stages.publishedToReadModel.p50Ms.toFixed(0)} ms, p95 ${stages.publishedToReadModel.p95Ms.toFixed(0)} ms; read model → API answer: p50 ${stages.readModelToApi.p50Ms.toFixed(0)} ms, p95 ${stages.readModelToApi.p95Ms.toFixed(0)} ms`,
      );
    }
    if (Object.keys(INGESTOR_ENV).length > 0)
      say(
        `(chain-ingestor replaced for this run with ${Object.entries(INGESTOR_ENV)
          .map(([name, value]) => `${name}=${value}`)
          .join(", ")})`,
      );
    say(
      `native block built → visible in the Data API, ${samples.length} blocks: p50 ${latency.p50Ms.toFixed(0)} ms, p95 ${latency.p95Ms.toFixed(0)} ms, max ${latency.maxMs.toFixed(0)} ms${missed > 0 ? `, ${missed} missed` : ""} (target p95 ≤ ${TARGETS.latencyP95Ms} ms: ${met ? "met" : "not met"})`,
    );
    say(`run time ${(runMs / 1000).toFixed(0)} s (stack start ${(stackMs / 1000).toFixed(0)} s)`);
    const resultsDir = new URL("../results/", import.meta.url);
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(
      new URL(`native-api-${new Date().toISOString().replace(/[:.]/g, "-")}.json`, resultsDir),
      `${JSON.stringify(figures, null, 2)}\n`,
    );
  } finally {
    redis.disconnect();
    await published?.stop();
    await reader?.close();
    await chain.close();
  }
} finally {
  await replacement?.stop();
  await stack?.stop();
  state.remove();
}

interface BalanceAnswer {
  blockNumber: number;
  freeRao: string;
  finality: string | null;
  rttMs: number;
}

interface DataApi {
  balance(address: string): Promise<BalanceAnswer>;
}

/** An API key with data:read on the unlimited tier (the demo key's standard tier allows 50 requests a second, the rate of the polls), and its token. */
async function dataApi(running: RunningStack): Promise<DataApi> {
  const base = running.descriptor.gatewayUrl;
  const auth = running.descriptor.processes.find((entry) => entry.name === "auth");
  if (auth?.grpcTarget === undefined) throw new Error("the stack has no auth service");
  const key = JSON.parse(
    await authCli(
      RUNTIME,
      ["keys", "create", "--name", "bench-native-api", "--scopes", "data:read", "--tier", "unlimited", "--json"],
      { AUTH_ADMIN_GRPC_TARGET: auth.adminGrpcTarget! },
    ),
  ) as { id: string; secret: string };
  const issued = await fetch(`${base}/auth`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "API_KEY", username: key.id, password: key.secret }),
  });
  if (issued.status !== 200) throw new Error(`POST /auth: ${issued.status} ${await issued.text()}`);
  const token = ((await issued.json()) as { access_token: string }).access_token;
  const headers = { authorization: `Bearer ${token}` };
  return {
    async balance(address) {
      const started = performance.now();
      const response = await fetch(`${base}/data/v1/accounts/${address}/balance/latest`, {
        headers,
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await response.json()) as {
        as_of?: { block_number?: number; finality?: string | null } | null;
        balance_free_rao?: string;
      };
      const rttMs = performance.now() - started;
      if (response.status !== 200) throw new Error(`GET balance/latest: ${response.status} ${JSON.stringify(body)}`);
      return {
        blockNumber: body.as_of?.block_number ?? -1,
        freeRao: body.balance_free_rao ?? "",
        finality: body.as_of?.finality ?? null,
        rttMs,
      };
    },
  };
}

/** Requests one after another, each starting `POLL_MS` after the previous one started (or when it answered, if later), until `done` holds or the timeout. */
async function pollBalance(
  api: DataApi,
  address: string,
  done: (answer: BalanceAnswer) => boolean,
  timeoutMs: number,
): Promise<{ answer: BalanceAnswer | undefined; at: number; polls: number }> {
  const deadline = performance.now() + timeoutMs;
  let polls = 0;
  while (performance.now() < deadline) {
    const started = performance.now();
    const answer = await api.balance(address);
    polls += 1;
    if (done(answer)) return { answer, at: performance.now(), polls };
    const wait = started + POLL_MS - performance.now();
    if (wait > 0) await sleep(wait);
  }
  return { answer: undefined, at: performance.now(), polls };
}

/** When each block's first BlockSeen is committed on chain.network.v1 (read_committed), by block hash. */
async function watchBlockSeen(
  client: ReturnType<typeof createKafkaClient>,
): Promise<{ at(hash: string): number | undefined; stop(): Promise<void> }> {
  const seen = new Map<string, number>();
  const consumer = client.consumer({
    groupId: `bench-native-api-${Date.now()}`,
    maxWaitTimeInMs: 10,
    readUncommitted: false,
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [TOPICS.chainNetwork.name], fromBeginning: false });
  const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
  await consumer.run({
    eachMessage: async ({ message }) => {
      if (message.value === null) return;
      const event = decodePayload(TOPICS.chainNetwork, message.value).event;
      if (event?.$case === "blockSeen" && event.value.ref !== undefined && !seen.has(event.value.ref.blockHash))
        seen.set(event.value.ref.blockHash, performance.now());
    },
  });
  await joined;
  return { at: (hash) => seen.get(hash), stop: () => consumer.disconnect() };
}

/** The native source's read of one block as its step does it (headers, then the block's records), timed. */
async function reread(
  reader: Awaited<ReturnType<typeof connectNativeReader>>,
  source: ReturnType<typeof nativeBlockSource>,
  number: bigint,
  hash: Hex,
): Promise<number> {
  const started = performance.now();
  const headers = await reader.headersAt([number]);
  if (headers[0]?.hash !== hash.toLowerCase()) throw new Error(`the chain's block #${number} is no longer ${hash}`);
  await source.readBlocks(headers, number);
  return performance.now() - started;
}

/** When the accounts read model's head reaches `number` (polled every 5 ms), or undefined at the deadline. */
async function watchHead(
  redis: ReturnType<typeof createRedis>,
  number: number,
  deadline: number,
): Promise<number | undefined> {
  while (performance.now() < deadline) {
    const value = await redis.hget(ACCOUNTS_HEAD_KEY, "blockNumber").catch(() => null);
    if (value !== null && Number(value) >= number) return performance.now();
    await sleep(5);
  }
  return undefined;
}

/**
 * Replaces the stack's chain-ingestor with one started here: the same command and environment as
 * the stack gives it (serviceProcessSpecs), plus `overrides`. Only for measuring a setting.
 */
async function replaceIngestor(running: RunningStack, overrides: Record<string, string>): Promise<ManagedProcess> {
  const { descriptor } = running;
  const entry = descriptor.processes.find((candidate) => candidate.name === "chain-ingestor");
  if (entry?.opsUrl === undefined || entry.grpcTarget === undefined) throw new Error("the stack has no chain-ingestor");
  // Only its own ports matter (the other services' are not read): the old process is stopped first, so they are taken again.
  const ports = {
    ...DEFAULT_PORTS,
    ingestorGrpc: Number(entry.grpcTarget.split(":").at(-1)),
    ingestorOps: Number(new URL(entry.opsUrl).port),
  };
  const infra = {
    kafkaBrokers: descriptor.infrastructure.kafkaBrokers,
    redisUrl: descriptor.infrastructure.redisUrl,
    natsUrl: descriptor.infrastructure.natsUrl,
    chainsFile: join(descriptor.stateDir, "chains.json"),
    secretsDir: join(descriptor.stateDir, "secrets"),
  };
  const spec = serviceProcessSpecs(ports, infra, "info").find((candidate) => candidate.name === "chain-ingestor")!;
  await running.processes.get("chain-ingestor")?.stop();
  const logFile = join(descriptor.stateDir, "logs", "chain-ingestor-bench.log");
  const handle = spawnManaged({
    name: "chain-ingestor",
    ...serviceCommand(repoRoot, "chain-ingestor", RUNTIME),
    logFile,
    cwd: repoRoot,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production", ...spec.env, ...overrides },
  });
  const deadline = Date.now() + 90_000;
  for (;;) {
    const ready = await fetch(spec.readyUrl, { signal: AbortSignal.timeout(1_000) }).then(
      async (response) => {
        await response.body?.cancel();
        return response.status === 200;
      },
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await handle.stop();
      throw new Error(`the replaced chain-ingestor did not become ready; see ${logFile}`);
    }
    await sleep(200);
  }
  say(
    `chain-ingestor replaced (pid ${handle.pid}) with ${Object.entries(overrides)
      .map(([name, value]) => `${name}=${value}`)
      .join(", ")}`,
  );
  return handle;
}

async function headNumber(httpUrl: string): Promise<number> {
  return Number((await rpcRequest<{ number: string }>(httpUrl, "chain_getHeader")).number);
}

async function freeAt(
  api: Awaited<ReturnType<typeof connectNativeChain>>["api"],
  address: string,
  hash?: string,
): Promise<bigint> {
  const at = hash === undefined ? api : await api.at(hash);
  const info = (await at.query["system"]!["account"]!(address)) as unknown as {
    data: { free: { toString(): string } };
  };
  return BigInt(info.data.free.toString());
}

function parseSettings(name: string): Record<string, string> {
  const raw = process.env[name]?.trim();
  if (raw === undefined || raw === "") return {};
  const settings: Record<string, string> = {};
  for (const part of raw.split(",")) {
    const match = /^\s*([A-Z][A-Z0-9_]*)=(.*)$/.exec(part);
    if (match === null)
      throw new Error(`${name} must be NAME=value pairs separated by commas (got ${JSON.stringify(part)})`);
    settings[match[1]!] = match[2]!.trim();
  }
  return settings;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** p50 and p95 as the other native bench takes them (the value at rank ⌈0.95 n⌉), max and min. */
function summary(values: number[]): {
  samples: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  minMs: number;
  meanMs: number;
} {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0)
    return {
      samples: 0,
      p50Ms: Number.NaN,
      p95Ms: Number.NaN,
      maxMs: Number.NaN,
      minMs: Number.NaN,
      meanMs: Number.NaN,
    };
  return {
    samples: n,
    p50Ms: sorted[Math.floor(n * 0.5)]!,
    p95Ms: sorted[Math.min(n - 1, Math.ceil(n * 0.95) - 1)]!,
    maxMs: sorted[n - 1]!,
    minMs: sorted[0]!,
    meanMs: sorted.reduce((sum, value) => sum + value, 0) / n,
  };
}

function row(figures: ReturnType<typeof summary>, baselineMs: number): string {
  return `${figures.p50Ms.toFixed(0)} | ${figures.p95Ms.toFixed(0)} | ${figures.maxMs.toFixed(0)} | ${(figures.p50Ms / baselineMs).toFixed(1)} / ${(figures.p95Ms / baselineMs).toFixed(1)}`;
}

function fmt(ms: number | undefined): string {
  return ms === undefined ? "not seen" : `${ms.toFixed(0)} ms`;
}
