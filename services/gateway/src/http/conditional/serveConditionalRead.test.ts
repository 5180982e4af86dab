import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { status } from "@grpc/grpc-js";
import { notFound } from "@platform/errors";
import { defineRoute, integerItem, listQuery } from "@platform/http";
import { createLogger } from "@platform/log";
import { createMetricsRegistry, watchDependencies } from "@platform/runtime";
import { decodeReadModelChange } from "@platform/signals";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGatewayApp } from "../../app.js";
import { HttpProblem } from "../../HttpProblem.js";
import { applyChangeSignal } from "./changeSignals.js";
import { createConditionalReads } from "./conditionalReads.js";
import { conditionalRead } from "./conditionalRoute.js";

/** A change signal as the gateway receives it on `readmodel.changed.<projection>`. */
const received = (projection: string, payload: unknown) =>
  decodeReadModelChange(`readmodel.changed.${projection}`, payload);

// The conditional read path through the gateway app, with a route whose fake backend counts its
// calls: which requests reach the backend, what they cost, and what goes out.

const registry = createMetricsRegistry("conditional-serve-test");
const reads = createConditionalReads({ blockSeconds: 12, registry });
/** What the fake backend answers: its price and as_of's time; and how often it was called. */
const backend = { calls: 0, price: "1.00", asOfTimestamp: "", delayMs: 0 };
const costs: number[] = [];
let server: Server;
let base: string;

const priceRoute = conditionalRead(
  defineRoute({
    method: "get",
    path: "/data/v1/things/:name/latest",
    operationId: "getThing",
    scope: "data:read",
    cost: 2,
    params: z.object({ name: z.string().max(20) }),
    query: z.object({ netuid: listQuery(integerItem(0, 65_535), { max: 8, description: "netuids" }).optional() }),
    docs: {
      summary: "thing",
      tags: ["test"],
      success: { status: 200, description: "a thing", contentType: "application/hal+json" },
    },
    async handle({ params, query }) {
      backend.calls += 1;
      if (backend.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, backend.delayMs));
      if (params.name === "missing") throw notFound("THING_NOT_FOUND", "no such thing");
      return {
        status: 200,
        contentType: "application/hal+json",
        headers: { Sunset: "Sun, 06 Jun 2027 00:00:00 GMT" },
        body: {
          as_of: { block_number: 7, timestamp: backend.asOfTimestamp },
          name: params.name,
          netuid: query.netuid ?? null,
          price: backend.price,
        },
      };
    },
  }),
  { dependsOn: () => ["market"] },
  { cacheControl: "until the next block", notModified: "still current" },
);

beforeAll(async () => {
  const app = createGatewayApp({
    log: createLogger({ service: "conditional-serve-test", level: "silent" }),
    guard: async (context, route) => {
      if (context.header("authorization") === undefined) {
        throw new HttpProblem({
          code: "UNAUTHENTICATED",
          grpcStatus: status.UNAUTHENTICATED,
          detail: "no token",
          headers: {},
        });
      }
      costs.push(route.cost);
      return { keyId: context.header("authorization")!.slice(7), headers: { ratelimit: '"default";r=9;t=1' } };
    },
    registry,
    readiness: watchDependencies([], 60_000),
    routes: [priceRoute],
    publicBaseUrl: "https://api.example",
    maxBodyBytes: 1024,
    conditional: reads,
  });
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  reads.setSignalsReady(false);
  reads.setSignalsReady(true);
  Object.assign(backend, { calls: 0, price: "1.00", asOfTimestamp: new Date().toISOString(), delayMs: 0 });
  costs.length = 0;
});

const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
  fetch(`${base}${path}`, { method, headers: { authorization: "Bearer ak_one", ...headers } });

async function count(result: string): Promise<number> {
  const metric = await registry.getSingleMetric("gateway_conditional_reads_total")!.get();
  return metric.values.find((value) => value.labels.result === result)?.value ?? 0;
}

describe("conditional reads: 200 answers", () => {
  it("carry a strong ETag of the text sent and Cache-Control until the next block, with the RateLimit headers", async () => {
    const response = await get("/data/v1/things/a/latest");
    expect(response.status).toBe(200);
    const text = await response.text();
    const { entityTagOf } = await import("./entityTags.js");
    expect(response.headers.get("etag")).toBe(entityTagOf(text));
    expect(response.headers.get("cache-control")).toMatch(/^private, max-age=1[12]$/);
    expect(response.headers.get("ratelimit")).toBe('"default";r=9;t=1');
    expect(response.headers.get("content-type")).toBe("application/hal+json; charset=utf-8");
    expect(costs).toEqual([2]);
  });

  it("an answer whose next block is overdue is fresh for 0 s, and still proven from memory while nothing it was read from changes", async () => {
    backend.asOfTimestamp = new Date(Date.now() - 30_000).toISOString();
    const first = await get("/data/v1/things/a/latest");
    expect(first.headers.get("cache-control")).toBe("private, max-age=0");
    const again = await get("/data/v1/things/a/latest", { "if-none-match": first.headers.get("etag")! });
    expect([again.status, again.headers.get("cache-control")]).toEqual([304, "private, max-age=0"]);
    const repeated = await get("/data/v1/things/a/latest");
    expect([repeated.status, repeated.headers.get("cache-control")]).toEqual([200, "private, max-age=0"]);
    expect(backend.calls).toBe(1);
    // Its read model changes: the next read calls the backend again.
    applyChangeSignal(reads, received("market", {}));
    await get("/data/v1/things/a/latest");
    expect(backend.calls).toBe(2);
  });

  it("errors carry no ETag", async () => {
    const response = await get("/data/v1/things/missing/latest", { "if-none-match": "*" });
    expect(response.status).toBe(404);
    expect(response.headers.get("etag")).toBeNull();
    expect(response.headers.get("cache-control")).toBeNull();
  });
});

