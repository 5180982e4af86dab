import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { join } from "node:path";
import {
  createRedis,
  type Redis,
  readVersioned,
  redisAclFile,
  redisProjectionMarker,
  redisReadiness,
} from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { Redis as IORedis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_PRINCIPALS, PRINCIPALS } from "./principals.js";
import { principalsOn, redisUsersOf } from "./serverUsers.js";

/** A projection's commit as libs/projection's redisStore sends it: WATCH and GET the offset, then MULTI with the writes and the offset. */
async function commitAt(
  redis: Redis,
  offsetKey: string,
  write: (multi: ReturnType<Redis["multi"]>) => unknown,
): Promise<void> {
  await redis.watch(offsetKey);
  await redis.get(offsetKey);
  const multi = redis.multi();
  write(multi);
  multi.set(offsetKey, "1");
  const result = await multi.exec();
  if (result === null || result.some(([error]) => error !== null)) throw new Error("the commit failed");
}

/**
 * The grant model (principals.ts) rendered as Redis users on a real redis-server: each service's
 * user can do what its service does (a representative command of every key family it uses, its
 * scripts through EVALSHA as ioredis sends them) and is refused anything outside its grant. The
 * users are the local stack's (one `projector` for every projection) and Kubernetes' (one per
 * projection) together. Widening a grant, or switching the users off, fails a test here.
 */

const dir = tempDir("redis-acl");
const password = () => randomBytes(16).toString("hex");
const adminPassword = password();
const principals = { ...PRINCIPALS, ...LOCAL_PRINCIPALS };
const REDIS_USERS = principalsOn(principals, "redis");
type RedisUser = string;
const passwords = Object.fromEntries(REDIS_USERS.map((name) => [name, password()])) as Record<RedisUser, string>;
let server: RunningRedis;
let admin: Redis;
const users = new Map<RedisUser, Redis>();

/** Redis' answers to a command outside the user's grant, run directly or from a script. */
const REFUSED = /NOPERM|ACL failure|no permissions|can't (run|access)/i;

const as = (name: RedisUser): Redis => users.get(name)!;
const refused = (attempt: Promise<unknown>) => expect(attempt).rejects.toThrow(REFUSED);

beforeAll(async () => {
  const aclFile = join(dir.path, "users.acl");
  writeFileSync(
    aclFile,
    redisAclFile(
      adminPassword,
      redisUsersOf(principals, (name) => passwords[name]!),
    ),
    { mode: 0o600 },
  );
  server = await startRedis({ dir: join(dir.path, "data"), logFile: join(dir.path, "redis.log"), aclFile });
  admin = createRedis({ url: server.url, username: "admin", password: adminPassword, connectionName: "admin" });
  for (const name of REDIS_USERS)
    users.set(name, createRedis({ url: server.url, username: name, password: passwords[name], connectionName: name }));
  for (const client of [admin, ...users.values()])
    await waitFor(() => redisReadiness(client), { what: "redis ready", timeoutMs: 10_000 });
  // What the other services wrote, for the readers.
  await admin
    .multi()
    .hset("auth:key:{ak_1}", { status: "active", secretVersion: "1" })
    .set("auth:registry", "complete")
    .set("rm:{intents}:order:0x01", "record")
    .set("rm:{intents}:projection", "complete")
    .xadd("rm:{intents}:changes", "*", "o", "0x01")
    .zadd("rm:{data}:market:pool:1:points", 1, "point")
    .hset("rm:{data}:accounts:head", { blockNumber: "1" })
    .set("rm:{data}:market:projection", "complete")
    .xadd("rm:{data}:changes", "*", "k", "head")
    .exec();
});

afterAll(async () => {
  for (const client of [admin, ...users.values()]) client?.disconnect();
  await server?.stop();
  dir.remove();
});

/**
 * Connects as `name` over RESP3 (HELLO 3), asks for CLIENT TRACKING ON BCAST, runs `write` on
 * another connection, and returns all the server sent this one: the replies and any invalidation
 * push naming a key. A PING after the write comes back after any push the write caused.
 */
