import { loadavg } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { intentsKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import type { Hex } from "viem";
import { type Gateway, intentStatus } from "./gateway.js";
import { burstOpens, type Origin, rpc } from "./origin.js";
import { logTime, readLogLines, type ServiceControl } from "./services.js";

export interface BacklogResult {
  events: number;
  /** From the ingestor's "intents source starting" to its publish of the backlog's last block. */
  ingestorSeconds?: number;
  /** From the projector's consumer joining its group to the last order in the read model. */
  projectorSeconds?: number;
  /**
   * From the first backlog order in the read model to the last: the projector's pace once going,
   * without the first fetch (which, after a restart, reads from offset 0 and seeks to the stored one).
   */
  projectorSteadySeconds?: number;
  /** From the ingestor's start to the last order in the read model, both started together. */
  endToEndSeconds?: number;
  /** The machine's 1-minute load average when the round ended (other work on the machine slows every figure). */
  loadAverage?: number;
  /** Where the projector's time went, from its debug log (BENCH_PROJECTOR_LOG_LEVEL=debug); in sequence only. */
  projectorPhases?: ProjectorPhases;
}

/** Sums over the intents projection's "intents batch applied" debug lines. */
export interface ProjectorPhases {
  transactions: number;
  records: number;
  /** Round trips of reads per transaction, on average. */
  readRoundsPerTransaction: number;
  /** Seconds in transactions, and in their reads, folds (decode, evolve, derive, encode) and commit scripts. */
  commitSeconds: number;
  readSeconds: number;
  foldSeconds: number;
  writeSeconds: number;
  /** Transactions applied again because a key they read changed meanwhile. */
  conflicts: number;
  /** From joining the group to the first transaction's end (the first fetch, and the first fold's warm-up). */
  firstCommitAfterJoinSeconds?: number;
  /** First batches fetched from elsewhere than the stored position (a wasted fetch each). */
  realignments: number;
}

function projectorPhases(file: string, joinedAt: number): ProjectorPhases | undefined {
  const lines = readLogLines(file);
  const applied = lines.filter((line) => line.msg === "intents batch applied");
  if (applied.length === 0 || applied[0]!.readMs === undefined) return undefined;
  const sum = (field: string) => applied.reduce((total, line) => total + Number(line[field] ?? 0), 0);
  const firstAt = applied[0]!.time === undefined ? undefined : Date.parse(applied[0]!.time);
  return {
    transactions: applied.length,
    records: sum("records"),
    readRoundsPerTransaction: Number((sum("rounds") / applied.length).toFixed(2)),
    commitSeconds: sum("ms") / 1_000,
    readSeconds: sum("readMs") / 1_000,
    foldSeconds: sum("foldMs") / 1_000,
    writeSeconds: sum("writeMs") / 1_000,
    conflicts: lines.filter(
      (line) => line.msg === "intents keys read by the batch changed meanwhile; applying it again",
    ).length,
    ...(firstAt === undefined ? {} : { firstCommitAfterJoinSeconds: (firstAt - joinedAt) / 1_000 }),
    realignments: lines.filter(
      (line) =>
        line.msg === "first batch fetched from elsewhere than the stored position; seeking" &&
        line.groupId === "projector-intents",
    ).length,
  };
}

/** debug shows each batch's size and time in the projector's log (BENCH_KEEP_STATE=1 keeps it). */
const PROJECTOR_LOG_LEVEL = process.env.BENCH_PROJECTOR_LOG_LEVEL ?? "info";

/** Resolves when every order has a record, answering when the first and the last appeared (ms since the epoch). */
async function allVisible(
  redis: Redis,
  orderIds: readonly Hex[],
  timeoutMs: number,
): Promise<{ first: number; last: number }> {
  let remaining = [...orderIds];
  let first: number | undefined;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pipeline = redis.pipeline();
    for (const orderId of remaining) pipeline.exists(intentsKeys.order(orderId));
    const answers = (await pipeline.exec()) ?? [];
    const seenAt = Date.now();
    remaining = remaining.filter((_, index) => answers[index]?.[1] !== 1);
    if (first === undefined && remaining.length < orderIds.length) first = seenAt;
    if (remaining.length === 0) return { first: first ?? seenAt, last: seenAt };
    if (Date.now() > deadline)
      throw new Error(`${remaining.length} of ${orderIds.length} backlog orders never appeared`);
    await sleep(25);
  }
}

