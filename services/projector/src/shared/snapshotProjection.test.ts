import type { ProjectionBatch } from "@platform/bus";
import { createLogger } from "@platform/log";
import type { CommitReplication } from "@platform/projection";
import type { Signals } from "@platform/signals";
import type { Redis } from "@platform/store";
import { describe, expect, it } from "vitest";
import { snapshotProjection } from "./snapshotProjection.js";

// A snapshot projection's change signal with a stand-in Redis: readmodel.changed.<projection> goes
// out once per batch, after the EXEC that stored it, with the version token that EXEC wrote.

const log = createLogger({ service: "commit-batch-test", level: "silent" });
const KEYS = { offset: "rm:{data}:market:offset:t:0", version: "rm:{data}:market:version" };

/** A Redis whose EXECs answer, in turn, `outcomes` ("ok", "conflict" or "failed"). */
function fakeRedis(outcomes: Array<"ok" | "conflict" | "failed">) {
  const written = new Map<string, string>();
  const redis = {
    watch: async () => "OK",
    unwatch: async () => "OK",
    get: async () => "41",
    multi() {
      const queued: Array<[string, string]> = [];
      const multi = {
        set(key: string, value: string) {
          queued.push([key, value]);
          return multi;
        },
        async exec() {
          const outcome = outcomes.shift() ?? "ok";
          if (outcome === "conflict") return null;
          if (outcome === "failed") return [[new Error("WRONGTYPE"), null]];
          for (const [key, value] of queued) written.set(key, value);
          return queued.map(() => [null, "OK"]);
        },
      };
      return multi;
    },
  };
  return { redis: redis as unknown as Redis, written };
}

function fakeSignals(fail = false) {
  const published: Array<[string, unknown]> = [];
  const signals = {
    publish(subject: string, payload: unknown) {
      if (fail) throw new Error("nats away");
      published.push([subject, payload]);
      return true;
    },
  } as unknown as Signals;
  return { signals, published };
}

const batch = (): ProjectionBatch & { heartbeats: number } => {
  const value = {
    topic: "t",
    partition: 0,
    previousOffset: "41",
    lastOffset: "42",
    messages: [{ topic: "t", partition: 0, offset: "42", value: Buffer.from("x") }],
    heartbeats: 0,
    heartbeat: async () => {
      value.heartbeats += 1;
    },
  };
  return value as unknown as ProjectionBatch & { heartbeats: number };
};

/** A plan of nothing: the test is about the commit around it. */
const plan = async () => undefined;
const queueRedis = async () => () => undefined;
const writeHistory = async () => undefined;
const blocksOf = () => undefined;

/** The projection under test: one change per record, written nowhere but its offset and version. */
function project(
  redis: Redis,
  name: "market" | "subnets",
  extra: { signals?: Signals | undefined; replication?: CommitReplication; maxAttempts?: number } = {},
) {
  return snapshotProjection<string, undefined>({
    name,
    redis,
    log,
    offsetKey: () => KEYS.offset,
    versionKey: KEYS.version,
    decode: (messages) => messages.map((message) => message.offset),
    plan,
    queueRedis,
    writeHistory,
    blocksOf,
    ...extra,
  });
}

describe("snapshotProjection: the change signal", () => {
  it("announces a committed batch with the version token its EXEC stored", async () => {
    const { redis, written } = fakeRedis(["ok"]);
    const { signals, published } = fakeSignals();
    await project(redis, "market", { signals }).handleBatch(batch());
    expect(written.get(KEYS.offset)).toBe("42");
    expect(published).toEqual([
      ["readmodel.changed.market", { projection: "market", version: written.get(KEYS.version) }],
    ]);
    expect(written.get(KEYS.version)).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("announces once, after the EXEC that went through, when an earlier attempt conflicted", async () => {
    const { redis, written } = fakeRedis(["conflict", "ok"]);
    const { signals, published } = fakeSignals();
    const conflicting = batch();
    await project(redis, "subnets", { signals }).handleBatch(conflicting);
    expect(conflicting.heartbeats).toBe(1);
    expect(published).toEqual([
      ["readmodel.changed.subnets", { projection: "subnets", version: written.get(KEYS.version) }],
    ]);
  });

  it("announces nothing when a write failed or every attempt conflicted", async () => {
    const { signals, published } = fakeSignals();
    await expect(project(fakeRedis(["failed"]).redis, "market", { signals }).handleBatch(batch())).rejects.toThrow(
      /a write of the batch failed/,
    );
    await expect(
      project(fakeRedis(["conflict", "conflict"]).redis, "market", { signals, maxAttempts: 2 }).handleBatch(batch()),
    ).rejects.toThrow(/kept conflicting/);
    expect(published).toEqual([]);
  });

  it("commits all the same when the signal cannot go out, or there is no NATS", async () => {
    const { redis, written } = fakeRedis(["ok", "ok"]);
    await project(redis, "market", { signals: fakeSignals(true).signals }).handleBatch(batch());
    await project(redis, "market", { signals: undefined }).handleBatch(batch());
    await project(redis, "market").handleBatch(batch());
    expect(written.get(KEYS.offset)).toBe("42");
  });
});

describe("snapshotProjection: replicas before the signal", () => {
  it("waits for the replicas after the EXEC and before the signal, on the batch's offset key", async () => {
    const { redis, written } = fakeRedis(["ok"]);
    const steps: string[] = [];
    const signals = {
      publish: () => {
        steps.push("signal");
        return true;
      },
    } as unknown as Signals;
    const replication: CommitReplication = {
      async settle(_redis, key) {
        steps.push(`settle ${key} at offset ${written.get(KEYS.offset)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      },
    };
    await project(redis, "market", { signals, replication }).handleBatch(batch());
    expect(steps).toEqual([`settle ${KEYS.offset} at offset 42`, "signal"]);
  });
});
