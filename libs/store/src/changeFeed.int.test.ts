import { join } from "node:path";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChangeEntry, createChangeFeed, idAfter } from "./changeFeed.js";
import { createRedis, type Redis, redisReadiness } from "./createRedis.js";

const dir = tempDir("store-change-feed");
let server: RunningRedis;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis({ dir: join(dir.path, "data"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: server.url, connectionName: "change-feed-test" });
  await waitFor(() => redisReadiness(redis), { what: "redis ready" });
});

afterAll(async () => {
  redis.disconnect();
  await server.stop();
  dir.remove();
});

const append = (key: string, n: number, user = "u1") => redis.xadd(key, "*", "n", String(n), "u", user);
const numbers = (entries: ChangeEntry[]) => entries.map((entry) => Number(entry.fields.get("n")!.toString()));

/** A watcher that records what it is given. */
function recorder() {
  const got: ChangeEntry[] = [];
  const gaps: (string | undefined)[] = [];
  let livePosition: string | undefined;
  return {
    got,
    gaps,
    live: () => livePosition,
    options: (after: string | undefined, user?: string) => ({
      ...(after === undefined ? {} : { after }),
      match: (entry: ChangeEntry) => user === undefined || entry.fields.get("u")?.toString() === user,
      deliver: (entry: ChangeEntry) => got.push(entry),
      gap: (oldest: string | undefined) => gaps.push(oldest),
      live: (position: string) => (livePosition = position),
      failed: (error: unknown) => {
        throw error;
      },
    }),
  };
}