/** Every order once, OPEN, through the public API: a sample, since the timing used Redis directly. */
async function checkThroughGateway(gateway: Gateway, orderIds: readonly Hex[], sample: number): Promise<void> {
  const picked = Array.from({ length: sample }, () => orderIds[Math.floor(Math.random() * orderIds.length)]!);
  for (const orderId of picked) {
    const status = await intentStatus(gateway, orderId);
    if (status !== "OPEN") throw new Error(`backlog order ${orderId} answers ${status ?? "404"}, not OPEN`);
  }
}

/**
 * One backlog round: the ingestor and the projector stop, `count` Opens are mined on the origin,
 * then either the ingestor works the backlog off alone and the projector after it ("in sequence",
 * a figure for each), or both start together ("together", the end-to-end figure).
 */
export async function backlogRound(input: {
  origin: Origin;
  /** Where a sample of the orders is checked through the public API; undefined without a gateway. */
  gateway: Gateway | undefined;
  redis: Redis;
  services: ServiceControl;
  count: number;
  mode: "in sequence" | "together";
}): Promise<BacklogResult> {
  const { origin, services, count } = input;
  await Promise.all([services.stop("chain-ingestor"), services.stop("projector")]);
  const orderIds = await burstOpens(origin, count);
  const head = BigInt(await rpc<Hex>(origin.rpcUrl, "eth_blockNumber", []));
  const result: BacklogResult = { events: count };

  const published = (file: string) =>
    logTime(
      file,
      "the backlog published",
      (line) =>
        line.msg === "blocks published" && line.chainId === origin.chainId && BigInt(String(line.tip ?? "-1")) >= head,
    );
  const sourceStarted = (file: string) =>
    logTime(
      file,
      "the intents source started",
      (line) => line.msg === "intents source starting" && line.chainId === origin.chainId,
    );
  // Logged as the consumer joins its group, just before it fetches (after the broker's join delay).
  const consumerJoined = (file: string) =>
    logTime(
      file,
      "the intents consumer joined its group",
      (line) =>
        line.msg === "projection consumer joined its group" &&
        (line.groupId === undefined || line.groupId === "projector-intents"),
    );

  if (input.mode === "in sequence") {
    const ingestorLog = services.start("chain-ingestor", "debug");
    result.ingestorSeconds = ((await published(ingestorLog)) - (await sourceStarted(ingestorLog))) / 1_000;
    // Watched from before the start, so the moment the last order appears is not missed.
    const visible = allVisible(input.redis, orderIds, 180_000);
    const projectorLog = services.start("projector", PROJECTOR_LOG_LEVEL);
    const startedAt = await consumerJoined(projectorLog);
    const seen = await visible;
    result.projectorSeconds = (seen.last - startedAt) / 1_000;
    result.projectorSteadySeconds = (seen.last - seen.first) / 1_000;
    const phases = projectorPhases(projectorLog, startedAt);
    if (phases !== undefined) {
      result.projectorPhases = phases;
      process.stdout.write(`projector phases: ${JSON.stringify(phases)}\n`);
    }
  } else {
    const visible = allVisible(input.redis, orderIds, 180_000);
    const ingestorLog = services.start("chain-ingestor", "debug");
    services.start("projector", PROJECTOR_LOG_LEVEL);
    const startedAt = await sourceStarted(ingestorLog);
    result.endToEndSeconds = ((await visible).last - startedAt) / 1_000;
  }
  if (input.gateway !== undefined) await checkThroughGateway(input.gateway, orderIds, 50);
  result.loadAverage = Number(loadavg()[0]!.toFixed(2));
  process.stdout.write(`load average (1 min) at the end of the round: ${result.loadAverage}\n`);
  return result;
}
