import { createServer } from "node:net";
import { join } from "node:path";
import kafkajs from "kafkajs";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "./freePort.js";
import { startKafka, type RunningKafka } from "./kafka.js";
import { isAlive } from "./process.js";
import { tempDir } from "./tempDir.js";

const dir = tempDir("kafka");
const started: RunningKafka[] = [];

afterAll(async () => {
  await Promise.all(started.map((kafka) => kafka.stop()));
  dir.remove();
});

describe("startKafka", () => {
  it("starts a single-node KRaft broker that serves clients, and stops it", async () => {
    const kafka = await startKafka({ dataDir: join(dir.path, "ok"), logFile: join(dir.path, "ok.log") });
    started.push(kafka);
    expect(kafka.brokers).toEqual([`127.0.0.1:${kafka.port}`]);
    const admin = new kafkajs.Kafka({ brokers: kafka.brokers, logLevel: kafkajs.logLevel.NOTHING }).admin();
    await admin.connect();
    const cluster = await admin.describeCluster();
    await admin.disconnect();
    expect(cluster.brokers).toEqual([{ nodeId: 1, host: "127.0.0.1", port: kafka.port }]);
    await kafka.stop();
    expect(isAlive(kafka.process.pid)).toBe(false);
  });

  it("fails fast, with the broker's log, when its port is taken", async () => {
    const blocker = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => blocker.listen(port, "127.0.0.1", resolve));
    try {
      const startedAt = Date.now();
      await expect(
        startKafka({ port, dataDir: join(dir.path, "busy"), logFile: join(dir.path, "busy.log") }),
      ).rejects.toThrow(/kafka exited/);
      expect(Date.now() - startedAt).toBeLessThan(30_000);
    } finally {
      blocker.close();
    }
  });
});
