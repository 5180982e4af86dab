import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "./freePort.js";
import { startKafkaCluster } from "./kafkaCluster.js";
import { tempDir } from "./tempDir.js";

/* The cluster's happy path, failover and rejoin: libs/bus/src/kafkaCluster.int.test.ts. */

const dir = tempDir("kafka-cluster-start");

afterAll(() => dir.remove());

describe("startKafkaCluster", () => {
  it("fails fast, naming the node's log, when one node's port is taken", async () => {
    const blocker = createServer();
    const taken = await freePort();
    await new Promise<void>((resolve) => blocker.listen(taken, "127.0.0.1", resolve));
    try {
      const startedAt = Date.now();
      await expect(
        startKafkaCluster({
          brokers: 3,
          ports: [await freePort(), taken],
          dataDir: join(dir.path, "data"),
          logDir: join(dir.path, "logs"),
        }),
      ).rejects.toThrow(/kafka exited .* see .*kafka-2\.log/);
      expect(Date.now() - startedAt).toBeLessThan(90_000);
    } finally {
      blocker.close();
    }
  }, 120_000);
});