describe("conditional reads: 304 without a backend call", () => {
  it("answers an unchanged read from memory: no body, the ETag, Cache-Control and RateLimit, a fifth of the cost", async () => {
    const before = await count("not_modified_cached");
    const first = await get("/data/v1/things/a/latest");
    const tag = first.headers.get("etag")!;
    const again = await get("/data/v1/things/a/latest", { "if-none-match": `"stale", W/${tag}` });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(again.headers.get("etag")).toBe(tag);
    expect(again.headers.get("cache-control")).toMatch(/^private, max-age=(9|10|11|12)$/);
    expect(again.headers.get("ratelimit")).toBe('"default";r=9;t=1');
    expect(again.headers.get("content-type")).toBeNull();
    expect(backend.calls).toBe(1);
    expect(costs).toEqual([2, 0.4]);
    expect(await count("not_modified_cached")).toBe(before + 1);
  });

  it("keys answers by route, parameters and canonical query, not by API key or spelling", async () => {
    const first = await get("/data/v1/things/a/latest?netuid=1,2");
    const tag = first.headers.get("etag")!;
    const other = await get("/DATA/v1/things/a/latest?netuid=1&netuid=2", {
      authorization: "Bearer ak_two",
      "if-none-match": tag,
    });
    expect(other.status).toBe(304);
    expect(backend.calls).toBe(1);
    // Another value is another answer.
    expect((await get("/data/v1/things/a/latest?netuid=1", { "if-none-match": tag })).status).toBe(200);
    expect(backend.calls).toBe(2);
    // A parameter the route does not list is refused, never keyed around: not a cache-buster either.
    expect((await get("/data/v1/things/a/latest?junk=1&netuid=1,2", { "if-none-match": tag })).status).toBe(400);
    expect(backend.calls).toBe(2);
  });

  it("answers HEAD alike, and `*` whenever an answer is kept", async () => {
    const head = await get("/data/v1/things/a/latest", {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("etag")).toMatch(/^"/);
    expect(await head.text()).toBe("");
    expect((await get("/data/v1/things/a/latest", { "if-none-match": "*" }, "HEAD")).status).toBe(304);
    expect((await get("/data/v1/things/a/latest", { "if-none-match": "*" })).status).toBe(304);
    expect(backend.calls).toBe(1);
  });

  it("still refuses first what every route refuses first: no token is 401, bad input 400, before anything is proven", async () => {
    const first = await get("/data/v1/things/a/latest");
    const tag = first.headers.get("etag")!;
    const anonymous = await fetch(`${base}/data/v1/things/a/latest`, { headers: { "if-none-match": tag } });
    expect(anonymous.status).toBe(401);
    const invalid = await get("/data/v1/things/a/latest?netuid=x", { "if-none-match": "*" });
    expect(invalid.status).toBe(400);
    expect(backend.calls).toBe(1);
    expect(costs).toEqual([2, 2]);
  });
});

describe("conditional reads: the backend is asked when nothing is proven", () => {
  it("after the read model changed: 304 if the answer is the same, 200 with a new ETag if not, each at the full cost", async () => {
    const first = await get("/data/v1/things/a/latest");
    const tag = first.headers.get("etag")!;
    const afterCall = await count("not_modified_after_call");
    applyChangeSignal(reads, received("market", { projection: "market", version: "v2" }));
    const same = await get("/data/v1/things/a/latest", { "if-none-match": tag });
    expect(same.status).toBe(304);
    expect(same.headers.get("etag")).toBe(tag);
    expect(backend.calls).toBe(2);
    expect(await count("not_modified_after_call")).toBe(afterCall + 1);

    const modified = await count("modified");
    applyChangeSignal(reads, received("market", { projection: "market", version: "v3" }));
    backend.price = "1.01";
    const changed = await get("/data/v1/things/a/latest", { "if-none-match": tag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(tag);
    expect(JSON.parse(await changed.text())).toMatchObject({ price: "1.01" });
    expect(await count("modified")).toBe(modified + 1);
    expect(costs).toEqual([2, 2, 2]);
    // The new answer is the one kept now: the old tag gets it again (from memory), the new one a 304.
    const again = await get("/data/v1/things/a/latest", { "if-none-match": tag });
    expect([again.status, again.headers.get("etag")]).toEqual([200, changed.headers.get("etag")]);
    const newTag = changed.headers.get("etag")!;
    expect((await get("/data/v1/things/a/latest", { "if-none-match": newTag })).status).toBe(304);
    expect(backend.calls).toBe(3);
  });

  it("shares one backend call among concurrent requests for the same question", async () => {
    backend.delayMs = 100;
    const answers = await Promise.all(Array.from({ length: 5 }, () => get("/data/v1/things/a/latest")));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((answer) => answer.headers.get("etag"))).size).toBe(1);
    expect(backend.calls).toBe(1);
    expect(costs).toEqual([2, 2, 2, 2, 2]);
  });

  it("sends a current kept answer again as the same 200 without calling the backend, at the full cost", async () => {
    const first = await get("/data/v1/things/a/latest");
    const firstBody = await first.text();
    const again = await get("/data/v1/things/a/latest");
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(firstBody);
    expect(again.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
    expect(again.headers.get("cache-control")).toMatch(/^private, max-age=\d+$/);
    // The route's own headers (a deprecation's Sunset) go with every copy, not with a 304.
    expect(again.headers.get("sunset")).toBe("Sun, 06 Jun 2027 00:00:00 GMT");
    const proven = await get("/data/v1/things/a/latest", { "if-none-match": first.headers.get("etag")! });
    expect(proven.status).toBe(304);
    expect(proven.headers.get("sunset")).toBeNull();
    expect(backend.calls).toBe(1);
    expect(costs).toEqual([2, 2, 0.4]);
    // A change of what it was read from sends the next one to the backend.
    applyChangeSignal(reads, received("market", { projection: "market", version: "v9" }));
    await (await get("/data/v1/things/a/latest")).text();
    expect(backend.calls).toBe(2);
  });

  it("while the signals may be lost (NATS not ready): every conditional read calls the backend", async () => {
    const first = await get("/data/v1/things/a/latest");
    reads.setSignalsReady(false);
    const again = await get("/data/v1/things/a/latest", { "if-none-match": first.headers.get("etag")! });
    expect(again.status).toBe(304);
    expect(backend.calls).toBe(2);
    expect(costs).toEqual([2, 2]);
  });

  it("a malformed If-None-Match is no condition: 200", async () => {
    await get("/data/v1/things/a/latest");
    const response = await get("/data/v1/things/a/latest", { "if-none-match": "not-a-tag" });
    expect(response.status).toBe(200);
  });
});

describe("conditional reads: as_of age", () => {
  /** A sample of gateway_answer_as_of_age_seconds for the route, from the registry's text output. */
  async function ageSample(
    suffix: "count" | "sum" | 'bucket{le="1"' | 'bucket{le="10"' | 'bucket{le="60"',
  ): Promise<number> {
    const name = suffix.startsWith("bucket")
      ? `gateway_answer_as_of_age_seconds_${suffix},`
      : `gateway_answer_as_of_age_seconds_${suffix}{`;
    const line = (await registry.metrics())
      .split("\n")
      .find((entry) => entry.startsWith(name) && entry.includes('route="/data/v1/things/:name/latest"'));
    return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1));
  }

  it("observes now minus the as_of block's time for every answer sent, from the backend or from memory", async () => {
    const [count, sum, within60] = [
      await ageSample("count"),
      await ageSample("sum"),
      await ageSample('bucket{le="60"'),
    ];
    backend.asOfTimestamp = new Date(Date.now() - 30_000).toISOString();
    expect((await get("/data/v1/things/a/latest")).status).toBe(200);
    expect(await ageSample("count")).toBe(count + 1);
    expect(await ageSample("sum")).toBeGreaterThanOrEqual(sum + 30);
    expect(await ageSample("sum")).toBeLessThan(sum + 40);
    expect(await ageSample('bucket{le="60"')).toBe(within60 + 1);

    // Kept (its next block is not due yet) and sent again from memory: observed again, without a backend call.
    backend.asOfTimestamp = new Date(Date.now() - 2_000).toISOString();
    const within10 = await ageSample('bucket{le="10"');
    const first = await get("/data/v1/things/b/latest");
    const again = await get("/data/v1/things/b/latest", { "if-none-match": first.headers.get("etag")! });
    expect(again.status).toBe(304);
    expect(backend.calls).toBe(2);
    expect(await ageSample("count")).toBe(count + 3);
    expect(await ageSample('bucket{le="10"')).toBe(within10 + 2);

    // A chain clock ahead of this one (a chopsticks devnet) reads as fresh, never as a negative age.
    const within1 = await ageSample('bucket{le="1"');
    backend.asOfTimestamp = new Date(Date.now() + 20_000).toISOString();
    await get("/data/v1/things/c/latest");
    expect(await ageSample('bucket{le="1"')).toBe(within1 + 1);
    expect(await ageSample("count")).toBe(count + 4);

    // An error carries no as_of: nothing observed.
    await get("/data/v1/things/missing/latest");
    expect(await ageSample("count")).toBe(count + 4);
  });
});
