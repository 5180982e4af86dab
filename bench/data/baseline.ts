// The baseline of bench/data: a bare express app (the gateway's express version) with one handler
// per measured route. Each handler calls data-query's own read-model function for the route (the
// same Redis reads, in the same order; the subnets group's through data-query's own answer cache,
// as data-query serves them) and renders the answer with the gateway's own HAL renderer, so both
// sides send the same bytes; what the baseline leaves out is exactly the gateway's share:
// no token check, no rate limit, no input validation, no access log, no gRPC hop.
// Like the gateway, every 200 carries the strong ETag of its text (the gateway's own entityTagOf:
// SHA-1, base64url) and Cache-Control until the next block, and an If-None-Match naming it is
// answered 304 without a body (computed after the read, as the gateway does without its cache).
// BASELINE_HTTP=node serves the same handlers from node's HTTP server without express (as the
// gateway serves its GET routes), for a second reference (run.ts, BENCH_NODE_BASELINE=1).
// Started as its own process by run.ts (REDIS_URL, HTTP_PORT); never part of a deployment.

import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import { AppError } from "@platform/errors";
import { connectHistory, type HistoryDb } from "@platform/history";
import { HAL_CONTENT_TYPE, sendJsonText } from "@platform/http";
import { createLogger } from "@platform/log";
import type { BlockSelector } from "@platform/proto/common/v1/common";
import { GetBalanceLatestRequest, ListTransactionsRequest } from "@platform/proto/data/v1/accounts";
import {
  GetNetworkStatsHistoryRequest,
  GetNetworkStatsLatestRequest,
  GetPriceHistoryRequest,
  GetPriceLatestRequest,
  GetSubnetEmissionsHistoryRequest,
  GetSubnetEmissionsLatestRequest,
  GetSubnetPoolsHistoryRequest,
  GetSubnetPoolsLatestRequest,
} from "@platform/proto/data/v1/market";
import {
  GetHoldersTopRequest,
  GetSubnetsHistoryRequest,
  GetSubnetsLatestRequest,
  GetValidatorsLatestRequest,
} from "@platform/proto/data/v1/subnets";
import { coalesceWrites, createRedis } from "@platform/store";
import express, { type Request, type Response } from "express";
import { getBalanceLatest } from "../../services/data-query/src/accounts/balanceLatest.js";
import { listTransactions } from "../../services/data-query/src/accounts/transactions.js";
import { getSubnetEmissionsLatest } from "../../services/data-query/src/market/emissions.js";
import { getSubnetEmissionsHistory } from "../../services/data-query/src/market/emissionsHistory.js";
import { getSubnetPoolsHistory } from "../../services/data-query/src/market/poolHistory.js";
import { getSubnetPoolsLatest } from "../../services/data-query/src/market/pools.js";
import { getPriceHistory, getPriceLatest } from "../../services/data-query/src/market/price.js";
import { getNetworkStatsLatest } from "../../services/data-query/src/market/stats.js";
import { getNetworkStatsHistory } from "../../services/data-query/src/market/statsHistory.js";
import { subnetsReads } from "../../services/data-query/src/subnets/index.js";
import { entityTagOf, matchesTag, parseIfNoneMatch } from "../../services/gateway/src/http/conditional/entityTags.js";
import {
  asOfTimestampOf,
  cacheControlOf,
  secondsUntilNextBlock,
} from "../../services/gateway/src/http/conditional/freshness.js";
import {
  renderBalanceLatest,
  renderTransactions,
} from "../../services/gateway/src/routes/data/accounts/renderAccounts.js";
import {
  renderEmissionsHistory,
  renderEmissionsLatest,
  renderNetworkStats,
  renderNetworkStatsHistory,
  renderPoolsHistory,
  renderPoolsLatest,
  renderPriceHistory,
  renderPriceLatest,
} from "../../services/gateway/src/routes/data/market/renderMarket.js";
import { type BlockWanted, blockSelectorOf } from "../../services/gateway/src/routes/data/shared/schemas.js";
import {
  renderHoldersTop,
  renderSubnetsHistory,
  renderSubnetsLatest,
  renderValidatorsLatest,
} from "../../services/gateway/src/routes/data/subnets/renderSubnets.js";

