import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "@platform/store";
import type { Hex } from "viem";
import { intentStatus, type Gateway } from "./gateway.js";
import { burstOpens, rpc, type Origin } from "./origin.js";
import { logTime, type ServiceControl } from "./services.js";

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
}

/** debug shows each batch's size and time in the projector's log (BENCH_KEEP_STATE=1 keeps it). */
const PROJECTOR_LOG_LEVEL = process.env.BENCH_PROJECTOR_LOG_LEVEL ?? "info";

/** The read model's record key of an order (services/projector/src/intents/keys.ts; a contract with the gateway). */
const orderKey = (orderId: string) => `rm:intents:order:${orderId}`;

/** Resolves when every order has a record, answering when the first and the last appeared (ms since the epoch). */
async function allVisible(redis: Redis, orderIds: readonly Hex[], timeoutMs: number): Promise<{ first: number; last: number }> {
  let remaining = [...orderIds];
  let first: number | undefined;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pipeline = redis.pipeline();
    for (const orderId of remaining) pipeline.exists(orderKey(orderId));
    const answers = (await pipeline.exec()) ?? [];
    const seenAt = Date.now();
    remaining = remaining.filter((_, index) => answers[index]?.[1] !== 1);
    if (first === undefined && remaining.length < orderIds.length) first = seenAt;
    if (remaining.length === 0) return { first: first ?? seenAt, last: seenAt };
    if (Date.now() > deadline) throw new Error(`${remaining.length} of ${orderIds.length} backlog orders never appeared`);
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
    logTime(file, "the backlog published", (line) => line.msg === "blocks published" && line.chainId === origin.chainId && BigInt(String(line.tip ?? "-1")) >= head);
  const sourceStarted = (file: string) => logTime(file, "the intents source started", (line) => line.msg === "intents source starting" && line.chainId === origin.chainId);
  // Logged as the consumer joins its group, just before it fetches (after the broker's join delay).
  const consumerJoined = (file: string) => logTime(file, "the intents consumer joined its group", (line) => line.msg === "projection consumer joined its group");

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
  } else {
    const visible = allVisible(input.redis, orderIds, 180_000);
    const ingestorLog = services.start("chain-ingestor", "debug");
    services.start("projector", PROJECTOR_LOG_LEVEL);
    const startedAt = await sourceStarted(ingestorLog);
    result.endToEndSeconds = ((await visible).last - startedAt) / 1_000;
  }
  if (input.gateway !== undefined) await checkThroughGateway(input.gateway, orderIds, 50);
  return result;
}
