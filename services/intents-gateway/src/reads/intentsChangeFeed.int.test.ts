import { join } from "node:path";
import { createLogger } from "@platform/log";
import { intentsChangeLog } from "@platform/read-models";
import { type ChangeEntry, createRedis, type Redis, redisReadiness } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIntentsChangeFeed } from "./intentsChangeFeed.js";

const dir = tempDir("intents-change-feed");
let server: RunningRedis;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis({ dir: join(dir.path, "data"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: server.url, connectionName: "intents-change-feed-test" });
  await waitFor(() => redisReadiness(redis), { what: "redis ready" });
});

afterAll(async () => {
  redis.disconnect();
  await server.stop();
  dir.remove();
});

describe("the intents change feed against a real redis-server", () => {
  it("replays at most maxReplayEntries to a resume from 0-0, after a gap naming the first it gives", async () => {
    const { key, fields } = intentsChangeLog;
    const ids: string[] = [];
    const pipeline = redis.pipeline();
    for (let n = 0; n < 1_250; n += 1)
      pipeline.xadd(key, "*", fields.key, `order-${n}`, fields.user, "u", fields.record, "");
    for (const [error, id] of (await pipeline.exec())!) {
      if (error) throw error;
      ids.push(id as string);
    }
    const feed = createIntentsChangeFeed({
      redis,
      log: createLogger({ service: "test", level: "silent" }),
      pollMs: 60_000,
      maxReplayEntries: 1_000,
    });
    const got: ChangeEntry[] = [];
    const gaps: Array<string | undefined> = [];
    let live = false;
    feed.watch({
      after: "0-0",
      match: () => true,
      deliver: (entry) => got.push(entry),
      gap: (oldest) => gaps.push(oldest),
      live: () => {
        live = true;
      },
      failed: (error) => {
        throw error;
      },
    });
    await waitFor(async () => live, { what: "the watch live" });
    expect(gaps).toEqual([ids[250]]);
    expect(got.map((entry) => entry.id)).toEqual(ids.slice(250));
    feed.close();
  });
});