const log = createLogger({ service: "bench-data-baseline", level: process.env.LOG_LEVEL ?? "warn" });
const redisUrl = process.env.REDIS_URL;
// REDIS_NODES (with REDIS_USERNAME/REDIS_PASSWORD): the read models on a Redis Cluster, read from
// replicas as data-query reads them there (the stack's redisCluster).
const redisNodes = process.env.REDIS_NODES;
const port = Number(process.env.HTTP_PORT);
if ((redisUrl === undefined && redisNodes === undefined) || !Number.isInteger(port) || port <= 0)
  throw new Error("REDIS_URL (or REDIS_NODES) and HTTP_PORT are required");
// The client data-query makes (libs/service redisDependency): same options, one connection, and
// the same write coalescing (data-query's main.ts).
const redis =
  redisNodes === undefined
    ? createRedis({ url: redisUrl, connectionName: "bench-data-baseline" })
    : createRedis({
        mode: "cluster",
        nodes: redisNodes.split(","),
        readFrom: "replicas",
        username: process.env.REDIS_USERNAME,
        password: process.env.REDIS_PASSWORD,
        connectionName: "bench-data-baseline",
      });
coalesceWrites(redis);
// Diagnostics only (BENCH_BASELINE_AUTOPIPELINE=1): what ioredis auto-pipelining would save
// data-query; the baseline then no longer matches data-query's client, so its ratios do not count.
if (process.env.BENCH_BASELINE_AUTOPIPELINE === "1") redis.options.enableAutoPipelining = true;
// The history database as data-query reads it (POSTGRES_URL with data-query's read-only role, its
// pool size): reads at a block older than the newest points Redis keeps, the series histories and
// the transactions page go there, as in data-query (main.ts passes it to every group).
const history: HistoryDb | undefined =
  process.env.POSTGRES_URL === undefined || process.env.POSTGRES_URL === ""
    ? undefined
    : connectHistory({
        url: process.env.POSTGRES_URL,
        username: process.env.POSTGRES_USERNAME,
        password: process.env.POSTGRES_PASSWORD,
        ...(process.env.POSTGRES_POOL_SIZE === undefined ? {} : { max: Number(process.env.POSTGRES_POOL_SIZE) }),
        applicationName: "bench-data-baseline",
      });
// data-query's subnets group: its reads behind its answer cache (64 MiB, data-query's default).
const subnets = subnetsReads({ redis, history, answerCacheMaxBytes: 64 * 1024 * 1024 });

/** The gateway's defaults for a request without query parameters (services/gateway/src/routes/data). */
const TRANSACTIONS_LIMIT = 50;
const POOLS_LIMIT = 256;
const SUBNETS_LIMIT = 256;
const VALIDATORS_LIMIT = 64;
const HOLDERS_LIMIT = 100;
const EMISSIONS_LIMIT = 256;
const HISTORY_LIMIT = 500;

/** `block_number` as the gateway reads it (a block number or `finalized`); undefined without one. */
function blockWanted(text: string | undefined): BlockWanted | undefined {
  if (text === undefined) return undefined;
  return text === "finalized" ? "finalized" : Number(text);
}
const atOf = (query: Record<string, string | undefined>): BlockSelector | undefined =>
  blockSelectorOf(blockWanted(query.block_number));
/**
 * A history route's request and links as the gateway makes them for a query without window, page or
 * order parameters (the route's defaults: 7 days, 1 h buckets, first page, ascending), which is all
 * the bench sends (bench/data/mix.ts).
 */
const HISTORY_WINDOW = { interval: 0 } as const;
const HISTORY_PAGE = { limit: HISTORY_LIMIT, cursor: "" } as const;
const historyView = (query: Record<string, string | number | undefined>) => ({
  query,
  cursor: undefined,
  limit: HISTORY_LIMIT,
});
/** The gateway's DATA_BLOCK_SECONDS default: Cache-Control runs to the next expected block. */
const BLOCK_SECONDS = 12;

/**
 * A route's read and render, from its path parameters and query (only `netuid=<n>` on
 * subnet-pools/latest is read: the bench sends no other parameter).
 */
type Handler = (params: Record<string, string>, query: Record<string, string | undefined>) => Promise<unknown>;

