// The intents projection alone, without Kafka or the stack: a backlog of Opens shaped like the
// bench's (50 senders, one transaction each, finalized but the last blocks, a head per block of
// 100) handed to `handleBatch` in per-partition batches the size kafkajs delivers, against a Redis
// of its own. Prints records/s, the projector's CPU per record and Redis's. For quick iterations
// on the projection's own cost; the acceptance figure is `pnpm bench:intents`'s.
//
//   pnpm build && tsx bench/intents/projectionLoop.ts
//   (node --cpu-prof --cpu-prof-dir=DIR --import tsx bench/intents/projectionLoop.ts for a profile;
//   LOOP_RECORDS, LOOP_BATCH, LOOP_ROUNDS; LOOP_FROM=source with --conditions=@platform/source runs the TypeScript;
//   LOOP_ALLOCATIONS=<file.heapprofile> samples every allocation of the rounds, collected or not: what feeds the GC)
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { Writable } from "node:stream";
import { createLogger } from "@platform/log";
import { type ChainRef, Finality } from "@platform/proto/common/v1/common";
import type { IntentsChainEvent } from "@platform/proto/events/v1/chain_intents";
import { encodePayload, TOPICS } from "@platform/proto/topics";
import { createRedis } from "@platform/store";
import { startRedis, tempDir, waitFor } from "@platform/testing";
import type { intentsProjection as IntentsProjectionFactory } from "../../services/projector/src/intents/projection.js";

type ProjectionBatch = Parameters<ReturnType<typeof IntentsProjectionFactory>["handleBatch"]>[0];
// The built projection (run `pnpm build` first) unless LOOP_FROM=source: a profile then shows lines.
const { intentsProjection } = (await import(
  process.env.LOOP_FROM === "source"
    ? "../../services/projector/src/intents/projection.js"
    : "../../services/projector/dist/intents/projection.js"
)) as { intentsProjection: typeof IntentsProjectionFactory };

const RECORDS = Number(process.env.LOOP_RECORDS ?? 10_000);
/** Records per partition batch: kafkajs' 1 MiB per partition holds about this many Opens. */
const BATCH = Number(process.env.LOOP_BATCH ?? 700);
const ROUNDS = Number(process.env.LOOP_ROUNDS ?? 3);
const PARTITIONS = 6;
const PER_BLOCK = 100;
const ORIGIN = "31337";
const DESTINATION = "31338";

const hex = (bytes: number) => `0x${randomBytes(bytes).toString("hex")}`;
const bytes32 = (address: string) => `0x${"0".repeat(24)}${address.slice(2).toLowerCase()}`;
const users = Array.from({ length: 50 }, () => `0x${randomBytes(20).toString("hex")}`);
const settler = `0x${randomBytes(20).toString("hex")}`;

function backlog(startBlock: number): { partitions: Map<number, Buffer[]>; heads: Buffer[] } {
  const partitions = new Map<number, Buffer[]>();
  const heads: Buffer[] = [];
  const lastBlock = startBlock + Math.ceil(RECORDS / PER_BLOCK) - 1;
  let blockHash = hex(32);
  for (let index = 0; index < RECORDS; index++) {
    const block = startBlock + Math.floor(index / PER_BLOCK);
    if (index % PER_BLOCK === 0) blockHash = hex(32);
    const user = users[index % users.length]!;
    const orderId = hex(32);
    const ref: ChainRef = {
      chainId: ORIGIN,
      blockNumber: String(block),
      blockHash,
      parentHash: hex(32),
      blockTimestamp: new Date((1_900_000_000 + block) * 1_000).toISOString(),
      txHash: hex(32),
      txIndex: index % PER_BLOCK,
      logIndex: 0,
      finality:
        lastBlock - block >= 3
          ? Finality.FINALITY_FINALIZED
          : lastBlock - block >= 1
            ? Finality.FINALITY_SAFE
            : Finality.FINALITY_LATEST,
    };
    const payload: IntentsChainEvent = {
      event: {
        $case: "orderOpened",
        value: {
          ref,
          orderId,
          settler,
          txFrom: user,
          resolvedOrder: {
            user,
            originChainId: ORIGIN,
            openDeadline: 4_294_967_295,
            fillDeadline: 1_900_000_000 + block + 3_600,
            orderId,
            maxSpent: [{ token: `0x${"0".repeat(64)}`, amount: "990", recipient: bytes32(user), chainId: DESTINATION }],
            minReceived: [
              { token: `0x${"0".repeat(64)}`, amount: "1000", recipient: `0x${"0".repeat(64)}`, chainId: ORIGIN },
            ],
            fillInstructions: [
              { destinationChainId: DESTINATION, destinationSettler: bytes32(settler), originData: hex(416) },
            ],
          },
        },
      },
    };
    const partition = Number.parseInt(orderId.slice(2, 10), 16) % PARTITIONS;
    const values = partitions.get(partition) ?? [];
    values.push(Buffer.from(encodePayload(TOPICS.chainIntents, payload)));
    partitions.set(partition, values);
    if (index % PER_BLOCK === PER_BLOCK - 1 || index === RECORDS - 1) {
      const head: IntentsChainEvent = {
        event: {
          $case: "chainHeadAdvanced",
          value: {
            head: {
              chainId: ORIGIN,
              blockNumber: String(block),
              blockHash,
              parentHash: hex(32),
              blockTimestamp: ref.blockTimestamp,
              finality: Finality.FINALITY_LATEST,
            },
            safeBlockNumber: String(lastBlock - 1),
            finalizedBlockNumber: String(lastBlock - 3),
          },
        },
      };
      heads.push(Buffer.from(encodePayload(TOPICS.chainIntents, head)));
    }
  }
  return { partitions, heads };
}