async function trackingBroadcast(name: RedisUser, write: () => Promise<unknown>): Promise<string> {
  const socket = createConnection({ host: "127.0.0.1", port: server.port });
  let received = "";
  socket.on("data", (chunk: Buffer) => {
    received += chunk.toString("latin1");
  });
  await once(socket, "connect");
  const pongs = (count: number) =>
    waitFor(async () => received.split("+PONG\r\n").length > count, { what: "PONG", intervalMs: 5, timeoutMs: 10_000 });
  try {
    socket.write(`HELLO 3 AUTH ${name} ${passwords[name]}\r\nCLIENT TRACKING ON BCAST\r\nPING\r\n`);
    await pongs(1);
    await write();
    socket.write("PING\r\n");
    await pongs(2);
    return received;
  } finally {
    socket.destroy();
  }
}

/** Registers `lua` on the connection as ioredis' defineCommand does (EVALSHA, then EVAL once) and runs it twice. */
async function runScript(redis: Redis, name: string, lua: string, keys: string[], ...args: string[]): Promise<unknown> {
  redis.defineCommand(name, { numberOfKeys: keys.length, lua });
  const call = () =>
    (redis as unknown as Record<string, (...a: string[]) => Promise<unknown>>)[name]!(...keys, ...args);
  await call();
  return call();
}

