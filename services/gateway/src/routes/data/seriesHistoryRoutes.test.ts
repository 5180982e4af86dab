import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServerUnaryCall } from "@grpc/grpc-js";
import { loadConfig } from "@platform/config";
import { invalidArgument, notFound } from "@platform/errors";
import { type RunningGrpcServer, startGrpcServer, unaryHandler } from "@platform/grpc";
import { createLogger } from "@platform/log";
import { Interval, SortOrder } from "@platform/proto/common/v1/common";
import { MarketServiceService } from "@platform/proto/data/v1/market";
import { SubnetsServiceService } from "@platform/proto/data/v1/subnets";
import { createMetricsRegistry, watchDependencies } from "@platform/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGatewayApp } from "../../app.js";
import { type Backends, connectBackends } from "../../backends.js";
import { gatewayConfigSchema } from "../../config.js";
import { unservedEventStreams } from "../events/eventStreams.js";
import { apiRoutes } from "../index.js";
import {
  EXAMPLE_CURSOR,
  emissionsHistoryExample,
  networkStatsHistoryExample,
  priceLatestExample,
  subnetsHistoryExample,
} from "./examples.js";

/*
 * The three snapshot histories (network/stats/history, subnet-emissions/history,
 * subnets/history) through the real gateway app, against an in-process gRPC backend serving the
 * examples: what the backend is asked, the HAL page and its links, every edge refusal, and the
 * backend's problems relayed.
 */

const log = createLogger({ service: "gateway-history-test", level: "silent" });
const UNKNOWN_NETUID = 999;
const OLDEST = "2020-01-01T00:00:00.000Z";
const seen = new Map<string, unknown>();
let backendServer: RunningGrpcServer;
let backends: Backends;
let server: Server;
let base: string;

function handler<Req extends { netuid?: number; window?: { start?: string } }, Res>(name: string, answer: Res) {
  return unaryHandler(log, name, async (request: Req, _call: ServerUnaryCall<Req, Res>) => {
    seen.set(name, request);
    if (request.netuid === UNKNOWN_NETUID)
      throw notFound("NETUID_NOT_FOUND", `no subnet ${UNKNOWN_NETUID}`, { netuid: UNKNOWN_NETUID });
    if (request.window?.start !== undefined && request.window.start < OLDEST)
      throw invalidArgument("WINDOW_TOO_LARGE", "the window is too long", { parameter: "start" });
    return answer;
  });
}

beforeAll(async () => {
  backendServer = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    services: [
      {
        name: "platform.data.v1.MarketService",
        definition: MarketServiceService,
        implementation: {
          getPriceLatest: handler("getPriceLatest", priceLatestExample),
          getNetworkStatsHistory: handler("getNetworkStatsHistory", networkStatsHistoryExample),
          getSubnetEmissionsHistory: handler("getSubnetEmissionsHistory", emissionsHistoryExample),
        },
      },
      {
        name: "platform.data.v1.SubnetsService",
        definition: SubnetsServiceService,
        implementation: { getSubnetsHistory: handler("getSubnetsHistory", subnetsHistoryExample) },
      },
    ],
  });
  backendServer.setServing(true);
  const target = `127.0.0.1:${backendServer.port}`;
  backends = connectBackends(
    loadConfig(gatewayConfigSchema, {
      REDIS_URL: "redis://127.0.0.1:1",
      AUTH_GRPC_TARGET: "127.0.0.1:1",
      TC_GRPC_TARGET: "127.0.0.1:1",
      INTENTS_GRPC_TARGET: "127.0.0.1:1",
      DATA_ACCOUNTS_GRPC_TARGET: target,
      DATA_MARKET_GRPC_TARGET: target,
      DATA_SUBNETS_GRPC_TARGET: target,
    }),
  );
  const app = createGatewayApp({
    log,
    guard: async () => ({ keyId: "ak_history", headers: {} }),
    registry: createMetricsRegistry("gateway-history-test"),
    readiness: watchDependencies([], 60_000),
    routes: apiRoutes(backends, unservedEventStreams(log)),
    publicBaseUrl: "https://api.example",
    maxBodyBytes: 1024,
  });
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  backends.close();
  await backendServer.shutdown(1_000);
});

