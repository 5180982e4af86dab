import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createLogger } from "@platform/log";
import { makeTestCertificates, type RunningKafka, startKafka, tempDir } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafkaClient } from "./client.js";

// TLS to Kafka with a private CA (issue 42, item 5): a real broker with an SSL listener only, its
// CA and certificate made at test time.

const dir = tempDir("kafka-tls");
const log = createLogger({ service: "kafka-tls-test", level: "silent" });
let kafka: RunningKafka;
let caFile: string;

beforeAll(async () => {
  mkdirSync(join(dir.path, "certs"));
  const certificates = makeTestCertificates(join(dir.path, "certs"));
  caFile = certificates.caFile;
  kafka = await startKafka({
    dataDir: join(dir.path, "kafka"),
    logFile: join(dir.path, "kafka.log"),
    tls: certificates,
  });
}, 120_000);

afterAll(async () => {
  await kafka?.stop();
  dir.remove();
});

const admin = (tls?: { caFile?: string }) =>
  createKafkaClient({
    brokers: kafka.brokers,
    clientId: "kafka-tls-test",
    logger: log,
    connectionTimeoutMs: 1_000,
    retry: { retries: 0 },
    ...(tls ? { tls } : {}),
  }).admin();

describe("Kafka over TLS", () => {
  it("connects with the CA the configuration names, and creates and lists a topic", async () => {
    const client = admin({ caFile });
    await client.connect();
    try {
      await client.createTopics({ topics: [{ topic: "tls.probe.v1" }] });
      expect(await client.listTopics()).toContain("tls.probe.v1");
    } finally {
      await client.disconnect();
    }
  });

  it("refuses a broker whose certificate no trusted CA signed, and plain TCP gets no answer", async () => {
    const systemCas = admin({});
    await expect(systemCas.connect()).rejects.toThrow();
    await systemCas.disconnect().catch(() => undefined);
    const plain = admin();
    await expect(plain.connect().then(() => plain.listTopics())).rejects.toThrow();
    await plain.disconnect().catch(() => undefined);
  });
});
