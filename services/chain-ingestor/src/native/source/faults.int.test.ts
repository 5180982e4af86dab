import { join } from "node:path";
import { Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { type ConsumedRecord, createKafkaClient, type Kafka } from "@platform/bus";
import { substrateNetworkSchema } from "@platform/chain";
import { subtensorChainSpec } from "@platform/devnet";
import { createLogger, type Logger } from "@platform/log";
import { Direction } from "@platform/proto/common/v1/network";
import { decodePayload, TOPICS } from "@platform/proto/topics";
import {
  type FaultMode,
  type FaultyProxy,
  type RunningChopsticks,
  type RunningKafka,
  startChopsticks,
  startFaultyProxy,
  startKafka,
  tempDir,
  waitFor,
} from "@platform/testing";
import { ApiPromise, WsProvider } from "@polkadot/api";
import { Keyring } from "@polkadot/keyring";
import type { KeyringPair } from "@polkadot/keyring/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTopic } from "../../../test/devnetHarness.js";
import { type NativeIngestor, startNativeIngestor } from "./ingestor.js";

/*
 * The acceptance: "An RPC that drops, stalls or answers garbage leaves the source retrying
 * with backoff and not-ready. It never publishes a partial block." The Subtensor runtime runs under
 * chopsticks behind a faulty TCP proxy (libs/testing faultyProxy); the native ingestor runs in
 * process against one Kafka broker and reaches the node only through the proxy. For each fault,
 * blocks with transfers are built while it is on; the ingestor must turn not-ready, and once the
 * proxy passes again, ready and caught up by itself. At the end every published block is compared
 * with a direct read of the node (@polkadot/api, not through the proxy).
 */

const dir = tempDir("native-faults");
/** The ingestor's log messages (debug and up), kept to show it retried; NATIVE_FAULTS_LOG=1 prints them too. */
const logged: string[] = [];
const log: Logger = createLogger({
  service: "native-faults-test",
  level: "debug",
  destination: new Writable({
    write: (chunk: Buffer, _encoding, callback) => {
      for (const line of chunk.toString().split("\n").filter(Boolean))
        logged.push((JSON.parse(line) as { msg: string }).msg);
      if (process.env["NATIVE_FAULTS_LOG"]) process.stderr.write(chunk);
      callback();
    },
  }),
});

const CHAIN_ID = 945;
const PARTITIONS = TOPICS.chainNetwork.partitions;

let node: RunningChopsticks;
let kafkaServer: RunningKafka;
let kafka: Kafka;
let proxy: FaultyProxy;
let api: ApiPromise;
let alice: KeyringPair;
let ingestor: NativeIngestor | undefined;
const fenced: unknown[] = [];
const timings: Record<string, number> = {};
let recipients = 0;

beforeAll(async () => {
  const started = Date.now();
  [node, kafkaServer] = await Promise.all([
    startChopsticks({ genesis: subtensorChainSpec(), logFile: join(dir.path, "chopsticks.log") }),
    startKafka({ dataDir: join(dir.path, "kafka"), logFile: join(dir.path, "kafka.log") }),
  ]);
  proxy = await startFaultyProxy({ targetPort: node.port });
  api = await ApiPromise.create({ provider: new WsProvider(node.rpcUrl), noInitWarn: true });
  alice = new Keyring({ type: "sr25519", ss58Format: 42 }).addFromUri("//Alice");
  await node.request("dev_setStorage", [
    { System: { Account: [[[alice.address], { providers: 1, data: { free: "1000000000000000" } }]] } },
  ]);
  await transferBlock();
  kafka = createKafkaClient({ brokers: kafkaServer.brokers, clientId: "native-faults-test", logger: log });
  ingestor = startNativeIngestor({
    kafka,
    network: substrateNetworkSchema.parse({
      name: "bittensor",
      chainId: CHAIN_ID,
      rpcUrl: proxy.url,
      blockTimeMs: 1_000,
      finality: { safeDepth: 1, finalizedDepth: 3 },
      rpc: { timeoutMs: 2_000, retryCount: 1, retryDelayMs: 100 },
    }),
    pollIntervalMs: 200,
    maxBlocksPerBatch: 5,
    replicationFactor: 1,
    log,
    onFenced: (error) => fenced.push(error),
  });
  await readyAndCaughtUp(60_000);
  timings["setup"] = Date.now() - started;
}, 120_000);

afterAll(async () => {
  await ingestor?.stop();
  await api?.disconnect();
  await proxy?.stop();
  await Promise.all([node?.stop(), kafkaServer?.stop()]);
  if (process.env["NATIVE_FAULTS_LOG"]) console.info("timings (ms)", timings);
  dir.remove();
}, 60_000);

/** One block with two transfers from Alice, each to a new account. */
async function transferBlock(): Promise<string> {
  const nonce = (await api.rpc.system.accountNextIndex(alice.address)).toNumber();
  for (let index = 0; index < 2; index++) {
    const to = new Keyring({ type: "sr25519", ss58Format: 42 }).addFromUri(`//Faults${recipients++}`).address;
    await api.tx.balances!.transferKeepAlive!(to, 1_000_000_000n + BigInt(recipients)).signAndSend(alice, {
      nonce: nonce + index,
    });
  }
  return node.newBlocks(1);
}

async function headNumber(): Promise<bigint> {
  return BigInt((await api.rpc.chain.getHeader()).number.toString());
}

/** Every readiness check of the native ingestor passes (as the service's /ready would). */
async function ready(): Promise<boolean> {
  const checks = [
    ingestor!.topicsCheck,
    ingestor!.check,
    ...(ingestor!.rpcCheck === undefined ? [] : [ingestor!.rpcCheck]),
  ];
  const results = await Promise.all(checks.map((check) => check.probe()));
  return results.every(Boolean);
}

async function readyAndCaughtUp(timeoutMs: number): Promise<void> {
  const head = await headNumber();
  await waitFor(async () => (await ready()) && (ingestor!.source()?.status().tip ?? -1n) >= head, {
    what: `ready and at block ${head}`,
    timeoutMs,
    intervalMs: 100,
  });
}

describe("the native source behind a faulty RPC", () => {
  it.each<FaultMode>(["drop", "stall", "garbage"])(
    "%s: turns not-ready while the fault lasts, then recovers and catches up by itself",
    async (mode) => {
      const faultStarted = Date.now();
      proxy.setMode(mode);
      const connectionsBefore = proxy.connections();
      const loggedBefore = logged.length;
      await transferBlock();
      await transferBlock();
      await waitFor(async () => !(await ingestor!.rpcCheck!.probe()), {
        what: `${mode}: rpc check failing`,
        timeoutMs: 10_000,
        intervalMs: 100,
      });
      timings[`${mode}: not ready after`] = Date.now() - faultStarted;
      // It stays not-ready (and keeps retrying) as long as the fault lasts.
      const windowStarted = Date.now();
      const window = 2_000;
      const connectionsAtWindow = proxy.connections();
      while (Date.now() - windowStarted < window) {
        expect(await ready(), `${mode}: ready while the fault is on`).toBe(false);
        await sleep(250);
      }
      await transferBlock();
      timings[`${mode}: connections in ${window} ms`] = proxy.connections() - connectionsAtWindow;
      timings[`${mode}: connections during fault`] = proxy.connections() - connectionsBefore;
      // Retrying with back-off, not in a tight loop: a handful of connection attempts in two seconds, not hundreds.
      expect(proxy.connections() - connectionsAtWindow, `${mode}: connection attempts in ${window} ms`).toBeLessThan(
        20,
      );
      expect(logged.slice(loggedBefore), `${mode}: the source says it retries`).toContain(
        "reading the chain failed; retrying",
      );

      const passed = Date.now();
      proxy.setMode("pass");
      await readyAndCaughtUp(30_000);
      timings[`${mode}: ready and caught up after`] = Date.now() - passed;
      expect(fenced).toEqual([]);
    },
    60_000,
  );

  it("published every block whole: BlockSeen on every partition, no record twice, and exactly the block's transfers", async () => {
    const head = await headNumber();
    const records = (await readTopic(kafka, TOPICS.chainNetwork.name)).map((record) => ({
      record,
      event: decodePayload(TOPICS.chainNetwork, record.value!).event,
    }));
    expect(records.filter(({ event }) => event?.$case === "chainEventRemoved")).toEqual([]);

    const ids = records.map(({ record }) => record.eventId);
    expect(ids.length - new Set(ids).size, "event ids published twice").toBe(0);

    const seen = new Map<string, ConsumedRecord[]>();
    for (const { record, event } of records) {
      if (event?.$case !== "blockSeen") continue;
      expect(event.value.partitions).toBe(PARTITIONS);
      seen.set(event.value.ref!.blockHash, [...(seen.get(event.value.ref!.blockHash) ?? []), record]);
    }
    for (const [hash, copies] of seen) {
      expect(copies.length, `BlockSeen records of ${hash}`).toBe(PARTITIONS);
      expect(new Set(copies.map((copy) => copy.partition)).size).toBe(PARTITIONS);
    }

    let transfers = 0;
    for (let number = 0n; number <= head; number++) {
      const hash = (await api.rpc.chain.getBlockHash(number)).toHex();
      expect(seen.has(hash), `BlockSeen of block ${number}`).toBe(true);
      const published = records
        .flatMap(({ event }) =>
          event?.$case === "accountActivity" && event.value.ref!.blockHash === hash ? [event.value] : [],
        )
        .map((activity) => ({
          logIndex: activity.ref!.logIndex,
          account: activity.account!.publicKey,
          direction: activity.direction,
          amount: activity.amountRao,
        }));
      const events = await (await api.at(hash)).query.system!.events!();
      const expected = (
        events as unknown as {
          event: { section: string; method: string; data: { toString(): string; toHex(): string }[] };
        }[]
      ).flatMap((record, index) =>
        record.event.section === "balances" && record.event.method === "Transfer"
          ? [
              {
                logIndex: index,
                account: record.event.data[0]!.toHex(),
                direction: Direction.DIRECTION_OUT,
                amount: record.event.data[2]!.toString(),
              },
              {
                logIndex: index,
                account: record.event.data[1]!.toHex(),
                direction: Direction.DIRECTION_IN,
                amount: record.event.data[2]!.toString(),
              },
            ]
          : [],
      );
      transfers += expected.length / 2;
      const order = (
        a: { logIndex?: number | undefined; direction: number },
        b: { logIndex?: number | undefined; direction: number },
      ) => (a.logIndex ?? 0) - (b.logIndex ?? 0) || a.direction - b.direction;
      expect(published.sort(order), `activity of block ${number}`).toEqual(expected.sort(order));
    }
    // One block before the faults, three under each fault, two transfers each.
    expect(transfers).toBe(2 * (1 + 3 * 3));
  }, 60_000);
});
