import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { status } from "@grpc/grpc-js";
import { notFound, unavailable } from "@platform/errors";
import { defineRoute } from "@platform/http";
import { createLogger } from "@platform/log";
import { createMetricsRegistry, type OpsServer, startOpsServer, watchDependencies } from "@platform/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGatewayApp } from "./app.js";
import { HttpProblem } from "./HttpProblem.js";
import { parseTrustedProxies } from "./http/trustedProxies.js";

// The gateway's HTTP behaviour, in process, with routes defined here: problem+json for every
// failure, 404 and 405, body parsing, and the operations routes. Backends are exercised in test/e2e.
let server: Server;
let base: string;
let ops: OpsServer;
let opsBase: string;
let backendUp = true;
let redisUp = true;

const echoRoute = defineRoute({
  method: "post",
  path: "/intents/v1/echo/:id",
  operationId: "echo",
  scope: "intents:read",
  params: z.object({ id: z.coerce.number().int().positive() }),
  body: z.object({ text: z.string().max(10) }),
  docs: {
    summary: "echo",
    tags: ["test"],
    success: { status: 200, description: "echoed", contentType: "application/json", example: { id: 1, text: "hi" } },
  },
  async handle({ params, body }) {
    if (body.text === "missing") throw notFound("THING_NOT_FOUND", "no such thing", { thingId: params.id });
    if (body.text === "crash") throw new Error("database password hunter2");
    if (body.text === "busy") throw unavailable("GRANTS_EXHAUSTED", "come back later", { retryAfterSeconds: 17 });
    if (body.text === "away") throw unavailable("UNAVAILABLE", "a backend is away");
    return { status: 200, body: { id: params.id, text: body.text } };
  },
});

// A GET route: served by the fast path (http/apiFastPath.ts) rather than express.
const thingRoute = defineRoute({
  method: "get",
  path: "/data/v1/things/:name/latest",
  operationId: "thing",
  scope: "data:read",
  params: z.object({ name: z.string().max(20) }),
  query: z.object({
    size: z.coerce.number().int().positive().optional(),
    tag: z.union([z.string(), z.array(z.string())]).optional(),
  }),
  docs: {
    summary: "thing",
    tags: ["test"],
    success: { status: 200, description: "a thing", contentType: "application/json", example: { name: "a" } },
  },
  async handle({ params, query, context }) {
    if (params.name === "missing") throw notFound("THING_NOT_FOUND", "no such thing", { thingName: params.name });
    if (params.name === "crash") throw new Error("database password hunter2");
    return {
      status: 200,
      headers: { "cache-control": "private, max-age=6" },
      body: {
        name: params.name,
        size: query.size ?? null,
        tag: query.tag ?? null,
        requestId: context.requestId,
        keyId: context.keyId,
        client: context.clientAddress(),
      },
    };
  },
});
const registry = createMetricsRegistry("gateway-test");
const ALLOWED_ORIGIN = "https://app.example";

beforeAll(async () => {
  const readiness = watchDependencies(
    [
      { name: "redis", probe: async () => redisUp },
      { name: "grpc:test", probe: async () => backendUp, required: false },
    ],
    60_000,
  );
  await readiness.refresh();
  const app = createGatewayApp({
    log: createLogger({ service: "gateway-test", level: "silent" }),
    // Token checks have their own tests (access/*.test.ts, test/e2e/src/auth.test.ts); here every caller is admitted.
    guard: async (context) => {
      if (context.header("authorization") === "Bearer spent") {
        throw new HttpProblem({
          code: "RATE_LIMITED",
          grpcStatus: status.RESOURCE_EXHAUSTED,
          detail: "spent",
          headers: { "retry-after": "3", ratelimit: '"default";r=0;t=3' },
        });
      }
      return { keyId: "ak_test", headers: { ratelimit: '"default";r=9;t=1' } };
    },
    registry,
    readiness,
    // The test's own connections come from loopback: here they play the trusted proxy.
    trustedProxies: parseTrustedProxies("127.0.0.0/8"),
    routes: [echoRoute, thingRoute],
    publicBaseUrl: "https://api.example",
    maxBodyBytes: 1024,
    corsOrigins: [ALLOWED_ORIGIN],
  });
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(globalThis, { __readiness: readiness });
  ops = await startOpsServer({ host: "127.0.0.1", port: 0, readiness, registry });
  opsBase = `http://127.0.0.1:${ops.port}`;
});

