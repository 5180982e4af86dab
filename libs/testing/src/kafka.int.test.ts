import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import kafkajs from "kafkajs";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "./freePort.js";
import { type RunningKafka, startKafka } from "./kafka.js";
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

  it("with credentials, serves the super user and turns away a client without them or with a wrong password", async () => {
    const admin = { username: "admin", password: "admin-password-1" };
    const kafka = await startKafka({
      dataDir: join(dir.path, "sasl"),
      logFile: join(dir.path, "sasl.log"),
      sasl: { admin, users: [{ username: "reader", password: "reader-password-1" }] },
    });
    started.push(kafka);
    expect(kafka.sasl).toEqual({ mechanism: "scram-sha-512", ...admin });
    const client = (sasl?: { mechanism: "scram-sha-512"; username: string; password: string }) =>
      new kafkajs.Kafka({
        brokers: kafka.brokers,
        logLevel: kafkajs.logLevel.NOTHING,
        connectionTimeout: 1_000,
        retry: { retries: 0 },
        ...(sasl ? { sasl } : {}),
      }).admin();
    const superUser = client(kafka.sasl);
    await superUser.connect();
    await superUser.createTopics({ topics: [{ topic: "t1" }] });
    expect(await superUser.listTopics()).toContain("t1");
    await superUser.disconnect();
    // A user with no ACL sees nothing; no credentials or a wrong password get no answer at all.
    const reader = client({ mechanism: "scram-sha-512", username: "reader", password: "reader-password-1" });
    await reader.connect();
    expect(await reader.listTopics()).toEqual([]);
    await reader.disconnect();
    const wrong = client({ mechanism: "scram-sha-512", username: "reader", password: "wrong-password-1" });
    await expect(wrong.connect()).rejects.toThrow(/SASL/);
    const anonymous = client();
    await expect(anonymous.connect().then(() => anonymous.listTopics())).rejects.toThrow();
    await anonymous.disconnect().catch(() => undefined);
    // The super user's password is in the broker's config, which only its owner may read.
    expect(statSync(join(dir.path, "sasl", "server.properties")).mode & 0o777).toBe(0o600);
    const log = readFileSync(join(dir.path, "sasl.log"), "utf8");
    for (const password of ["admin-password-1", "reader-password-1"]) expect(log).not.toContain(password);
  });

  it("never passes a SCRAM password on a command line while it starts (ps shows every argument)", async () => {
    // Generated here: a match in any process's arguments can only come from this start.
    const admin = { username: "admin", password: `admin-${randomBytes(12).toString("hex")}` };
    const user = { username: "writer", password: `writer-${randomBytes(12).toString("hex")}` };
    const seen: string[] = [];
    const watch = setInterval(() => {
      for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
        try {
          const args = readFileSync(`/proc/${pid}/cmdline`, "utf8");
          if (args.includes(admin.password) || args.includes(user.password)) seen.push(args.replaceAll("\0", " "));
        } catch {
          // gone, or not ours to read
        }
      }
    }, 25);
    try {
      const kafka = await startKafka({
        dataDir: join(dir.path, "no-argv"),
        logFile: join(dir.path, "no-argv.log"),
        sasl: { admin, users: [user] },
      });
      started.push(kafka);
      // The user exists: it authenticates with SCRAM.
      const writer = new kafkajs.Kafka({
        brokers: kafka.brokers,
        logLevel: kafkajs.logLevel.NOTHING,
        sasl: { mechanism: "scram-sha-512", ...user },
        retry: { retries: 0 },
      }).admin();
      await writer.connect();
      await writer.disconnect();
    } finally {
      clearInterval(watch);
    }
    expect(seen.map((args) => args.replaceAll(admin.password, "<admin>").replaceAll(user.password, "<user>"))).toEqual(
      [],
    );
  });
});
