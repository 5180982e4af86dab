import { join } from "node:path";
import { createKafkaClient, ensureTopics, type Kafka } from "@platform/bus";
import { DecodeError, TransientError } from "@platform/errors/base";
import { createLogger } from "@platform/log";
import { type RunningAnvil, type RunningKafka, startAnvil, startKafka, tempDir, waitFor } from "@platform/testing";
import { Registry } from "prom-client";
import { createPublicClient, createTestClient, type Hex, http } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpcHeaderReader } from "../evm/rpcHeaderReader.js";
import { type FollowerSource, startFollowerSource } from "./followerSource.js";
import { ingestMetrics } from "./ingestMetrics.js";
import { checkpointRecord } from "./stepRecords.js";

/*
 * The ingest metrics of the shared follower (every source runs on it) against a real anvil chain and
 * a real Kafka broker, read from the registry's text output as a scraper reads them. The source
 * publishes only its checkpoints: what it reports about its chain is what is checked.
 */

const CHAIN_ID = 31337;
const SOURCE_ID = `${CHAIN_ID}:metrics`;
const FINALIZED_DEPTH = 3;
const dir = tempDir("ingest-metrics");
const log = createLogger({ service: "ingest-metrics-test", level: "warn" });
let anvil: RunningAnvil;
let kafkaServer: RunningKafka;
let kafka: Kafka;

beforeAll(async () => {
  [anvil, kafkaServer] = await Promise.all([
    startAnvil({ chainId: CHAIN_ID, logFile: join(dir.path, "anvil.log") }),
    startKafka({ dataDir: join(dir.path, "kafka"), logFile: join(dir.path, "kafka.log") }),
  ]);
  kafka = createKafkaClient({ brokers: kafkaServer.brokers, clientId: "ingest-metrics-test", logger: log });
  const topics = ensureTopics(kafka, { topics: ["ingestor.checkpoints.v1"], replicationFactor: 1, logger: log });
  await waitFor(async () => topics.ready(), { what: "checkpoints topic", timeoutMs: 60_000 });
  topics.stop();
}, 180_000);

afterAll(async () => {
  await Promise.all([anvil?.stop(), kafkaServer?.stop()]);
  dir.remove();
}, 60_000);