async function answer(path: string, status: number) {
  const response = await fetch(`${base}${path}`);
  // biome-ignore lint/suspicious/noExplicitAny: an answer body read by the assertions
  const body = (await response.json()) as Record<string, any>;
  expect(response.status, `${path}: ${JSON.stringify(body)}`).toBe(status);
  return { response, body };
}

describe("snapshot history routes: answers", () => {
  it("network/stats/history asks with the window, page and order and renders the points with their links", async () => {
    const { response, body } = await answer("/data/v1/network/stats/history?start=1787184000&interval=1h", 200);
    expect(response.headers.get("content-type")).toMatch(/^application\/hal\+json/);
    expect(response.headers.get("etag")).toMatch(/^"/);
    expect(seen.get("getNetworkStatsHistory")).toEqual({
      window: { start: "2026-08-20T00:00:00.000Z", interval: Interval.INTERVAL_ONE_HOUR },
      page: { limit: 500, cursor: "" },
      order: SortOrder.SORT_ORDER_UNSPECIFIED,
    });
    expect(body._links).toEqual({
      self: { href: "/data/v1/network/stats/history?start=2026-08-20T00%3A00%3A00.000Z&interval=1h" },
      next: {
        href: `/data/v1/network/stats/history?start=2026-08-20T00%3A00%3A00.000Z&interval=1h&cursor=${EXAMPLE_CURSOR}`,
      },
      latest: { href: "/data/v1/network/stats/latest" },
    });
    expect(body).toMatchObject({ as_of: { block_number: 7012345 }, interval: "1h", page: { has_more: true } });
    const [point] = body._embedded.items;
    expect(point).toMatchObject({
      bucket_start: "2026-08-20T11:00:00.000Z",
      block_number: 7012044,
      timestamp: "2026-08-20T11:59:48.000Z",
      total_stake_rao: expect.any(String),
      registration: { neuron_burn: null },
    });
    expect(point).not.toHaveProperty("volume");
    expect(point).not.toHaveProperty("_links");
  });

  it("subnet-emissions/history and subnets/history pass the subnet, order and limit, and link to its latest views", async () => {
    const emissions = await answer("/data/v1/subnet-emissions/history?netuid=64&interval=5m&order=desc&limit=10", 200);
    expect(seen.get("getSubnetEmissionsHistory")).toMatchObject({
      netuid: 64,
      window: { interval: Interval.INTERVAL_FIVE_MINUTES },
      page: { limit: 10, cursor: "" },
      order: SortOrder.SORT_ORDER_DESC,
    });
    expect(emissions.body._links.latest).toEqual({ href: "/data/v1/subnet-emissions/latest?netuid=64" });
    expect(emissions.body._links.self.href).toBe(
      "/data/v1/subnet-emissions/history?netuid=64&interval=5m&order=desc&limit=10",
    );
    expect(emissions.body.netuid).toBe(64);
    expect(emissions.body._embedded.items[0]).toMatchObject({
      netuid: 64,
      block_number: 7012044,
      tao_in_emission_rao: "73100000",
    });
    expect(emissions.body._embedded.items[0]).not.toHaveProperty("name");

    const subnets = await answer(`/data/v1/subnets/history?netuid=64&interval=1d&cursor=${EXAMPLE_CURSOR}`, 200);
    expect(seen.get("getSubnetsHistory")).toMatchObject({ netuid: 64, page: { limit: 500, cursor: EXAMPLE_CURSOR } });
    expect(subnets.body._links).toMatchObject({
      latest: { href: "/data/v1/subnets/latest?netuid=64" },
      "emissions-history": { href: "/data/v1/subnet-emissions/history?netuid=64" },
    });
    const [point] = subnets.body._embedded.items;
    expect(point).toMatchObject({
      netuid: 64,
      name: "Chutes",
      block_number: 7005120,
      bucket_start: "2026-08-20T00:00:00.000Z",
    });
    for (const derived of ["validators_with_permit", "active_uids", "last_epoch_block", "_embedded", "_links"])
      expect(point).not.toHaveProperty(derived);
  });

  it("are documented with their parameters, error codes and an example", async () => {
    const { body } = await answer("/openapi.json", 200);
    for (const path of [
      "/data/v1/network/stats/history",
      "/data/v1/subnet-emissions/history",
      "/data/v1/subnets/history",
    ]) {
      const operation = body.paths[path].get;
      const names = operation.parameters.map((parameter: { name: string }) => parameter.name);
      expect(names).toEqual(expect.arrayContaining(["start", "end", "interval", "limit", "cursor", "order"]));
      expect(names).not.toContain("block_start");
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["200", "400"]));
      expect(operation.responses["200"].content["application/hal+json"].example._links.self.href).toMatch(
        /^\/data\/v1\//,
      );
    }
    const netuid = body.paths["/data/v1/subnets/history"].get.parameters.find(
      (p: { name: string }) => p.name === "netuid",
    );
    expect(netuid.required).toBe(true);
  });
});

