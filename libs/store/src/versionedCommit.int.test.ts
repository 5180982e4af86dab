import { join } from "node:path";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedis, type Redis, redisReadiness } from "./createRedis.js";
import { KeyIndex, packOps, readVersioned, versionedCommit } from "./versionedCommit.js";

const dir = tempDir("store-versioned");
let server: RunningRedis;
let redis: Redis;
const VERSIONS = "test:versions";

beforeAll(async () => {
  server = await startRedis({ dir: join(dir.path, "data"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: server.url, connectionName: "store-versioned-test" });
  await waitFor(() => redisReadiness(redis), { what: "redis ready" });
});

afterAll(async () => {
  redis.disconnect();
  await server.stop();
  dir.remove();
});

describe("versionedCommit against a real redis-server: ops and expected values", () => {
  it("appends change-log entries in order, with the commit or not at all, trimmed to about their bound", async () => {
    const entry = (n: number) => ({
      op: "xadd" as const,
      key: "t9:log",
      maxLength: 10,
      fields: ["n", String(n), "bytes", Buffer.from([n, 0, 255])],
    });
    for (let n = 0; n < 300; n += 3)
      await versionedCommit(redis, { versionsKey: VERSIONS, ops: [entry(n), entry(n + 1), entry(n + 2)], bumps: [] });
    const entries = await redis.xrangeBuffer("t9:log", "-", "+");
    // "~" trims whole nodes only: about the bound, never fewer than it.
    expect(entries.length).toBeGreaterThanOrEqual(10);
    expect(entries.length).toBeLessThan(300);
    const numbers = entries.map(([, fields]) => Number(fields[1]!.toString()));
    expect(numbers).toEqual(numbers.map((_, i) => numbers[0]! + i));
    expect(numbers.at(-1)).toBe(299);
    expect(entries.at(-1)![1][3]!.equals(Buffer.from([299 & 255, 0, 255]))).toBe(true);

    const refused = await versionedCommit(redis, {
      versionsKey: VERSIONS,
      guards: new Map([["t9:guard", "5"]]),
      ops: [entry(1000)],
      bumps: [],
    });
    expect(refused.outcome).toBe("conflict");
    expect(await redis.xrevrange("t9:log", "+", "-", "COUNT", 1)).toEqual([
      [expect.any(String), ["n", "299", "bytes", expect.any(String)]],
    ]);
    await expect(
      versionedCommit(redis, { versionsKey: VERSIONS, ops: [{ ...entry(1), fields: ["odd"] }], bumps: [] }),
    ).rejects.toThrow(/field and value pairs/);
  });

  it("applies every op kind and bumps the versions named", async () => {
    const result = await versionedCommit(redis, {
      versionsKey: VERSIONS,
      expect: [{ key: "t1:offset", value: undefined }],
      ops: [
        { op: "set", key: "t1:s", value: Buffer.from([0, 1, 255]) },
        { op: "zadd", key: "t1:z", entries: [1, "a", 2, "b"] },
        { op: "sadd", key: "t1:set", members: ["x", "y"] },
        { op: "hreplace", key: "t1:h", fields: { a: "1", b: "2" } },
        { op: "set", key: "t1:offset", value: "7" },
      ],
      bumps: ["t1:s", "t1:z", "t1:h", "t1:z"],
    });
    expect(result).toEqual({ outcome: "committed" });
    expect((await redis.getBuffer("t1:s"))?.equals(Buffer.from([0, 1, 255]))).toBe(true);
    expect(await redis.zrange("t1:z", "0", "-1", "WITHSCORES")).toEqual(["a", "1", "b", "2"]);
    expect((await redis.smembers("t1:set")).sort()).toEqual(["x", "y"]);
    expect(await redis.hgetall("t1:h")).toEqual({ a: "1", b: "2" });
    expect(await redis.hmget(VERSIONS, "t1:s", "t1:z", "t1:h", "t1:set")).toEqual(["1", "1", "1", null]);

    await versionedCommit(redis, {
      versionsKey: VERSIONS,
      expect: [{ key: "t1:offset", value: "7" }],
      ops: [
        { op: "zrem", key: "t1:z", members: ["a"] },
        { op: "srem", key: "t1:set", members: ["x"] },
        { op: "hreplace", key: "t1:h", fields: { c: "3" } },
        { op: "del", key: "t1:s" },
      ],
      bumps: ["t1:s"],
    });
    expect(await redis.zrange("t1:z", "0", "-1")).toEqual(["b"]);
    expect(await redis.smembers("t1:set")).toEqual(["y"]);
    expect(await redis.hgetall("t1:h")).toEqual({ c: "3" });
    expect(await redis.exists("t1:s")).toBe(0);
    // A deleted key keeps counting: its next content never reuses a version a reader saw.
    expect(await redis.hget(VERSIONS, "t1:s")).toBe("2");
  });

  it("rejects a stale expected value (a stored offset moved on) and writes nothing", async () => {
    await redis.set("t2:offset", "10");
    const stale = await versionedCommit(redis, {
      versionsKey: VERSIONS,
      expect: [{ key: "t2:offset", value: "9" }],
      ops: [
        { op: "set", key: "t2:data", value: "x" },
        { op: "set", key: "t2:offset", value: "12" },
      ],
      bumps: ["t2:data"],
    });
    expect(stale).toEqual({ outcome: "mismatch", key: "t2:offset", actual: "10" });
    const absentExpected = await versionedCommit(redis, {
      versionsKey: VERSIONS,
      expect: [{ key: "t2:offset", value: undefined }],
      ops: [{ op: "set", key: "t2:data", value: "x" }],
      bumps: ["t2:data"],
    });
    expect(absentExpected).toEqual({ outcome: "mismatch", key: "t2:offset", actual: "10" });
    const presentExpected = await versionedCommit(redis, {
      versionsKey: VERSIONS,
      expect: [{ key: "t2:none", value: "1" }],
      ops: [{ op: "set", key: "t2:data", value: "x" }],
      bumps: ["t2:data"],
    });
    expect(presentExpected).toEqual({ outcome: "mismatch", key: "t2:none", actual: undefined });
    expect(await redis.exists("t2:data")).toBe(0);
    expect(await redis.get("t2:offset")).toBe("10");
    expect(await redis.hget(VERSIONS, "t2:data")).toBeNull();
  });
});

describe("versionedCommit against a real redis-server: version guards and conflicts", () => {
  it("answers conflict when a guarded key was written after it was read, and commits on a fresh read", async () => {
    const bump = (value: string) =>
      versionedCommit(redis, { versionsKey: VERSIONS, ops: [{ op: "set", key: "t3:a", value }], bumps: ["t3:a"] });
    await bump("1");
    const read = await readVersioned(redis, VERSIONS, ["t3:a", "t3:never"], [["get", "t3:a"]]);
    expect(read.results).toEqual(["1"]);
    expect([...read.versions]).toEqual([
      ["t3:a", "1"],
      ["t3:never", "0"],
    ]);

    await bump("2"); // another writer, between our read and our commit
    const late = await versionedCommit(redis, {
      versionsKey: VERSIONS,
      guards: read.versions,
      ops: [{ op: "set", key: "t3:b", value: "from 1" }],
      bumps: ["t3:b"],
    });
    expect(late).toEqual({ outcome: "conflict", key: "t3:a" });
    expect(await redis.exists("t3:b")).toBe(0);

    const again = await readVersioned(redis, VERSIONS, ["t3:a", "t3:never"], [["get", "t3:a"]]);
    const fresh = await versionedCommit(redis, {
      versionsKey: VERSIONS,
      guards: again.versions,
      ops: [{ op: "set", key: "t3:b", value: "from 2" }],
      bumps: ["t3:b"],
    });
    expect(fresh).toEqual({ outcome: "committed" });
    expect(await redis.get("t3:b")).toBe("from 2");
  });

  it("versions an entity stored in several keys under one name", async () => {
    const write = (value: string) =>
      versionedCommit(redis, {
        versionsKey: VERSIONS,
        ops: [
          { op: "set", key: "t7:record", value },
          { op: "set", key: "t7:events", value },
        ],
        bumps: ["order:t7"],
      });
    await write("1");
    const read = await readVersioned(redis, VERSIONS, ["order:t7"], [["mget", "t7:record", "t7:events"]]);
    expect(read.results).toEqual([["1", "1"]]);
    await write("2");
    expect(await versionedCommit(redis, { versionsKey: VERSIONS, guards: read.versions, ops: [], bumps: [] })).toEqual({
      outcome: "conflict",
      key: "order:t7",
    });
    expect(await redis.hget(VERSIONS, "order:t7")).toBe("2");
  });

  it("marks a key read twice at different versions as stale, so the commit conflicts", async () => {
    const versions = new Map<string, string>();
    await versionedCommit(redis, {
      versionsKey: VERSIONS,
      ops: [{ op: "set", key: "t4:a", value: "1" }],
      bumps: ["t4:a"],
    });
    await readVersioned(redis, VERSIONS, ["t4:a"], [["get", "t4:a"]], versions);
    await versionedCommit(redis, {
      versionsKey: VERSIONS,
      ops: [{ op: "set", key: "t4:a", value: "2" }],
      bumps: ["t4:a"],
    });
    await readVersioned(redis, VERSIONS, ["t4:a"], [["get", "t4:a"]], versions);
    expect(await versionedCommit(redis, { versionsKey: VERSIONS, guards: versions, ops: [], bumps: [] })).toEqual({
      outcome: "conflict",
      key: "t4:a",
    });
  });
});

describe("versionedCommit against a real redis-server: script reloads, size limits and argument packing", () => {
  it("loads the script again after SCRIPT FLUSH (EVALSHA answers NOSCRIPT)", async () => {
    await redis.script("FLUSH");
    expect(
      await versionedCommit(redis, {
        versionsKey: VERSIONS,
        ops: [{ op: "set", key: "t5:a", value: "1" }],
        bumps: ["t5:a"],
      }),
    ).toEqual({ outcome: "committed" });
    expect(
      await versionedCommit(redis, {
        versionsKey: VERSIONS,
        ops: [{ op: "set", key: "t5:a", value: "2" }],
        bumps: ["t5:a"],
      }),
    ).toEqual({ outcome: "committed" });
    expect(await redis.hget(VERSIONS, "t5:a")).toBe("2");
  });

  it("guards and bumps thousands of names in one commit (beyond Lua's unpack limit)", async () => {
    const names = Array.from({ length: 6_001 }, (_, index) => `t8:${index}`);
    const bumpAll = (guards: Map<string, string>) =>
      versionedCommit(redis, { versionsKey: VERSIONS, guards, ops: [], bumps: names });
    const first = await readVersioned(redis, VERSIONS, names, []);
    expect(await bumpAll(first.versions)).toEqual({ outcome: "committed" });
    expect(await redis.hmget(VERSIONS, "t8:0", "t8:5000", "t8:6000")).toEqual(["1", "1", "1"]);
    const second = await readVersioned(redis, VERSIONS, names, []);
    expect(await bumpAll(second.versions)).toEqual({ outcome: "committed" });
    expect(await redis.hmget(VERSIONS, "t8:0", "t8:6000")).toEqual(["2", "2"]);
    // The first read is stale now, down to its last name.
    expect(await bumpAll(new Map([...first.versions].slice(6_000)))).toEqual({ outcome: "conflict", key: "t8:6000" });
  });

  it("refuses a version name it could not pass on (empty, or with a newline)", async () => {
    await expect(versionedCommit(redis, { versionsKey: VERSIONS, ops: [], bumps: ["a\nb"] })).rejects.toThrow(
      /version name/,
    );
    await expect(
      versionedCommit(redis, { versionsKey: VERSIONS, guards: new Map([["", "0"]]), ops: [], bumps: [] }),
    ).rejects.toThrow(/version name/);
  });

  it("takes large member lists (beyond Lua's unpack limit) in one op", async () => {
    const members = Array.from({ length: 12_000 }, (_, index) => `m${index}`);
    await versionedCommit(redis, { versionsKey: VERSIONS, ops: [{ op: "sadd", key: "t6:set", members }], bumps: [] });
    expect(await redis.scard("t6:set")).toBe(12_000);
  });
  it("passes binary values, empty values and multi-byte strings through the packed arguments intact", async () => {
    const binary = Buffer.from([0, 10, 13, 255, 0]);
    const large = Buffer.concat([Buffer.alloc(400, 0x0a), binary]);
    await versionedCommit(redis, {
      versionsKey: VERSIONS,
      ops: [
        { op: "set", key: "t9:bin", value: binary },
        { op: "set", key: "t9:text", value: "héllo\nwörld ✓" },
        { op: "set", key: "t9:empty", value: "" },
        { op: "set", key: "t9:large", value: large },
        { op: "sadd", key: "t9:members", members: ["small", "ü".repeat(300), "last"] },
        { op: "hreplace", key: "t9:h", fields: { fïeld: "välue", e: "" } },
        { op: "zadd", key: "t9:z", entries: [1.5, "ä", 2, "b"] },
      ],
      bumps: ["t9"],
    });
    expect((await redis.getBuffer("t9:bin"))?.equals(binary)).toBe(true);
    expect(await redis.get("t9:text")).toBe("héllo\nwörld ✓");
    expect(await redis.get("t9:empty")).toBe("");
    expect((await redis.getBuffer("t9:large"))?.equals(large)).toBe(true);
    expect((await redis.smembers("t9:members")).sort()).toEqual(["last", "small", "ü".repeat(300)]);
    expect(await redis.hgetall("t9:h")).toEqual({ fïeld: "välue", e: "" });
    expect(await redis.zrange("t9:z", "0", "-1", "WITHSCORES")).toEqual(["ä", "1.5", "b", "2"]);
  });

  it("packs ops as headers (keys by their index in KEYS), argument lengths and one blob", () => {
    const keys = new KeyIndex("versions");
    const packed = packOps(
      [
        { op: "set", key: "k1", value: Buffer.from([1, 2]) },
        { op: "sadd", key: "k2", members: ["ä", "b"] },
        { op: "del", key: "k1" },
      ],
      keys,
    );
    expect(packed.headers).toBe("set\n2\n1\nsadd\n3\n2\ndel\n2\n0");
    expect(keys.list()).toEqual(["versions", "k1", "k2"]);
    expect(packed.lengths).toBe("2\n2\n1");
    expect([...packed.blob]).toEqual([1, 2, ...Buffer.from("äb")]);
    expect(packed.separate).toEqual([]);
    // Large arguments travel on their own, marked "-" in the lengths.
    const large = Buffer.alloc(300, 7);
    const text = "x".repeat(256);
    const mixed = packOps(
      [
        { op: "set", key: "k1", value: large },
        { op: "sadd", key: "k2", members: ["a", text, "b"] },
      ],
      new KeyIndex("versions"),
    );
    expect(mixed.lengths).toBe("-\n1\n-\n1");
    expect(mixed.blob.toString()).toBe("ab");
    expect(mixed.separate).toEqual([large, text]);
    expect(() => packOps([{ op: "del", key: "a\nb" }], new KeyIndex("versions"))).toThrow(/key/);
  });
});

describe("readVersioned against a real redis-server: groups of entities", () => {
  it("reads groups of entities with their versions in one script, answering only those that hold something", async () => {
    await versionedCommit(redis, {
      versionsKey: VERSIONS,
      ops: [
        { op: "set", key: "t10:rec:b", value: Buffer.from([0, 255]) },
        { op: "hreplace", key: "t10:hash:y", fields: { f: "v" } },
        { op: "sadd", key: "t10:set:z", members: ["m1", "m2"] },
      ],
      bumps: ["e:b", "x:y", "x:z"],
    });
    const versions = new Map<string, string>();
    const read = await readVersioned(redis, VERSIONS, ["t10:other"], [["get", "t10:rec:b"]], versions, [
      { reads: ["get", "get"], namePrefix: "e:", keyPrefixes: ["t10:rec:", "t10:none:"], ids: ["a", "b"] },
      {
        reads: ["get", "hgetall", "smembers"],
        namePrefix: "x:",
        keyPrefixes: ["t10:rec:", "t10:hash:", "t10:set:"],
        ids: ["w", "y", "z"],
      },
    ]);
    expect(read.results).toEqual([String.fromCharCode(0, 0xfffd)]);
    expect([...read.groups[0]!]).toEqual([[1, [Buffer.from([0, 255]), null]]]);
    expect([...read.groups[1]!.keys()]).toEqual([1, 2]);
    expect(read.groups[1]!.get(1)).toEqual([null, { f: "v" }, []]);
    const [placeholder, hash, members] = read.groups[1]!.get(2)!;
    expect([placeholder, hash, (members as string[]).sort()]).toEqual([null, {}, ["m1", "m2"]]);
    expect(Object.fromEntries(versions)).toEqual({
      "t10:other": "0",
      "e:a": "0",
      "e:b": "1",
      "x:w": "0",
      "x:y": "1",
      "x:z": "1",
    });
    // A commit in between moves a version: read again into the same map, it turns stale.
    await versionedCommit(redis, {
      versionsKey: VERSIONS,
      ops: [{ op: "set", key: "t10:rec:b", value: "2" }],
      bumps: ["e:b"],
    });
    await readVersioned(redis, VERSIONS, [], [], versions, [
      { reads: ["get"], namePrefix: "e:", keyPrefixes: ["t10:rec:"], ids: ["b"] },
    ]);
    expect(versions.get("e:b")).toBe("stale");
  });

  it("loads the read script again after SCRIPT FLUSH", async () => {
    await redis.script("FLUSH");
    const read = await readVersioned(redis, VERSIONS, [], [], new Map(), [
      { reads: ["get"], namePrefix: "e:", keyPrefixes: ["t10:rec:"], ids: ["b", "never"] },
    ]);
    expect([...read.groups[0]!.keys()]).toEqual([0]);
  });

  it("reads thousands of entities in one script (beyond Lua's unpack limit)", async () => {
    const ids = Array.from({ length: 6_001 }, (_, index) => String(index));
    await versionedCommit(redis, {
      versionsKey: VERSIONS,
      ops: [{ op: "set", key: "t11:6000", value: "last" }],
      bumps: ["n:6000"],
    });
    const versions = new Map<string, string>();
    const read = await readVersioned(redis, VERSIONS, [], [], versions, [
      { reads: ["get"], namePrefix: "n:", keyPrefixes: ["t11:"], ids },
    ]);
    expect([...read.groups[0]!]).toEqual([[6_000, [Buffer.from("last")]]]);
    expect(versions.size).toBe(6_001);
    expect(versions.get("n:6000")).toBe("1");
    expect(versions.get("n:0")).toBe("0");
  });
});
