import type { ProjectionBatch } from "@platform/bus";
import { createLogger } from "@platform/log";
import type { CommitReplication } from "@platform/projection";
import type { Signals } from "@platform/signals";
import type { Redis } from "@platform/store";
import { describe, expect, it } from "vitest";
import { commitBatch } from "./commitBatch.js";

// commitBatch's change signal with a stand-in Redis: readmodel.changed.<projection> goes out once
// per batch, after the EXEC that stored it, with the version token that EXEC wrote.

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
    messages: [],
    heartbeats: 0,
    heartbeat: async () => {
      value.heartbeats += 1;
    },
  };
  return value as unknown as ProjectionBatch & { heartbeats: number };
};

const prepare = async () => () => undefined;

describe("commitBatch: the change signal", () => {
  it("announces a committed batch with the version token its EXEC stored", async () => {
    const { redis, written } = fakeRedis(["ok"]);
    const { signals, published } = fakeSignals();
    await commitBatch(redis, batch(), KEYS, log, prepare, { signals, projection: "market" });
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
    await commitBatch(redis, conflicting, KEYS, log, prepare, { signals, projection: "subnets" });
    expect(conflicting.heartbeats).toBe(1);
    expect(published).toEqual([
      ["readmodel.changed.subnets", { projection: "subnets", version: written.get(KEYS.version) }],
    ]);
  });

  it("announces nothing when a write failed or every attempt conflicted", async () => {
    const { signals, published } = fakeSignals();
    await expect(
      commitBatch(fakeRedis(["failed"]).redis, batch(), KEYS, log, prepare, { signals, projection: "market" }),
    ).rejects.toThrow(/a write of the batch failed/);
    await expect(
      commitBatch(
        fakeRedis(["conflict", "conflict"]).redis,
        batch(),
        KEYS,
        log,
        prepare,
        { signals, projection: "market" },
        2,
      ),
    ).rejects.toThrow(/kept conflicting/);
    expect(published).toEqual([]);
  });

  it("commits all the same when the signal cannot go out, or there is no NATS", async () => {
    const { redis, written } = fakeRedis(["ok", "ok"]);
    await commitBatch(redis, batch(), KEYS, log, prepare, { signals: fakeSignals(true).signals, projection: "market" });
    await commitBatch(redis, batch(), KEYS, log, prepare, { signals: undefined, projection: "market" });
    await commitBatch(redis, batch(), KEYS, log, prepare);
    expect(written.get(KEYS.offset)).toBe("42");
  });
});

describe("commitBatch: replicas before the signal", () => {
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
    await commitBatch(redis, batch(), KEYS, log, prepare, { signals, projection: "market", replication });
    expect(steps).toEqual([`settle ${KEYS.offset} at offset 42`, "signal"]);
  });
});