afterAll(async () => {
  await ops?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const post = (path: string, body: string, contentType = "application/json") =>
  fetch(`${base}${path}`, { method: "POST", headers: { "content-type": contentType }, body });

async function problem(response: Response) {
  expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  return (await response.json()) as Record<string, unknown>;
}

describe("gateway HTTP behaviour: routes and problems", () => {
  it("validates and answers a route", async () => {
    const response = await post("/intents/v1/echo/7", JSON.stringify({ text: "hi" }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: 7, text: "hi" });
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get("ratelimit")).toBe('"default";r=9;t=1');
  });

  it("names a bad path parameter and a bad body field", async () => {
    const badPath = await problem(await post("/intents/v1/echo/abc", JSON.stringify({ text: "hi" })));
    expect(badPath).toMatchObject({
      status: 400,
      code: "INVALID_PARAMETER",
      parameter: "id",
      type: "https://api.example/problems/invalid-parameter",
    });
    const badBody = await problem(await post("/intents/v1/echo/1", JSON.stringify({ text: 5 })));
    expect(badBody).toMatchObject({ status: 400, code: "INVALID_REQUEST", parameter: "text" });
    // Path, query and body mistakes together: one answer lists them all.
    const all = await problem(await post("/intents/v1/echo/abc?x=1", JSON.stringify({ text: 5 })));
    expect(all).toMatchObject({ status: 400, code: "INVALID_PARAMETER", parameter: "id" });
    expect((all.errors as Array<{ pointer: string }>).map((error) => error.pointer)).toEqual([
      "/path/id",
      "/query/x",
      "/text",
    ]);
  });

  it("says when to come back on every 503: the service's own delay, else 2 s", async () => {
    const busy = await post("/intents/v1/echo/1", JSON.stringify({ text: "busy" }));
    expect([busy.status, busy.headers.get("retry-after")]).toEqual([503, "17"]);
    expect(await problem(busy)).toMatchObject({ code: "GRANTS_EXHAUSTED", retryAfterSeconds: 17 });
    const away = await post("/intents/v1/echo/1", JSON.stringify({ text: "away" }));
    expect([away.status, away.headers.get("retry-after")]).toEqual([503, "2"]);
  });

  it("answers 400 for a body that is not JSON or not declared as JSON", async () => {
    expect(await problem(await post("/intents/v1/echo/1", "{not json"))).toMatchObject({
      status: 400,
      code: "INVALID_REQUEST",
    });
    expect(
      await problem(await post("/intents/v1/echo/1", "text=hi", "application/x-www-form-urlencoded")),
    ).toMatchObject({ status: 400, code: "INVALID_REQUEST" });
  });

  it("answers 413 for a body over the limit", async () => {
    expect(await problem(await post("/intents/v1/echo/1", JSON.stringify({ text: "x".repeat(5_000) })))).toMatchObject({
      status: 413,
    });
  });

  it("keeps a service error's code and extension members", async () => {
    const body = await problem(await post("/intents/v1/echo/9", JSON.stringify({ text: "missing" })));
    expect(body).toEqual({
      type: "https://api.example/problems/thing-not-found",
      title: "Not Found",
      status: 404,
      detail: "no such thing",
      instance: "/intents/v1/echo/9",
      code: "THING_NOT_FOUND",
      thingId: 9,
    });
  });

  it("hides unexpected errors behind a 500 without internals", async () => {
    const response = await post("/intents/v1/echo/1", JSON.stringify({ text: "crash" }));
    expect(response.status).toBe(500);
    expect(JSON.stringify(await problem(response))).not.toContain("hunter2");
  });

  it("tells browsers not to sniff any answer's type: routes, errors and unknown paths", async () => {
    const answers = [
      await post("/intents/v1/echo/7", JSON.stringify({ text: "hi" })),
      await post("/intents/v1/echo/1", "{not json"),
      await fetch(`${base}/nowhere`),
    ];
    expect(answers.map((answer) => answer.headers.get("x-content-type-options"))).toEqual([
      "nosniff",
      "nosniff",
      "nosniff",
    ]);
  });

  it("answers a request line and headers over node's limit with a documented 431 problem, not node's bare one", async () => {
    const response = await fetch(`${base}/intents/v1/echo/1?x=${"1,".repeat(10_000)}`);
    expect(response.status).toBe(431);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await problem(response)).toMatchObject({
      status: 431,
      code: "REQUEST_HEADERS_TOO_LARGE",
      title: "Request headers too large",
    });
    // The server keeps serving.
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });

  it("answers 404 for unknown paths and 405 with Allow for a known path", async () => {
    expect(await problem(await fetch(`${base}/nowhere`))).toMatchObject({ status: 404, code: "NOT_FOUND" });
    const wrongMethod = await fetch(`${base}/intents/v1/echo/1`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST");
    expect(await problem(wrongMethod)).toMatchObject({ code: "METHOD_NOT_ALLOWED" });
  });
});

describe("gateway HTTP behaviour: operations routes", () => {
  it("serves health, readiness (only the status publicly; each backend listed on the ops port), and the OpenAPI document", async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready" });
    expect(await (await fetch(`${opsBase}/readyz`)).json()).toMatchObject({
      status: "ready",
      checks: { "grpc:test": { ok: true } },
    });

    // A backend down is listed on the ops port, and the gateway stays ready: only that backend's routes fail.
    const refresh = () =>
      (globalThis as unknown as { __readiness: { refresh(): Promise<unknown> } }).__readiness.refresh();
    backendUp = false;
    await refresh();
    const backendDown = await fetch(`${base}/readyz`);
    expect(backendDown.status).toBe(200);
    expect(await backendDown.json()).toEqual({ status: "ready" });
    expect(await (await fetch(`${opsBase}/readyz`)).json()).toMatchObject({
      status: "ready",
      checks: { "grpc:test": { ok: false, required: false }, redis: { ok: true } },
    });
    // Redis down: no protected route can be served, so the gateway is not ready.
    redisUp = false;
    await refresh();
    const notReady = await fetch(`${base}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({ status: "not_ready" });
    const opsNotReady = await fetch(`${opsBase}/readyz`);
    expect(opsNotReady.status).toBe(503);
    expect(await opsNotReady.json()).toMatchObject({
      status: "not_ready",
      checks: { redis: { ok: false, required: true } },
    });
    redisUp = true;
    backendUp = true;
    await refresh();

    // Metrics are for Prometheus on the ops port, not for the public.
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
    expect(await (await fetch(`${opsBase}/metrics`)).text()).toMatch(/^# HELP /m);

    const openapi = (await (await fetch(`${base}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { parameters: unknown[]; security: unknown }>>;
    };
    const operation = openapi.paths["/intents/v1/echo/{id}"]!.post!;
    expect(operation.security).toEqual([{ bearerAuth: ["intents:read"] }]);
    expect(operation.parameters).toEqual([
      { name: "id", in: "path", required: true, schema: expect.objectContaining({ type: "integer" }) },
    ]);
  });
});