describe("coin/price/latest?at=", () => {
  it("asks for the price at that time (unix seconds read as RFC 3339) and keeps it in self, not in the history link", async () => {
    const { body } = await answer("/data/v1/coin/price/latest?at=1787184000", 200);
    expect(seen.get("getPriceLatest")).toEqual({ vs: "usd", at: "2026-08-20T00:00:00.000Z" });
    expect(body._links.self).toEqual({ href: "/data/v1/coin/price/latest?at=2026-08-20T00%3A00%3A00.000Z" });
    expect(body._links.history).toEqual({ href: "/data/v1/coin/price/history" });
    await answer("/data/v1/coin/price/latest", 200);
    expect(seen.get("getPriceLatest")).toEqual({ vs: "usd" });
    const refused = await answer("/data/v1/coin/price/latest?at=yesterday", 400);
    expect(refused.body).toMatchObject({ code: "INVALID_PARAMETER", parameter: "at" });
  });

  it("is documented as a time on the price's own chain", async () => {
    const { body } = await answer("/openapi.json", 200);
    const operation = body.paths["/data/v1/coin/price/latest"].get;
    const at = operation.parameters.find((parameter: { name: string }) => parameter.name === "at");
    expect(at.required).toBe(false);
    expect(operation.description).toMatch(/own oracle chain/);
  });
});

describe("snapshot history routes: refusals", () => {
  const cases: [string, string, string][] = [
    ["/data/v1/subnet-emissions/history", "INVALID_PARAMETER", "netuid"],
    ["/data/v1/subnets/history", "INVALID_PARAMETER", "netuid"],
    ["/data/v1/subnets/history?netuid=65536", "INVALID_PARAMETER", "netuid"],
    ["/data/v1/subnets/history?netuid=1,2", "INVALID_PARAMETER", "netuid"],
    ["/data/v1/network/stats/history?interval=block", "INVALID_PARAMETER", "interval"],
    ["/data/v1/network/stats/history?interval=4h", "INVALID_PARAMETER", "interval"],
    ["/data/v1/network/stats/history?start=yesterday", "INVALID_PARAMETER", "start"],
    ["/data/v1/network/stats/history?start=2026-08-20T00:00:00Z&end=2026-08-19T00:00:00Z", "INVALID_PARAMETER", "end"],
    ["/data/v1/network/stats/history?limit=2001", "INVALID_PARAMETER", "limit"],
    ["/data/v1/network/stats/history?order=up", "INVALID_PARAMETER", "order"],
    ["/data/v1/network/stats/history?cursor=not%20a%20cursor", "INVALID_CURSOR", "cursor"],
  ];
  it.each(cases)("%s → 400 %s naming %s, without calling a backend", async (path, code, parameter) => {
    seen.clear();
    const { body } = await answer(path, 400);
    expect(body).toMatchObject({ status: 400, code, parameter });
    expect(seen.size).toBe(0);
  });

  it("relay the backend's NETUID_NOT_FOUND and WINDOW_TOO_LARGE", async () => {
    for (const path of ["subnet-emissions", "subnets"]) {
      const { body } = await answer(`/data/v1/${path}/history?netuid=${UNKNOWN_NETUID}`, 404);
      expect(body).toMatchObject({ code: "NETUID_NOT_FOUND", netuid: UNKNOWN_NETUID });
    }
    const { body } = await answer("/data/v1/network/stats/history?start=2019-01-01T00:00:00Z&interval=1d", 400);
    expect(body).toMatchObject({ code: "WINDOW_TOO_LARGE", parameter: "start" });
  });
});