describe("createChangeFeed against a real redis-server", () => {
  it("resumes after a position with no gap and no repeat while entries keep arriving, and filters", async () => {
    const key = "feed:resume";
    const ids: string[] = [];
    for (let n = 0; n < 1_200; n += 1) ids.push((await append(key, n, n % 2 === 0 ? "even" : "odd"))!);
    const feed = createChangeFeed({ redis, key, pollMs: 20, pageSize: 100 });
    const all = recorder();
    const evens = recorder();
    feed.watch(all.options(ids[99]));
    feed.watch(evens.options(ids[99], "even"));
    // Appended while the watchers catch up: each must come exactly once, after the catch-up.
    for (let n = 1_200; n < 1_400; n += 1) {
      await append(key, n, n % 2 === 0 ? "even" : "odd");
      if (n % 50 === 0) feed.wake();
    }
    await waitFor(async () => all.got.length === 1_300, { what: "every entry after the position", timeoutMs: 10_000 });
    expect(numbers(all.got)).toEqual(Array.from({ length: 1_300 }, (_, i) => 100 + i));
    await waitFor(async () => evens.got.length === 650, { what: "the even entries", timeoutMs: 10_000 });
    expect(numbers(evens.got)).toEqual(Array.from({ length: 650 }, (_, i) => 100 + 2 * i));
    expect(all.gaps).toEqual([]);
    expect(all.live()).toBeDefined();
    feed.close();
  });

  it("without a position gives only what is appended after the watch is live", async () => {
    const key = "feed:now";
    for (let n = 0; n < 5; n += 1) await append(key, n);
    const feed = createChangeFeed({ redis, key, pollMs: 1_000 });
    const watcher = recorder();
    feed.watch(watcher.options(undefined));
    await waitFor(async () => watcher.live() !== undefined, { what: "live" });
    await append(key, 5);
    await append(key, 6);
    // The signal is what brings them now; the timer would only after a second.
    feed.wake();
    await waitFor(async () => watcher.got.length === 2, { what: "the new entries", timeoutMs: 500 });
    expect(numbers(watcher.got)).toEqual([5, 6]);
    feed.close();
  });

  it("follows by its timer when no signal comes, and stops giving to a closed watch", async () => {
    const key = "feed:timer";
    const feed = createChangeFeed({ redis, key, pollMs: 50 });
    const open = recorder();
    const closing = recorder();
    feed.watch(open.options(undefined));
    const watch = feed.watch(closing.options(undefined));
    await waitFor(async () => open.live() !== undefined && closing.live() !== undefined, { what: "live" });
    await append(key, 1);
    await waitFor(async () => open.got.length === 1 && closing.got.length === 1, { what: "by timer" });
    watch.close();
    expect(feed.size()).toBe(1);
    await append(key, 2);
    await waitFor(async () => open.got.length === 2, { what: "second by timer" });
    expect(numbers(closing.got)).toEqual([1]);
    feed.close();
  });

  it("says when a position is older than the trimmed log keeps, then gives what is left", async () => {
    const key = "feed:trimmed";
    const first = (await append(key, 0))!;
    for (let n = 1; n < 10; n += 1) await append(key, n);
    await redis.xtrim(key, "MAXLEN", 4);
    const feed = createChangeFeed({ redis, key, pollMs: 1_000 });
    const watcher = recorder();
    feed.watch(watcher.options(first));
    await waitFor(async () => watcher.live() !== undefined, { what: "live" });
    const [[oldest]] = (await redis.xrange(key, "-", "+", "COUNT", 1)) as [[string, string[]]];
    expect(watcher.gaps).toEqual([oldest]);
    expect(numbers(watcher.got)).toEqual([6, 7, 8, 9]);
    // A position inside what is kept has no gap.
    const inside = recorder();
    feed.watch(inside.options(oldest));
    await waitFor(async () => inside.live() !== undefined, { what: "live" });
    expect(inside.gaps).toEqual([]);
    expect(numbers(inside.got)).toEqual([7, 8, 9]);
    feed.close();
  });

  it("bounds a catch-up: a position more than maxCatchUp entries behind gets a gap and only the newest maxCatchUp", async () => {
    const key = "feed:bounded";
    const ids: string[] = [];
    for (let n = 0; n < 60; n += 1) ids.push((await append(key, n, n % 2 === 0 ? "even" : "odd"))!);
    const feed = createChangeFeed({ redis, key, pollMs: 1_000, maxCatchUp: 20 });
    // From the very start (Last-Event-ID 0-0): 60 entries behind, 20 replayed after a gap naming the first of them.
    const whole = recorder();
    feed.watch(whole.options("0-0"));
    await waitFor(async () => whole.live() !== undefined, { what: "live" });
    expect(whole.gaps).toEqual([ids[40]]);
    expect(numbers(whole.got)).toEqual(Array.from({ length: 20 }, (_, i) => 40 + i));
    // The bound counts entries read, whatever the watcher keeps of them.
    const evens = recorder();
    feed.watch(evens.options(ids[0], "even"));
    await waitFor(async () => evens.live() !== undefined, { what: "live" });
    expect(evens.gaps).toEqual([ids[40]]);
    expect(numbers(evens.got)).toEqual(Array.from({ length: 10 }, (_, i) => 40 + 2 * i));
    // Exactly the bound behind: everything, no gap.
    const near = recorder();
    feed.watch(near.options(ids[39]));
    await waitFor(async () => near.live() !== undefined, { what: "live" });
    expect(near.gaps).toEqual([]);
    expect(numbers(near.got)).toEqual(Array.from({ length: 20 }, (_, i) => 40 + i));
    feed.close();
  });

  it("compares stream ids by time, then sequence", () => {
    expect(idAfter("10-0", "9-5")).toBe(true);
    expect(idAfter("10-1", "10-0")).toBe(true);
    expect(idAfter("10-0", "10-0")).toBe(false);
    expect(idAfter("9-9", "10-0")).toBe(false);
    expect(idAfter("18446744073709551615-2", "18446744073709551615-1")).toBe(true);
  });
});

describe("createChangeFeed started just before a resume", () => {
  it("loses nothing appended between a resume's catch-up and the process's first read of the tail", async () => {
    const key = "feed:first-second";
    const ids: string[] = [];
    for (let n = 0; n < 10; n += 1) ids.push((await append(key, n))!);
    // The first XRANGE this feed sends appends entry 10 as soon as it has answered: before the
    // tail was known, that read was the catch-up's, and the tail then started after entry 10.
    let appended = false;
    const racing = new Proxy(redis, {
      get(target, property, receiver) {
        if (property !== "xrangeBuffer") return Reflect.get(target, property, receiver);
        return async (...args: Parameters<Redis["xrangeBuffer"]>) => {
          const answer = await target.xrangeBuffer(...args);
          if (!appended) {
            appended = true;
            await append(key, 10);
          }
          return answer;
        };
      },
    });
    const feed = createChangeFeed({ redis: racing, key, pollMs: 60_000 });
    const watcher = recorder();
    feed.watch(watcher.options(ids[4]));
    await waitFor(async () => watcher.live() !== undefined, { what: "live" });
    await append(key, 11);
    feed.wake();
    await waitFor(async () => numbers(watcher.got).includes(11), { what: "the entry after live" });
    expect(numbers(watcher.got)).toEqual([5, 6, 7, 8, 9, 10, 11]);
    feed.close();
  });
});
