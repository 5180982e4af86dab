import type { Redis } from "@platform/store";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { answerCache, type CachedMethod } from "./answerCache.js";

interface Question {
  id: string;
}
interface Answer {
  id: string;
  body: string;
  computedAt: number;
}

// The cache reads only one key of Redis, with GET: a map stands in for it here (the real Redis
// and the real projector's versions: subnetsReads.int.test.ts).
function fakeRedis(): { redis: Redis; versions: Map<string, string>; gets: () => number } {
  const versions = new Map<string, string>();
  let gets = 0;
  const redis = {
    get: async (key: string) => {
      gets += 1;
      return versions.get(key) ?? null;
    },
  } as unknown as Redis;
  return { redis, versions, gets: () => gets };
}

const method: CachedMethod<Question, Answer> = {
  path: "/test.v1.Test/Ask",
  requestSerialize: (question) => Buffer.from(question.id),
  responseSerialize: (answer) => Buffer.from(JSON.stringify(answer)),
};

function setUp(maxBytes = 1 << 20) {
  const { redis, versions, gets } = fakeRedis();
  const registry = new Registry();
  const cache = answerCache({ redis, versionKey: "rm:test:version", maxBytes, registry, name: "Test" });
  let computed = 0;
  const compute = async (question: Question): Promise<Answer> => ({
    id: question.id,
    body: "x".repeat(100),
    computedAt: ++computed,
  });
  const ask = cache.cached(method, compute);
  const counts = async () =>
    Object.fromEntries(
      (await registry.getSingleMetric("data_query_answer_cache_total")!.get()).values.map((value) => [
        value.labels.result,
        value.value,
      ]),
    );
  return { cache, ask, versions, gets, computed: () => computed, counts };
}

describe("answerCache", () => {
  it("answers the same question from the cache while the version stands, and computes again once it changes", async () => {
    const { ask, versions, computed, counts } = setUp();
    versions.set("rm:test:version", "v1");
    const first = await ask({ id: "a" });
    expect(await ask({ id: "a" })).toBe(first);
    expect(computed()).toBe(1);
    expect((await ask({ id: "b" })).id).toBe("b");
    expect(computed()).toBe(2);
    versions.set("rm:test:version", "v2");
    const second = await ask({ id: "a" });
    expect(second).not.toBe(first);
    expect(second.computedAt).toBe(3);
    expect(await counts()).toEqual({ miss: 3, hit: 1 });
  });

  it("keeps nothing while the read model has no version, since nothing proves it unchanged", async () => {
    const { ask, computed, counts } = setUp();
    await ask({ id: "a" });
    await ask({ id: "a" });
    expect(computed()).toBe(2);
    expect(await counts()).toEqual({ uncacheable: 2 });
  });

  it("shares one computation between concurrent misses on the same question", async () => {
    const { ask, versions, computed } = setUp();
    versions.set("rm:test:version", "v1");
    const answers = await Promise.all([ask({ id: "a" }), ask({ id: "a" }), ask({ id: "a" }), ask({ id: "b" })]);
    expect(computed()).toBe(2);
    expect(answers[1]).toBe(answers[0]);
    expect(answers[2]).toBe(answers[0]);
  });

  it("passes a failure to every waiting call and keeps nothing of it", async () => {
    const { redis, versions } = fakeRedis();
    versions.set("rm:test:version", "v1");
    const cache = answerCache({ redis, versionKey: "rm:test:version", maxBytes: 1 << 20, name: "Test" });
    let calls = 0;
    const ask = cache.cached(method, async (question) => {
      calls += 1;
      if (calls === 1) throw new Error("not yet");
      return { id: question.id, body: "", computedAt: calls };
    });
    const results = await Promise.allSettled([ask({ id: "a" }), ask({ id: "a" })]);
    expect(results.map((result) => result.status)).toEqual(["rejected", "rejected"]);
    expect((await ask({ id: "a" })).computedAt).toBe(2);
  });

  it("bounds the kept answers by their wire bytes, dropping the least recently used first", async () => {
    // Each answer is about 140 bytes on the wire, charged 4 times that: room for two.
    const { ask, versions, computed } = setUp(1_300);
    versions.set("rm:test:version", "v1");
    const a = await ask({ id: "a" });
    await ask({ id: "b" });
    expect(await ask({ id: "a" })).toBe(a);
    await ask({ id: "c" });
    expect(computed()).toBe(3);
    // b was used least recently: gone, a and c stay.
    await ask({ id: "a" });
    await ask({ id: "c" });
    expect(computed()).toBe(3);
    await ask({ id: "b" });
    expect(computed()).toBe(4);
  });

  it("sends a kept answer as the bytes encoded when it was kept, and any other answer as usual", async () => {
    const { cache, ask, versions } = setUp();
    versions.set("rm:test:version", "v1");
    let encodings = 0;
    const definition = cache.preEncoded({
      ask: {
        ...method,
        requestDeserialize: (bytes: Buffer) => ({ id: bytes.toString() }),
        responseDeserialize: (bytes: Buffer) => JSON.parse(bytes.toString()),
        responseSerialize: (answer: Answer) => (encodings++, Buffer.from(JSON.stringify(answer))),
        requestStream: false,
        responseStream: false,
      },
    });
    const serialize = definition.ask!.responseSerialize as (value: unknown) => Buffer;
    const kept = await ask({ id: "a" });
    expect(JSON.parse(serialize(kept).toString())).toEqual(kept);
    expect(encodings).toBe(0);
    expect(JSON.parse(serialize({ id: "z", body: "", computedAt: 0 }).toString()).id).toBe("z");
    expect(encodings).toBe(1);
  });
});
