import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { defineRoute } from "@platform/http";
import { createLogger } from "@platform/log";
import { createMetricsRegistry } from "@platform/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAccessLog } from "./accessLog.js";
import { createApiFastPath } from "./apiFastPath.js";
import { createConditionalReads } from "./conditional/conditionalReads.js";
import { conditionalRead } from "./conditional/conditionalRoute.js";
import { createRouteTable } from "./routeTable.js";
import { NO_TRUSTED_PROXIES } from "./trustedProxies.js";

// The fast path alone, on a bare node server: what it takes it answers without express; what it
// does not take is left untouched (app.test.ts checks that both paths answer alike).
const route = (method: "get" | "post", path: string, name: string) =>
  defineRoute({
    method,
    path,
    operationId: name,
    params: z.record(z.string(), z.string()),
    docs: {
      summary: name,
      tags: ["test"],
      success: { status: 200, description: name, contentType: "application/json" },
    },
    async handle({ params }) {
      return { status: 200, body: { route: name, params } };
    },
  });
const routes = [
  conditionalRead(
    route("get", "/data/v1/coin/latest", "coin"),
    { dependsOn: () => ["market"] },
    { cacheControl: "until the next block", notModified: "still current" },
  ),
  defineRoute({
    method: "get",
    path: "/data/v1/strict/:id",
    operationId: "strict",
    params: z.object({ id: z.string().max(8) }),
    docs: {
      summary: "strict",
      tags: ["test"],
      success: { status: 200, description: "strict", contentType: "application/json" },
    },
    async handle() {
      return { status: 200, body: {} };
    },
  }),
  route("get", "/data/v1/subnets/latest", "subnets"),
  route("get", "/data/v1/subnets/:netuid/validators/latest", "validators"),
  route("get", "/data/v1/subnets/:netuid/:view/latest", "view"),
  route("post", "/intents/v1/quotes", "quote"),
];

describe("route table", () => {
  const find = createRouteTable(routes, "get");

  it("matches templates like express: literals without regard to case, one trailing slash, parameters decoded, the first route that fits", () => {
    expect(find("/data/v1/subnets/latest")).toMatchObject({ route: { operationId: "subnets" }, params: {} });
    expect(find("/Data/V1/SUBNETS/latest/")).toMatchObject({ route: { operationId: "subnets" } });
    expect(find("/data/v1/subnets/7/validators/latest")).toMatchObject({
      route: { operationId: "validators" },
      params: { netuid: "7" },
    });
    expect(find("/data/v1/subnets/7/holders/latest")).toMatchObject({
      route: { operationId: "view" },
      params: { netuid: "7", view: "holders" },
    });
    expect(find("/data/v1/subnets/a%2Fb%20c/validators/latest")).toMatchObject({ params: { netuid: "a/b c" } });
  });

  it("keeps the case of parameters, and takes a parameter of any length to its route (which judges its shape)", () => {
    expect(find("/DATA/v1/subnets/5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty/Holders/latest")).toMatchObject({
      route: { operationId: "view" },
      params: { netuid: "5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty", view: "Holders" },
    });
    const long = "x".repeat(300);
    expect(find(`/data/v1/subnets/${long}/validators/latest`)).toMatchObject({ params: { netuid: long } });
  });

  it("matches nothing else: other methods' routes, empty or extra segments, relative paths, undecodable parameters", () => {
    for (const path of [
      "/intents/v1/quotes",
      "/data/v1/subnets",
      "/data/v1/subnets/latest//",
      "/data/v1/subnets//validators/latest",
      "/data/v1/subnets/1/validators/latest/x",
      "data/v1/subnets/latest",
      "*",
      "/data/v1/subnets/%E0%A4%A/validators/latest",
    ]) {
      expect(find(path), path).toBeUndefined();
    }
  });
});

describe("API fast path", () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const log = createLogger({ service: "fast-path-test", level: "silent" });
    const fastPath = createApiFastPath({
      routes,
      guard: async () => ({ keyId: "ak", headers: {} }),
      log,
      accessLog: createAccessLog(log, createMetricsRegistry("fast-path-test")),
      publicBaseUrl: "https://api.example",
      trustedProxies: NO_TRUSTED_PROXIES,
      conditional: createConditionalReads({ blockSeconds: 12, registry: createMetricsRegistry("fast-path-reads") }),
    });
    // What the fast path leaves alone is answered 599, so a test sees who answered.
    server = createServer((request, response) => {
      if (fastPath(request, response)) return;
      response.statusCode = 599;
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("answers the GET and HEAD routes itself", async () => {
    const answer = await fetch(`${base}/data/v1/subnets/3/validators/latest`);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ route: "validators", params: { netuid: "3" } });
    expect((await fetch(`${base}/data/v1/subnets/latest`, { method: "HEAD" })).status).toBe(200);
    // A query parameter the route does not list is refused here too, as on every route.
    const unknown = await fetch(`${base}/data/v1/subnets/3/validators/latest?x=1`);
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ code: "UNKNOWN_PARAMETER", errors: [{ pointer: "/query/x" }] });
  });

  it("marks every answer it gives nosniff: 200, 304 and problems, so no browser runs one as something else", async () => {
    const answers = [
      await fetch(`${base}/data/v1/subnets/3/validators/latest`),
      await fetch(`${base}/data/v1/subnets/latest`, { method: "HEAD" }),
      await fetch(`${base}/data/v1/coin/latest`, { headers: { "if-none-match": "*" } }),
      await fetch(`${base}/data/v1/strict/${"x".repeat(20)}`),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 304, 400]);
    for (const answer of answers) expect(answer.headers.get("x-content-type-options"), answer.url).toBe("nosniff");
  });

  it("answers `If-None-Match: *` on a GET 304 whenever the resource exists (RFC 9110 §13.1.2), with or without ETags, and never a 5xx", async () => {
    for (const path of ["/data/v1/subnets/latest", "/data/v1/coin/latest"]) {
      const any = await fetch(`${base}${path}`, { headers: { "if-none-match": "*" } });
      expect([path, any.status, await any.text()]).toEqual([path, 304, ""]);
      const head = await fetch(`${base}${path}`, { method: "HEAD", headers: { "if-none-match": "*" } });
      expect([path, head.status]).toEqual([path, 304]);
      // A tag that is not current, or a malformed field, leaves the request unconditional.
      for (const field of ['"stale"', "*, *", "W/"])
        expect([path, field, (await fetch(`${base}${path}`, { headers: { "if-none-match": field } })).status]).toEqual([
          path,
          field,
          200,
        ]);
    }
    // No representation: the refusal, as without the field.
    const refused = await fetch(`${base}/data/v1/strict/${"x".repeat(20)}`, { headers: { "if-none-match": "*" } });
    expect(refused.status).toBe(400);
  });

  it("leaves POST routes, other methods and unknown paths to what comes after it", async () => {
    expect((await fetch(`${base}/intents/v1/quotes`, { method: "POST", body: "{}" })).status).toBe(599);
    expect((await fetch(`${base}/data/v1/subnets/latest`, { method: "DELETE" })).status).toBe(599);
    expect((await fetch(`${base}/healthz`)).status).toBe(599);
    expect((await fetch(`${base}/data/v1/subnets/%E0%A4%A/validators/latest`)).status).toBe(599);
  });
});
