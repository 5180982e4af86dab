import type { ServiceDefinition } from "@grpc/grpc-js";
import type { Redis } from "@platform/store";
import { LRUCache } from "lru-cache";
import { Counter, type Registry } from "prom-client";
import { readModel } from "./asOf.js";

/**
 * Answers kept for as long as their read model's version stands (libs/read-models versions.ts).
 *
 * A heavy read (every subnet with its pool and metagraph counts, 190 KB on a mainnet-sized state; a
 * ranked page of holders) is the same for every caller until the projection commits again, about
 * once a block: computed once per version and kept with its wire bytes, each further call costs one
 * small GET of the version (it leaves in the same socket write as the call's marker check) and a
 * map lookup, and the answer is not encoded again. An answer computed while a commit landed may
 * show the newer state under the older version: harmless, since whoever reads the older version
 * asked before that commit, and every call after it reads the new version.
 *
 * Concurrent calls that miss on the same question share one computation. A new version empties the
 * cache (what was kept answered an older read model), and within a version the least recently used
 * answers go first once the kept answers' estimated heap exceeds `maxBytes`.
 */
export interface AnswerCache {
  /** `compute`, answered from the cache while the version stands. */
  cached<Request, Response extends object>(
    method: CachedMethod<Request, Response>,
    compute: (request: Request) => Promise<Response>,
  ): (request: Request) => Promise<Response>;
  /** The service's definition with each answer's kept bytes sent as they are (see preEncoded). */
  preEncoded(definition: ServiceDefinition): ServiceDefinition;
}

/** What the cache needs of a ts-proto method definition: the call's identity and the answer's bytes. */
export interface CachedMethod<Request, Response> {
  path: string;
  requestSerialize(request: Request): Buffer;
  responseSerialize(response: Response): Buffer;
}

export interface AnswerCacheOptions {
  redis: Redis;
  versionKey: string;
  /** Bound on the kept answers' estimated heap (HEAP_PER_WIRE_BYTE times their wire bytes). */
  maxBytes: number;
  /** Counts hits, misses and uncacheable reads as data_query_answer_cache_total{service,result}. */
  registry?: Registry;
  /** A name for the metric's label (the gRPC service). */
  name: string;
}

export function answerCache(options: AnswerCacheOptions): AnswerCache {
  const { redis, versionKey } = options;
  const kept = new LRUCache<string, object>({
    maxSize: options.maxBytes,
    sizeCalculation: (answer, key) =>
      HEAP_PER_WIRE_BYTE * (encodedAnswers.get(answer)?.byteLength ?? 0) + key.length + 1,
  });
  const inFlight = new Map<string, Promise<object>>();
  let standingVersion: string | undefined;
  const counted = answerCacheCounter(options.registry);
  const count = (result: "hit" | "miss" | "uncacheable") => counted?.inc({ service: options.name, result });
  const readVersion = () => readModel(() => redis.get(versionKey));

  return {
    cached<Request, Response extends object>(
      method: CachedMethod<Request, Response>,
      compute: (request: Request) => Promise<Response>,
    ) {
      const computeAndKeep = async (key: string, version: string, request: Request): Promise<Response> => {
        const answer = await compute(request);
        if (standingVersion === version) {
          encodedAnswers.set(answer, method.responseSerialize(answer));
          kept.set(key, answer);
        }
        return answer;
      };
      return async (request: Request): Promise<Response> => {
        const version = await readVersion();
        // No version yet: the read model predates versions or is empty; nothing proves it unchanged.
        if (version === null) {
          count("uncacheable");
          return compute(request);
        }
        if (version !== standingVersion) {
          kept.clear();
          inFlight.clear();
          standingVersion = version;
        }
        const key = `${version}\u0000${method.path}\u0000${method.requestSerialize(request).toString("latin1")}`;
        const answer = kept.get(key) as Response | undefined;
        if (answer !== undefined) {
          count("hit");
          return answer;
        }
        count("miss");
        let pending = inFlight.get(key) as Promise<Response> | undefined;
        if (pending === undefined) {
          pending = computeAndKeep(key, version, request).finally(() => {
            if (inFlight.get(key) === pending) inFlight.delete(key);
          });
          inFlight.set(key, pending);
        }
        return pending;
      };
    },
    preEncoded: preEncodedDefinition,
  };
}

/**
 * What a kept answer is charged against `maxBytes`, per byte of its wire form: the bytes themselves
 * and the decoded object, which took 2.5 times its wire size on the heap for a page of 100 holders
 * (measured with --expose-gc over 500 pages); 3 for the object leaves room for answers with more
 * small fields.
 */
const HEAP_PER_WIRE_BYTE = 4;

/** Kept answers' wire bytes, by the answer object the handler returns. */
const encodedAnswers = new WeakMap<object, Buffer>();

/**
 * A kept answer goes out as the bytes encoded when it was kept; any other answer is encoded as
 * usual. The same answer object is handed to every call that hits, so it must never be changed
 * after it is returned: nothing in data-query does.
 */
export function preEncodedDefinition(definition: ServiceDefinition): ServiceDefinition {
  return Object.fromEntries(
    Object.entries(definition).map(([name, method]) => {
      const serialize = method.responseSerialize as (value: unknown) => Buffer;
      const responseSerialize = (value: unknown) =>
        (typeof value === "object" && value !== null ? encodedAnswers.get(value) : undefined) ?? serialize(value);
      return [name, { ...method, responseSerialize }];
    }),
  ) as ServiceDefinition;
}

// One counter a registry, however many caches a process builds.
const counters = new WeakMap<Registry, Counter<"service" | "result">>();
function answerCacheCounter(registry: Registry | undefined): Counter<"service" | "result"> | undefined {
  if (registry === undefined) return undefined;
  let counter = counters.get(registry);
  if (counter === undefined) {
    counter = new Counter({
      name: "data_query_answer_cache_total",
      help: "Reads answered from the per-version answer cache (hit), computed and kept (miss), or computed with no version to key on (uncacheable).",
      labelNames: ["service", "result"],
      registers: [registry],
    });
    counters.set(registry, counter);
  }
  return counter;
}