const handlers: Array<[path: string, handler: Handler]> = [
  [
    "/data/v1/accounts/:address/balance/latest",
    async ({ address }, query) =>
      renderBalanceLatest(
        await getBalanceLatest(
          redis,
          GetBalanceLatestRequest.fromPartial({ address: address!, at: atOf(query) }),
          history,
        ),
        { address: address!, query: { block_number: blockWanted(query.block_number) } },
      ),
  ],
  [
    "/data/v1/accounts/:address/transactions",
    async ({ address }) =>
      renderTransactions(
        await listTransactions(
          redis,
          ListTransactionsRequest.fromPartial({
            address: address!,
            window: {},
            page: { limit: TRANSACTIONS_LIMIT, cursor: "" },
          }),
          Date.now(),
          history,
        ),
        { address: address!, query: {}, limit: TRANSACTIONS_LIMIT },
      ),
  ],
  [
    "/data/v1/coin/price/latest",
    async () =>
      renderPriceLatest(await getPriceLatest(redis, GetPriceLatestRequest.fromPartial({ vs: "usd" }), history), {
        query: {},
      }),
  ],
  [
    "/data/v1/subnet-pools/latest",
    async (_params, query) => {
      const netuids = query.netuid === undefined ? [] : query.netuid.split(",").map(Number);
      return renderPoolsLatest(
        await getSubnetPoolsLatest(
          redis,
          GetSubnetPoolsLatestRequest.fromPartial({
            netuids,
            page: { limit: POOLS_LIMIT, cursor: "" },
            at: atOf(query),
          }),
          history,
        ),
        {
          query: {
            netuid: query.netuid === undefined ? undefined : netuids.join(","),
            block_number: blockWanted(query.block_number),
          },
          limit: POOLS_LIMIT,
        },
      );
    },
  ],
  [
    "/data/v1/network/stats/latest",
    async (_params, query) =>
      renderNetworkStats(
        await getNetworkStatsLatest(redis, GetNetworkStatsLatestRequest.fromPartial({ at: atOf(query) }), history),
        { block_number: blockWanted(query.block_number) },
      ),
  ],
  [
    "/data/v1/subnet-emissions/latest",
    async () =>
      renderEmissionsLatest(
        await getSubnetEmissionsLatest(
          redis,
          GetSubnetEmissionsLatestRequest.fromPartial({ page: { limit: EMISSIONS_LIMIT, cursor: "" } }),
          history,
        ),
        { query: {}, limit: EMISSIONS_LIMIT },
      ),
  ],
  [
    "/data/v1/subnets/latest",
    async () =>
      renderSubnetsLatest(
        await subnets.getSubnetsLatest(
          GetSubnetsLatestRequest.fromPartial({ page: { limit: SUBNETS_LIMIT, cursor: "" } }),
        ),
        { query: {}, limit: SUBNETS_LIMIT },
      ),
  ],
  [
    "/data/v1/subnets/:netuid/validators/latest",
    async (params, query) => {
      const netuid = Number(params.netuid);
      const answer = await subnets.getValidatorsLatest(
        GetValidatorsLatestRequest.fromPartial({
          netuid,
          page: { limit: VALIDATORS_LIMIT, cursor: "" },
          at: atOf(query),
        }),
      );
      return renderValidatorsLatest(answer, {
        netuid,
        query: { block_number: blockWanted(query.block_number) },
        limit: VALIDATORS_LIMIT,
      });
    },
  ],
  [
    "/data/v1/subnets/:netuid/holders/top",
    async (params) => {
      const netuid = Number(params.netuid);
      const answer = await subnets.getHoldersTop(
        GetHoldersTopRequest.fromPartial({ netuid, page: { limit: HOLDERS_LIMIT, cursor: "" } }),
      );
      return renderHoldersTop(answer, { netuid, query: {}, limit: HOLDERS_LIMIT });
    },
  ],
  // The history routes, with the route's default window, interval and page (the bench sends only netuid).
  [
    "/data/v1/network/stats/history",
    async () =>
      renderNetworkStatsHistory(
        await getNetworkStatsHistory(
          redis,
          GetNetworkStatsHistoryRequest.fromPartial({ window: HISTORY_WINDOW, page: HISTORY_PAGE }),
          history,
        ),
        historyView({}),
      ),
  ],
  [
    "/data/v1/subnet-emissions/history",
    async (_params, query) => {
      const netuid = Number(query.netuid);
      return renderEmissionsHistory(
        await getSubnetEmissionsHistory(
          redis,
          GetSubnetEmissionsHistoryRequest.fromPartial({ netuid, window: HISTORY_WINDOW, page: HISTORY_PAGE }),
          history,
        ),
        { ...historyView({ netuid }), netuid },
      );
    },
  ],
  [
    "/data/v1/subnets/history",
    async (_params, query) => {
      const netuid = Number(query.netuid);
      return renderSubnetsHistory(
        await subnets.getSubnetsHistory(
          GetSubnetsHistoryRequest.fromPartial({ netuid, window: HISTORY_WINDOW, page: HISTORY_PAGE }),
        ),
        { ...historyView({ netuid }), netuid },
      );
    },
  ],
  [
    "/data/v1/subnet-pools/history",
    async (_params, query) => {
      const netuids = (query.netuid ?? "").split(",").map(Number);
      return renderPoolsHistory(
        await getSubnetPoolsHistory(
          redis,
          GetSubnetPoolsHistoryRequest.fromPartial({ netuids, window: HISTORY_WINDOW, page: HISTORY_PAGE }),
        ),
        historyView({ netuid: netuids.join(",") }),
      );
    },
  ],
  [
    "/data/v1/coin/price/history",
    async () =>
      renderPriceHistory(
        await getPriceHistory(
          redis,
          GetPriceHistoryRequest.fromPartial({ vs: "usd", window: HISTORY_WINDOW, page: HISTORY_PAGE }),
        ),
        historyView({}),
      ),
  ],
];

