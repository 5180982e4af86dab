import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { makeTestCertificates, type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedis, type Redis, redisConnectionOf, redisReadiness } from "./createRedis.js";

// TLS to Redis with a private CA (issue 42, item 5): a real redis-server that speaks TLS only,
// its CA and certificate made at test time.

const dir = tempDir("redis-tls");
let server: RunningRedis;
let caFile: string;
const clients: Redis[] = [];

beforeAll(async () => {
  mkdirSync(join(dir.path, "certs"));
  const certificates = makeTestCertificates(join(dir.path, "certs"));
  caFile = certificates.caFile;
  server = await startRedis({ dir: join(dir.path, "data"), logFile: join(dir.path, "redis.log"), tls: certificates });
}, 60_000);

afterAll(async () => {
  for (const client of clients) client.disconnect();
  await server?.stop();
  dir.remove();
});

const connect = (connection: Parameters<typeof createRedis>[0]) => {
  const client = createRedis(connection);
  clients.push(client);
  return client;
};

describe("Redis over TLS", () => {
  it("connects when the configuration names the CA (REDIS_TLS_CA_FILE), and commands work", async () => {
    expect(server.url).toMatch(/^rediss:\/\//);
    const redis = connect({
      ...redisConnectionOf({ REDIS_URL: server.url, REDIS_TLS: true, REDIS_TLS_CA_FILE: caFile }),
      connectionName: "tls-test",
    });
    await waitFor(() => redisReadiness(redis), { what: "redis over TLS", timeoutMs: 10_000 });
    await redis.set("tls:probe", "1");
    expect(await redis.get("tls:probe")).toBe("1");
  });

  it("refuses a server whose certificate no trusted CA signed, and a plain connection gets nowhere", async () => {
    const systemCas = connect({ url: server.url, connectionName: "tls-untrusted" });
    const plain = connect({ url: server.url.replace("rediss:", "redis:"), connectionName: "tls-plain" });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await redisReadiness(systemCas)).toBe(false);
    expect(await redisReadiness(plain)).toBe(false);
  });
});