function batchesOf(partition: number, values: Buffer[], offsets: Map<number, number>): ProjectionBatch[] {
  const batches: ProjectionBatch[] = [];
  for (let start = 0; start < values.length; start += BATCH) {
    const first = offsets.get(partition) ?? 0;
    const messages = values.slice(start, start + BATCH).map((value, index) => ({
      topic: TOPICS.chainIntents.name,
      partition,
      offset: String(first + index),
      timestamp: String(Date.now()),
      key: undefined,
      value,
      eventId: undefined,
      eventType: "OrderOpened",
      schema: TOPICS.chainIntents.schema,
      traceparent: undefined,
      tracestate: undefined,
      headers: {},
    }));
    offsets.set(partition, first + messages.length);
    batches.push({
      topic: TOPICS.chainIntents.name,
      partition,
      messages,
      lastOffset: messages.at(-1)!.offset,
      previousOffset: first === 0 ? undefined : String(first - 1),
      heartbeat: async () => undefined,
    });
  }
  return batches;
}

const dir = tempDir("projection-loop");
const server = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
const redis = createRedis({ url: server.url, connectionName: "projection-loop", commandTimeoutMs: 30_000 });
const log = createLogger({
  service: "projection-loop",
  level: "warn",
  destination: new Writable({ write: (_chunk, _encoding, callback) => callback() }),
});
/** Redis's own CPU seconds so far (user + system). */
const redisCpu = async (): Promise<number> => {
  const info = await redis.info("cpu");
  const field = (name: string) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? 0);
  return field("used_cpu_user") + field("used_cpu_sys");
};
try {
  await waitFor(async () => redis.status === "ready", { what: "the Redis connection" });
  const projection = intentsProjection({ redis, log, refundGraceSeconds: 3_600 });
  const offsets = new Map<number, number>();
  // Made before the first round, so a profile's window holds the projection alone.
  const backlogs = Array.from({ length: ROUNDS }, (_, index) => backlog(2_000 + index * 1_000));
  const inspector = process.env.LOOP_ALLOCATIONS ? new Session() : undefined;
  if (inspector !== undefined) {
    inspector.connect();
    await inspector.post("HeapProfiler.startSampling", {
      samplingInterval: 16_384,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }
  for (let round = 1; round <= ROUNDS; round++) {
    const { partitions, heads } = backlogs[round - 1]!;
    // As kafkajs hands them: a fetch's batch of each partition in turn (the heads' partition among them).
    const queues = [...partitions].map(([partition, values]) => batchesOf(partition, values, offsets));
    queues.push(batchesOf(PARTITIONS, heads, offsets));
    const order: ProjectionBatch[] = [];
    for (let step = 0; queues.some((queue) => queue.length > step); step++)
      for (const queue of queues) if (queue[step] !== undefined) order.push(queue[step]!);
    const cpuBefore = process.cpuUsage();
    const redisBefore = await redisCpu();
    const started = performance.now();
    for (const batch of order) await projection.handleBatch(batch);
    const seconds = (performance.now() - started) / 1_000;
    const cpu = process.cpuUsage(cpuBefore);
    const redisSeconds = (await redisCpu()) - redisBefore;
    const records = RECORDS + heads.length;
    process.stdout.write(
      `round ${round}: ${records} records in ${seconds.toFixed(2)} s = ${Math.round(RECORDS / seconds)} Opens/s; projector CPU ${((cpu.user + cpu.system) / records).toFixed(0)} µs/record, Redis CPU ${((redisSeconds * 1e6) / records).toFixed(0)} µs/record\n`,
    );
  }
  if (inspector !== undefined) {
    const { profile } = await inspector.post("HeapProfiler.stopSampling");
    writeFileSync(process.env.LOOP_ALLOCATIONS!, JSON.stringify(profile));
    inspector.disconnect();
  }
  // LOOP_COMMANDSTATS=1: where Redis's time went (calls from the scripts are counted too).
  if (process.env.LOOP_COMMANDSTATS === "1") {
    const stats = (await redis.info("commandstats")).split("\n").filter((line) => line.startsWith("cmdstat_"));
    const rows = stats.map((line) => {
      const [name, fields] = line.trim().split(":");
      const value = (field: string) => Number(new RegExp(`${field}=([0-9.]+)`).exec(fields!)?.[1] ?? 0);
      return {
        command: name!.slice("cmdstat_".length),
        calls: value("calls"),
        µs: value("usec"),
        "µs/call": value("usec_per_call"),
      };
    });
    process.stdout.write(
      `${rows
        .sort((a, b) => b["µs"] - a["µs"])
        .slice(0, 12)
        .map((row) => JSON.stringify(row))
        .join("\n")}\n`,
    );
  }
} finally {
  redis.disconnect();
  await server.stop();
  dir.remove();
}