/**
 * Sends a rendered 200 as the gateway does (services/gateway/src/http/conditional/serveConditionalRead.ts):
 * its strong ETag and Cache-Control, or 304 with no body when If-None-Match names the tag.
 */
function sendAnswer(response: ServerResponse, headers: IncomingHttpHeaders, body: unknown): void {
  const text = JSON.stringify(body);
  const tag = entityTagOf(text);
  const condition = parseIfNoneMatch(headers["if-none-match"]);
  response.setHeader("etag", tag);
  response.setHeader(
    "cache-control",
    cacheControlOf(secondsUntilNextBlock(asOfTimestampOf(body), BLOCK_SECONDS, Date.now())),
  );
  if (condition !== undefined && matchesTag(condition, tag)) {
    response.statusCode = 304;
    response.end();
    return;
  }
  sendJsonText(response, 200, HAL_CONTENT_TYPE, text);
}

/** What a failed read answers (the bench only measures answers that succeed). */
function failure(error: unknown, path: string): { status: number; body: unknown } {
  const status = error instanceof AppError ? error.httpStatus : 500;
  if (status >= 500) log.warn({ err: error, path }, "baseline read failed");
  return {
    status,
    body: {
      status,
      code: error instanceof AppError ? error.code : "INTERNAL",
      detail: error instanceof Error ? error.message : String(error),
    },
  };
}

const server = process.env.BASELINE_HTTP === "node" ? nodeServer() : expressServer();
server.listen(port, "127.0.0.1");
process.once("SIGTERM", () => {
  server.close();
  void Promise.allSettled([redis.quit(), history?.end({ timeout: 1 })]).finally(() => process.exit(0));
});

/** The baseline of the issue: an express handler per route. */
function expressServer() {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  for (const [path, handler] of handlers) {
    app.get(path, (request: Request, response: Response) => {
      handler(request.params as Record<string, string>, request.query as Record<string, string | undefined>).then(
        (body) => sendAnswer(response, request.headers, body),
        (error: unknown) => {
          const failed = failure(error, request.path);
          response.status(failed.status).json(failed.body);
        },
      );
    });
  }
  app.get(
    "/readyz",
    (_request: Request, response: Response) => void response.status(redis.status === "ready" ? 200 : 503).end(),
  );
  return createServer(app);
}

/** The same handlers on node's HTTP server, matched by regular expressions built from their paths. */
function nodeServer() {
  const routes = handlers.map(([path, handler]) => ({
    pattern: new RegExp(`^${path.replace(/:(\w+)/g, "(?<$1>[^/]+)")}/?$`, "i"),
    handler,
  }));
  const send = (response: ServerResponse, status: number, body: unknown) =>
    sendJsonText(response, status, HAL_CONTENT_TYPE, JSON.stringify(body));
  return createServer((request, response) => {
    const [path = "", search = ""] = (request.url ?? "").split("?");
    if (path === "/readyz") {
      response.statusCode = redis.status === "ready" ? 200 : 503;
      response.end();
      return;
    }
    for (const { pattern, handler } of routes) {
      const match = pattern.exec(path);
      if (!match) continue;
      const params = Object.fromEntries(
        Object.entries(match.groups ?? {}).map(([name, value]) => [name, decodeURIComponent(value)]),
      );
      const query = search === "" ? {} : Object.fromEntries(new URLSearchParams(search));
      handler(params, query).then(
        (body) => sendAnswer(response, request.headers, body),
        (error: unknown) => {
          const failed = failure(error, path);
          send(response, failed.status, failed.body);
        },
      );
      return;
    }
    send(response, 404, { status: 404, code: "NOT_FOUND" });
  });
}