describe("gateway HTTP behaviour: GET routes (served before express)", () => {
  it("validate and answer like express did: path parameters decoded, repeated query keys as lists, guard headers and the request id on the answer", async () => {
    const response = await fetch(`${base}/data/v1/things/a%20b/latest?size=3&tag=x&tag=y`, {
      headers: { "x-request-id": "req-42", "x-forwarded-for": "203.0.113.7, 198.51.100.1" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("private, max-age=6");
    expect(response.headers.get("ratelimit")).toBe('"default";r=9;t=1');
    expect(response.headers.get("x-request-id")).toBe("req-42");
    // From a trusted proxy: the client is the rightmost entry outside the trusted ranges.
    expect(await response.json()).toEqual({
      name: "a b",
      size: 3,
      tag: ["x", "y"],
      requestId: "req-42",
      keyId: "ak_test",
      client: "198.51.100.1",
    });
  });

  it("match literal segments without regard to case and allow one trailing slash, as express routes do; answer HEAD without a body", async () => {
    expect((await fetch(`${base}/DATA/v1/Things/a/latest/`)).status).toBe(200);
    expect((await fetch(`${base}/data/v1/things/a/latest//`)).status).toBe(404);
    expect((await fetch(`${base}/data/v1/things//latest`)).status).toBe(404);
    const head = await fetch(`${base}/data/v1/things/a/latest`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get("content-length"))).toBeGreaterThan(0);
    expect(await head.text()).toBe("");
  });

  it("answer every failure as problem+json: bad parameters, guard refusals with their headers, service errors, crashes, undecodable paths", async () => {
    expect(await problem(await fetch(`${base}/data/v1/things/${"x".repeat(30)}/latest`))).toMatchObject({
      status: 400,
      code: "INVALID_PARAMETER",
      parameter: "name",
    });
    expect(await problem(await fetch(`${base}/data/v1/things/a/latest?size=-1`))).toMatchObject({
      status: 400,
      code: "INVALID_PARAMETER",
      parameter: "size",
    });
    const limited = await fetch(`${base}/data/v1/things/a/latest`, { headers: { authorization: "Bearer spent" } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("3");
    expect(await problem(limited)).toMatchObject({ code: "RATE_LIMITED", instance: "/data/v1/things/a/latest" });
    expect(await problem(await fetch(`${base}/data/v1/things/missing/latest?size=1`))).toEqual({
      type: "https://api.example/problems/thing-not-found",
      title: "Not Found",
      status: 404,
      detail: "no such thing",
      instance: "/data/v1/things/missing/latest",
      code: "THING_NOT_FOUND",
      thingName: "missing",
    });
    const crash = await fetch(`${base}/data/v1/things/crash/latest`);
    expect(crash.status).toBe(500);
    expect(JSON.stringify(await problem(crash))).not.toContain("hunter2");
    expect(await problem(await fetch(`${base}/data/v1/things/%E0%A4%A/latest`))).toMatchObject({
      status: 400,
      code: "INVALID_REQUEST",
    });
  });

  it("leave other methods to express: 405 with Allow", async () => {
    const wrongMethod = await fetch(`${base}/data/v1/things/a/latest`, { method: "POST" });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("GET, HEAD");
  });

  it("count and time every request by its route template", async () => {
    await fetch(`${base}/data/v1/things/counted/latest`);
    const durations = await registry.getSingleMetric("http_request_duration_seconds")!.get();
    const count = durations.values.find(
      (value) =>
        (value as { metricName?: string }).metricName === "http_request_duration_seconds_count" &&
        value.labels.route === "/data/v1/things/:name/latest" &&
        value.labels.status === "200",
    );
    expect(count?.value).toBeGreaterThan(0);
  });
});

describe("gateway HTTP behaviour: browsers on other origins (CORS)", () => {
  const preflight = (path: string, origin: string) =>
    fetch(`${base}${path}`, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization, if-none-match",
      },
    });

  it("answers an allowed origin's preflight with 204, the methods, headers and a max-age", async () => {
    const response = await preflight("/data/v1/things/a/latest", ALLOWED_ORIGIN);
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe(ALLOWED_ORIGIN);
    expect(response.headers.get("access-control-allow-methods")).toBe("GET, HEAD, POST");
    expect(response.headers.get("access-control-allow-headers")).toContain("authorization");
    expect(response.headers.get("access-control-allow-headers")).toContain("if-none-match");
    // The client library's event streams send it (libs/client events.ts).
    expect(response.headers.get("access-control-allow-headers")).toContain("cache-control");
    expect(response.headers.get("access-control-max-age")).toBe("600");
    expect(response.headers.get("vary")).toBe("Origin");
  });

  it("lets an allowed origin read answers of both paths, with the rate-limit, ETag and request-id headers exposed", async () => {
    for (const response of [
      await fetch(`${base}/data/v1/things/a/latest`, { headers: { origin: ALLOWED_ORIGIN } }),
      await fetch(`${base}/intents/v1/echo/7`, {
        method: "POST",
        headers: { origin: ALLOWED_ORIGIN, "content-type": "application/json" },
        body: JSON.stringify({ text: "hi" }),
      }),
      await fetch(`${base}/data/v1/things/missing/latest`, { headers: { origin: ALLOWED_ORIGIN } }),
    ]) {
      expect(response.headers.get("access-control-allow-origin"), response.url).toBe(ALLOWED_ORIGIN);
      expect(response.headers.get("vary")).toBe("Origin");
      const exposed = response.headers.get("access-control-expose-headers")!.split(", ");
      expect(exposed).toEqual(
        expect.arrayContaining(["ratelimit", "ratelimit-policy", "retry-after", "etag", "x-request-id"]),
      );
    }
  });

  it("refuses another origin's preflight with a 403 problem and never names it allowed", async () => {
    const response = await preflight("/data/v1/things/a/latest", "https://evil.example");
    expect(response.status).toBe(403);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    // A code of its own: FORBIDDEN is a key's missing scope.
    expect(await problem(response)).toMatchObject({
      status: 403,
      code: "ORIGIN_NOT_ALLOWED",
      title: "Origin not allowed",
      type: "https://api.example/problems/origin-not-allowed",
    });
    const read = await fetch(`${base}/data/v1/things/a/latest`, { headers: { origin: "https://evil.example" } });
    expect(read.status).toBe(200);
    expect(read.headers.get("access-control-allow-origin")).toBeNull();
    expect(read.headers.get("vary")).toBe("Origin");
  });

  it("adds no CORS header to a request without Origin, and leaves a plain OPTIONS to the 405", async () => {
    const read = await fetch(`${base}/data/v1/things/a/latest`);
    expect(read.headers.get("access-control-allow-origin")).toBeNull();
    expect(read.headers.get("vary")).toBeNull();
    const options = await fetch(`${base}/data/v1/things/a/latest`, { method: "OPTIONS" });
    expect(options.status).toBe(405);
  });
});