describe("the servers' users", () => {
  it("refuses a connection without credentials, or with a wrong password", async () => {
    // RESP2: no HELLO at connect, so the connection opens and each command meets the server's answer.
    const anonymous = new IORedis(server.url, {
      protocol: 2,
      lazyConnect: true,
      enableReadyCheck: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    anonymous.on("error", () => undefined);
    try {
      await anonymous.connect();
      await expect(anonymous.get("auth:key:{ak_1}")).rejects.toThrow(/NOAUTH/);
      await expect(anonymous.call("AUTH", "data-query", "not-its-password")).rejects.toThrow(/WRONGPASS/);
      await expect(anonymous.call("AUTH", "default", "")).rejects.toThrow(/WRONGPASS|disabled/);
    } finally {
      anonymous.disconnect();
    }
  });

  it("lets only auth write auth:*, and only the projector's users write rm:*, each its own part", async () => {
    for (const name of REDIS_USERS) {
      const writeAuth = as(name).set("auth:key:{ak_probe}", "x");
      const writeReadModel = as(name).set("rm:{intents}:order:0xprobe", "x");
      if (name === "auth") await expect(writeAuth).resolves.toBe("OK");
      else await refused(writeAuth);
      if (name === "projector" || name === "projector-intents") await expect(writeReadModel).resolves.toBe("OK");
      else await refused(writeReadModel);
    }
  });

  it("refuses every service the dangerous commands", async () => {
    for (const name of REDIS_USERS) {
      const redis = as(name);
      await refused(redis.flushall());
      await refused(redis.flushdb());
      await refused(redis.keys("*"));
      await refused(redis.call("CONFIG", "GET", "maxmemory"));
      await refused(redis.call("ACL", "LIST"));
      await refused(redis.call("BGSAVE"));
      await refused(redis.call("SORT", "rm:{data}:market:pool:1:points", "ALPHA"));
      await refused(redis.call("CLIENT", "LIST"));
      await refused(redis.call("SCRIPT", "FLUSH"));
      await refused(redis.call("FUNCTION", "FLUSH"));
      await refused(redis.publish("readmodel.changed.intents", "x"));
      for (const subcommand of [["NODES"], ["FAILOVER"], ["RESET"], ["MEET", "127.0.0.1", "1"], ["FORGET", "x"]])
        await refused(redis.call("CLUSTER", ...subcommand));
    }
  });

  it("refuses every service the listing of key names: SCAN and RANDOMKEY are bound to no key pattern", async () => {
    for (const name of REDIS_USERS) {
      const redis = as(name);
      await refused(redis.scan("0", "MATCH", "auth:*"));
      await refused(redis.scan("0"));
      await refused(redis.call("RANDOMKEY"));
    }
  });

  it("refuses every service CLIENT TRACKING, whose BCAST mode pushes the name of every key anyone writes", async () => {
    for (const name of REDIS_USERS) {
      await refused(as(name).call("CLIENT", "TRACKING", "ON", "BCAST"));
      // As an attacker would ask, on a raw RESP3 connection (push messages): no key name reaches it.
      const heard = await trackingBroadcast(name, () =>
        admin.set(`auth:fail:addr:203.0.113.${REDIS_USERS.indexOf(name)}`, "1"),
      );
      expect(heard).toMatch(/^-NOPERM/m);
      expect(heard).not.toContain("auth:fail:addr:");
    }
  });

  it("lets every service ask for a cluster's slot map and state, as a cluster client must", async () => {
    // This server is no cluster: the command is allowed and Redis answers that it has no cluster.
    for (const name of REDIS_USERS)
      for (const subcommand of ["SLOTS", "INFO"])
        await expect(as(name).call("CLUSTER", subcommand)).rejects.toThrow(/cluster support disabled/i);
  });
});

describe("data-query: reads the data read models, writes nothing", () => {
  it("reads the data read models, their markers and change log", async () => {
    const redis = as("data-query");
    expect(await redis.zrange("rm:{data}:market:pool:1:points", "0", "-1")).toEqual(["point"]);
    expect(await redis.hgetall("rm:{data}:accounts:head")).toEqual({ blockNumber: "1" });
    expect(await redis.mget("rm:{data}:market:projection", "rm:{data}:accounts:projection")).toEqual([
      "complete",
      null,
    ]);
    expect(await redis.xrange("rm:{data}:changes", "-", "+")).toHaveLength(1);
    expect(await redis.xrevrange("rm:{data}:changes", "+", "-", "COUNT", 1)).toHaveLength(1);
    expect(await redis.xinfo("STREAM", "rm:{data}:changes")).toContain("entries-added");
    const [[, points]] = (await redis.multi().zrange("rm:{data}:market:pool:1:points", "0", "-1").exec()) as [
      [null, string[]],
    ];
    expect(points).toEqual(["point"]);
  });

  it("is refused writes, scripts and other services' keys", async () => {
    const redis = as("data-query");
    await refused(redis.zadd("rm:{data}:market:pool:1:points", 2, "forged"));
    await refused(redis.xadd("rm:{data}:changes", "*", "k", "head"));
    await refused(redis.del("rm:{data}:market:projection"));
    await refused(redis.hset("auth:key:{ak_1}", "status", "active"));
    await refused(redis.hgetall("auth:key:{ak_1}"));
    await refused(redis.get("rm:{intents}:order:0x01"));
    await refused(redis.eval("return redis.call('GET', KEYS[1])", 1, "rm:{data}:market:projection"));
  });
});

// The gateway's rate-limit script (services/gateway/src/access/rateLimitScript.ts) in short: checks
// auth's key record, reads Redis' clock, spends the key's budget.
const ADMIT = `
local key = redis.call('HMGET', KEYS[1], 'status', 'secretVersion')
if key[1] ~= 'active' then return -1 end
local time = redis.call('TIME')
redis.call('SET', KEYS[2], time[1], 'PX', 1000)
return 1
`;
// The event streams' lease script (services/gateway/src/routes/events/streamSlots.ts) in short.
const TAKE_SLOT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', 0)
redis.call('ZADD', KEYS[1], 1, ARGV[1])
redis.call('PEXPIRE', KEYS[1], 1000)
return redis.call('ZCARD', KEYS[1])
`;

describe("gateway: reads auth's key records, writes only its budgets and leases", () => {
  it("runs its rate-limit and lease scripts and reads auth's registry marker", async () => {
    const redis = as("gateway");
    expect(await runScript(redis, "admit", ADMIT, ["auth:key:{ak_1}", "rl:{ak_1}:default"])).toBe(1);
    expect(await redis.exists("rl:{ak_1}:default")).toBe(1);
    expect(await runScript(redis, "takeSlot", TAKE_SLOT, ["sse:{ak_1}"], "stream-1")).toBe(1);
    expect(await redis.zrem("sse:{ak_1}", "stream-1")).toBe(1);
    expect(await redis.mget("auth:registry")).toEqual(["complete"]);
  });

  it("is refused writing auth's keys, directly or from a script, and the read models", async () => {
    const redis = as("gateway");
    await refused(redis.hset("auth:key:{ak_1}", "status", "active"));
    await refused(redis.set("auth:registry", "complete"));
    // The selector lets a script name the key record beside the budget; what it runs is still checked.
    await refused(redis.eval("return redis.call('HSET', KEYS[1], 'status', 'active')", 2, "auth:key:{ak_1}", "rl:{x}"));
    await refused(redis.eval("return redis.call('DEL', KEYS[1])", 2, "auth:key:{ak_1}", "rl:{x}"));
    await refused(redis.eval("return redis.call('GET', KEYS[1])", 1, "auth:refresh:x"));
    await refused(redis.get("rm:{data}:market:projection"));
    await refused(redis.set("tc:nonce:x", "x"));
  });
});

// auth's refresh-token write (services/auth/src/registry/refreshTokenWrite.ts) in short.
const WRITE_REFRESH_TOKEN = `
redis.call('HSET', KEYS[1], 'keyId', ARGV[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[2], KEYS[1])
return redis.call('ZCARD', KEYS[2])
`;

describe("auth: its registry, tokens and counters", () => {
  it("writes its key records, refresh tokens, counters, offsets and marker", async () => {
    const redis = as("auth");
    await redis.hset("auth:key:{ak_2}", { status: "active", secretVersion: "1" });
    expect(await redis.sadd("auth:keys", "ak_2")).toBe(1);
    const expiry = String(Date.now() + 60_000);
    expect(
      await runScript(
        redis,
        "writeRefreshToken",
        WRITE_REFRESH_TOKEN,
        ["auth:refresh:ab", "auth:refresh-of:{ak_2}"],
        "ak_2",
        expiry,
      ),
    ).toBe(1);
    const [[, count]] = (await redis
      .multi()
      .incr("auth:grants:{ak_2}:1")
      .pexpire("auth:grants:{ak_2}:1", 61_000)
      .exec()) as [[null, number]];
    expect(count).toBe(1);
    await commitAt(redis, "auth:offset:auth.api-keys.v1:0", (multi) => multi.hset("auth:key:{ak_2}", "name", "two"));
    const marker = redisProjectionMarker(redis, "auth:registry-probe");
    await marker.setIfAbsent("rebuilding:1");
    expect(await marker.replace("rebuilding:1", "complete")).toBe(true);
  });

  it("is refused the read models and the other services' keys", async () => {
    const redis = as("auth");
    await refused(redis.get("rm:{data}:market:projection"));
    await refused(redis.set("tc:wallet:0x01", "x"));
    await refused(redis.set("rl:{ak_1}:default", "0"));
  });
});

describe("tc: its acceptances and nonces", () => {
  it("stores and consumes nonces, projects acceptances with its offsets and marker", async () => {
    const redis = as("tc");
    await redis.set("tc:nonce:n1", "0xWallet", "EX", 60);
    expect(await redis.getdel("tc:nonce:n1")).toBe("0xWallet");
    await commitAt(redis, "tc:{tc}:offset:tc.acceptances.v1:0", (multi) =>
      multi.hset("tc:{tc}:wallet:0xWallet", { acceptedVersion: "1" }),
    );
    expect(await redis.hget("tc:{tc}:wallet:0xWallet", "acceptedVersion")).toBe("1");
    const marker = redisProjectionMarker(redis, "tc:{tc}:projection");
    await marker.setIfAbsent("rebuilding:1");
    expect(await marker.replace("rebuilding:1", "complete")).toBe(true);
  });

  it("is refused auth's keys and the read models", async () => {
    const redis = as("tc");
    await refused(redis.hgetall("auth:key:{ak_1}"));
    await refused(redis.get("rm:{intents}:order:0x01"));
  });
});

describe("projector, the local stack's one process for every projection: every read model", () => {
  it("commits read models with their change logs, versions and offsets, through scripts", async () => {
    const redis = as("projector");
    await redis.xadd("rm:{data}:changes", "MAXLEN", "~", "100", "*", "k", "head");
    await redis.set("rm:{data}:market:version", "token");
    const commit = "redis.call('HINCRBY', KEYS[1], ARGV[1], 1) return redis.call('SET', KEYS[2], ARGV[2])";
    expect(
      await runScript(
        redis,
        "commitOrder",
        commit,
        ["rm:{intents}:versions", "rm:{intents}:order:0x02"],
        "o:0x02",
        "r",
      ),
    ).toBe("OK");
    // readVersioned's script: EVALSHA, then EVAL on NOSCRIPT; SCRIPT LOAD is not granted.
    const read = await readVersioned(redis, "rm:{intents}:versions", [], [], new Map(), [
      { reads: ["get"], namePrefix: "o:", keyPrefixes: ["rm:{intents}:order:"], ids: ["0x02"] },
    ]);
    expect(read.versions.get("o:0x02")).toBe("2"); // runScript commits twice
    await refused(redis.script("LOAD", "return 1"));
    await commitAt(redis, "rm:{data}:accounts:offset:chain.native.v1:0", (multi) =>
      multi.hset("rm:{data}:accounts:head", { blockNumber: "2" }),
    );
    const marker = redisProjectionMarker(redis, "rm:{data}:subnets:projection");
    await marker.setIfAbsent("rebuilding:1");
    expect(await marker.replace("rebuilding:1", "complete")).toBe(true);
  });

  it("is refused the services' own keys", async () => {
    const redis = as("projector");
    await refused(redis.hset("auth:key:{ak_1}", "status", "revoked"));
    await refused(redis.set("tc:wallet:0x01", "x"));
    await refused(redis.set("intents-gateway:notified:{intents}:1:0x01", "x"));
    await refused(redis.set("rl:{ak_1}:default", "0"));
  });
});

/** Each projection's own key prefix (libs/read-models keySpaces.ts). */
const PREFIX = {
  "projector-intents": "rm:{intents}:",
  "projector-accounts": "rm:{data}:accounts:",
  "projector-market": "rm:{data}:market:",
  "projector-subnets": "rm:{data}:subnets:",
} as const;
type ProjectionUser = keyof typeof PREFIX;
/** A key of each projection's own part, and of no other's. */
const OWN_KEY: Record<ProjectionUser, string> = {
  "projector-intents": "rm:{intents}:deadlines:1",
  "projector-accounts": "rm:{data}:accounts:points:0xab",
  "projector-market": "rm:{data}:market:pool:2:points",
  "projector-subnets": "rm:{data}:subnets:subnet:2:points",
};
const DATA_PROJECTIONS = ["projector-accounts", "projector-market", "projector-subnets"] as const;

describe("each projection's own user (Kubernetes): its own keys, and the shared change log key by key", () => {
  it("writes its own read model, offsets, marker and version in a commit, through scripts", async () => {
    for (const name of Object.keys(OWN_KEY) as ProjectionUser[]) {
      const redis = as(name);
      const own = OWN_KEY[name];
      const prefix = PREFIX[name];
      await commitAt(redis, `${prefix}offset:chain.network.v1:0`, (multi) => multi.zadd(own, 1, "point"));
      const marker = redisProjectionMarker(redis, `${prefix}projection-probe`);
      await marker.setIfAbsent("rebuilding:1");
      expect(await marker.replace("rebuilding:1", "complete"), name).toBe(true);
      const touch = "return redis.call('ZCARD', KEYS[1])";
      expect(await runScript(redis, `touch${name.replace("-", "")}`, touch, [own]), name).toBe(1);
    }
    await as("projector-market").set("rm:{data}:market:version", "token");
    await as("projector-subnets").set("rm:{data}:subnets:version", "token");
  });

  it("appends to the shared data change log in the commit, when it is a data projection", async () => {
    for (const name of DATA_PROJECTIONS) {
      const redis = as(name);
      await commitAt(redis, `${PREFIX[name]}offset:oracle.prices.v1:0`, (multi) =>
        multi.xadd("rm:{data}:changes", "MAXLEN", "~", "100", "*", "k", "head"),
      );
      expect(await redis.xlen("rm:{data}:changes"), name).toBeGreaterThan(0);
    }
    await refused(as("projector-intents").xadd("rm:{data}:changes", "*", "k", "head"));
  });

  it("is refused every other projection's keys, directly or from a script", async () => {
    for (const name of Object.keys(OWN_KEY) as ProjectionUser[]) {
      const redis = as(name);
      for (const [other, key] of Object.entries(OWN_KEY)) {
        if (other === name) continue;
        await refused(redis.zadd(key, 9, "forged"));
        await refused(redis.zrange(key, "0", "-1"));
        await refused(redis.eval("return redis.call('ZCARD', KEYS[2])", 2, OWN_KEY[name], key));
      }
    }
    const market = as("projector-market");
    await refused(market.hset("rm:{data}:accounts:head", { blockNumber: "9" }));
    await refused(market.set("rm:{data}:subnets:version", "forged"));
    await refused(market.set("rm:{intents}:projection", "complete"));
    await refused(market.xadd("rm:{intents}:changes", "*", "o", "0x01"));
  });

  it("is granted the shared change log as one key, not as a pattern", async () => {
    for (const name of DATA_PROJECTIONS) {
      const redis = as(name);
      await refused(redis.set("rm:{data}:changes-forged", "x"));
      await refused(redis.set("rm:{data}:projection", "x"));
      await refused(redis.set("rm:{data}:other:version", "x"));
    }
  });

  it("is refused the services' own keys", async () => {
    for (const name of Object.keys(OWN_KEY) as ProjectionUser[]) {
      await refused(as(name).hset("auth:key:{ak_1}", "status", "revoked"));
      await refused(as(name).set("intents-gateway:notified:{intents}:1:0x01", "x"));
    }
  });
});

// intents-gateway's quote store (services/intents-gateway/src/quote/quoteStore.ts) in short.
const SAVE_QUOTE = `
local time = redis.call('TIME')
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', 0)
redis.call('SET', KEYS[2], ARGV[2], 'EX', 60)
redis.call('ZADD', KEYS[1], tonumber(time[1]), ARGV[1])
if redis.call('PTTL', KEYS[1]) < 60000 then redis.call('PEXPIRE', KEYS[1], 60000) end
return redis.call('ZCARD', KEYS[1])
`;

describe("intents-gateway: its quotes and claims, the intents read model read-only", () => {
  it("saves quotes through its script, claims notifications, reads the intents mirror and its change log", async () => {
    const redis = as("intents-gateway");
    const keys = ["intents-gateway:quotes:{ak:ak_1}", "intents-gateway:quote:{ak:ak_1}:q_1"];
    expect(await runScript(redis, "saveQuote", SAVE_QUOTE, keys, "q_1", "{}")).toBe(1);
    expect(await redis.set("intents-gateway:claim:{intents}:1:0xab:0xcd", "pending", "EX", 60, "NX")).toBe("OK");
    await redis
      .multi()
      .set("intents-gateway:notified:{intents}:1:0xab", "1", "EX", 60)
      .del("intents-gateway:claim:{intents}:1:0xab:0xcd")
      .exec();
    expect(await redis.get("rm:{intents}:order:0x01")).toBe("record");
    expect(await redis.mget("rm:{intents}:projection")).toEqual(["complete"]);
    expect(await redis.xrange("rm:{intents}:changes", "-", "+")).toHaveLength(1);
    expect(await redis.xinfo("STREAM", "rm:{intents}:changes")).toContain("entries-added");
  });

  it("is refused writing the intents read model, and the other read models", async () => {
    const redis = as("intents-gateway");
    await refused(redis.set("rm:{intents}:order:0x01", "forged"));
    await refused(redis.xadd("rm:{intents}:changes", "*", "o", "0x01"));
    await refused(redis.get("rm:{data}:market:projection"));
    await refused(redis.eval("return redis.call('GET', KEYS[1])", 1, "rm:{intents}:order:0x01"));
  });
});