async function scrape(registry: Registry, name: string): Promise<number | undefined> {
  const line = `${name}{source="${SOURCE_ID}"}`;
  const found = (await registry.metrics()).split("\n").find((entry) => entry.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe("ingest metrics", () => {
  it("report the chain head, finality and the published block, behind while the source catches up and 0 after", async () => {
    await createTestClient({ transport: http(anvil.rpcUrl), mode: "anvil" }).mine({ blocks: 40 });
    const client = createPublicClient({ transport: http(anvil.rpcUrl) });
    const head = await client.getBlockNumber();
    const registry = new Registry();
    // The source's second read waits until released: the first step's commit is then all it published.
    let reads = 0;
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let source: FollowerSource | undefined;
    try {
      source = startFollowerSource<never>({
        kafka,
        log,
        maxBlocksPerStep: 5,
        onFenced: () => undefined,
        chain: { chainId: CHAIN_ID, finality: { safeDepth: 1, finalizedDepth: FINALIZED_DEPTH } },
        headers: rpcHeaderReader(client),
        kind: "metrics",
        sourceId: SOURCE_ID,
        transactionalId: "ingest-metrics-test",
        blocks: {
          readBlocks: async () => {
            reads += 1;
            if (reads > 1) await gate;
            return new Map();
          },
          recoverWindow: async (kept) => ({ window: kept.map((block) => ({ block, events: [] })), unknown: [] }),
        },
        toRecords: (step, now) => [checkpointRecord(step, { chainId: CHAIN_ID, sourceId: SOURCE_ID, now })],
        pollIntervalMs: 100,
        metrics: ingestMetrics(registry),
      });

      // Held after its first step: the head is known, and only the first blocks are published.
      await waitFor(async () => (await scrape(registry, "ingest_published_block")) !== undefined && reads > 1, {
        what: "the first step published",
        timeoutMs: 60_000,
      });
      const published = (await scrape(registry, "ingest_published_block"))!;
      expect(await scrape(registry, "ingest_chain_head_block")).toBe(Number(head));
      expect(await scrape(registry, "ingest_finalized_block")).toBe(Number(head) - FINALIZED_DEPTH);
      expect(published).toBeLessThan(Number(head) - FINALIZED_DEPTH);
      expect(await scrape(registry, "ingest_blocks_behind_head")).toBe(Number(head) - published);
      expect(await scrape(registry, "ingest_blocks_behind_finalized")).toBe(Number(head) - FINALIZED_DEPTH - published);
      const publishedAt = (await scrape(registry, "ingest_last_publish_timestamp_seconds"))!;
      expect(Math.abs(publishedAt - Date.now() / 1_000)).toBeLessThan(60);

      // Let go: it catches up with the head, and is 0 blocks behind.
      release();
      await waitFor(async () => (await scrape(registry, "ingest_blocks_behind_head")) === 0, {
        what: "caught up with the head",
        timeoutMs: 60_000,
      });
      expect(await scrape(registry, "ingest_published_block")).toBe(Number(head));
      expect(await scrape(registry, "ingest_blocks_behind_finalized")).toBe(0);
      expect((await scrape(registry, "ingest_last_publish_timestamp_seconds"))!).toBeGreaterThanOrEqual(publishedAt);
    } finally {
      release();
      await source?.stop();
    }
  }, 120_000);
});

describe("the source's restarts (issue 33: errors drive retries)", () => {
  /** A source on the test chain whose block reads are `readBlocks`, publishing only checkpoints. */
  const sourceReading = (name: string, readBlocks: () => Promise<Map<Hex, never[]>>) =>
    startFollowerSource<never>({
      kafka,
      log: createLogger({ service: `ingest-${name}-test`, level: "silent" }),
      maxBlocksPerStep: 5,
      onFenced: () => undefined,
      chain: { chainId: CHAIN_ID, finality: { safeDepth: 1, finalizedDepth: FINALIZED_DEPTH } },
      headers: rpcHeaderReader(createPublicClient({ transport: http(anvil.rpcUrl) })),
      kind: name,
      sourceId: `${CHAIN_ID}:${name}`,
      transactionalId: `ingest-${name}-test`,
      blocks: {
        readBlocks,
        recoverWindow: async (kept) => ({ window: kept.map((block) => ({ block, events: [] })), unknown: [] }),
      },
      toRecords: (step, now) => [checkpointRecord(step, { chainId: CHAIN_ID, sourceId: `${CHAIN_ID}:${name}`, now })],
      pollIntervalMs: 100,
    });

  it("stops at once on an error that says trying again cannot succeed, and goes on after a transient one", async () => {
    await createTestClient({ transport: http(anvil.rpcUrl), mode: "anvil" }).mine({ blocks: 10 });
    let transientReads = 0;
    let fatalReads = 0;
    const transient = sourceReading("transient", async () => {
      transientReads += 1;
      if (transientReads === 1) throw new TransientError("the node did not answer");
      return new Map();
    });
    const fatal = sourceReading("fatal", async () => {
      fatalReads += 1;
      throw new DecodeError("a block this build cannot decode");
    });
    try {
      await waitFor(async () => transientReads >= 2 && fatalReads >= 1, {
        what: "both sources reading",
        timeoutMs: 60_000,
      });
      // Retried, the decode failure would be read again within 0.1-0.4 s (the loop's back-off),
      // and the source restarted within 1 s: 3 s leaves a loaded machine its margin.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(fatalReads).toBe(1);
    } finally {
      await Promise.all([transient.stop(), fatal.stop()]);
    }
  }, 120_000);
});
