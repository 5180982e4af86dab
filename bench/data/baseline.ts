// The baseline of bench/data: a bare express app (the gateway's express version) with one handler
// per measured route. Each handler calls data-query's own read-model function for the route (the
// same Redis reads, in the same order) and renders the answer with the gateway's own HAL renderer,
// so both sides send the same bytes; what the baseline leaves out is exactly the gateway's share:
// no token check, no rate limit, no input validation, no access log, no gRPC hop.
// Started as its own process by run.ts (REDIS_URL, HTTP_PORT); never part of a deployment.
import { AppError } from "@platform/errors";
import { HAL_CONTENT_TYPE } from "@platform/http";
import { createLogger } from "@platform/log";
import { GetBalanceLatestRequest, ListTransactionsRequest } from "@platform/proto/data/v1/accounts";
import { GetPriceLatestRequest, GetSubnetPoolsLatestRequest } from "@platform/proto/data/v1/market";
import { GetSubnetsLatestRequest, GetValidatorsLatestRequest } from "@platform/proto/data/v1/subnets";
import { coalesceWrites, createRedis } from "@platform/store";
import express, { type Request, type Response } from "express";
import { getBalanceLatest } from "../../services/data-query/src/accounts/balanceLatest.js";
import { listTransactions } from "../../services/data-query/src/accounts/transactions.js";
import { getPriceLatest } from "../../services/data-query/src/market/price.js";
import { getSubnetPoolsLatest } from "../../services/data-query/src/market/pools.js";
import { getSubnetsLatest } from "../../services/data-query/src/subnets/subnetsLatest.js";
import { getValidatorsLatest } from "../../services/data-query/src/subnets/validators.js";
import { renderBalanceLatest, renderTransactions } from "../../services/gateway/src/routes/data/accounts/renderAccounts.js";
import { renderPoolsLatest, renderPriceLatest } from "../../services/gateway/src/routes/data/market/renderMarket.js";
import { renderSubnetsLatest, renderValidatorsLatest } from "../../services/gateway/src/routes/data/subnets/renderSubnets.js";

const log = createLogger({ service: "bench-data-baseline", level: process.env.LOG_LEVEL ?? "warn" });
const redisUrl = process.env.REDIS_URL;
const port = Number(process.env.HTTP_PORT);
if (redisUrl === undefined || !Number.isInteger(port) || port <= 0) throw new Error("REDIS_URL and HTTP_PORT are required");
// The client data-query makes (libs/service redisDependency): same options, one connection, and
// the same write coalescing (data-query's main.ts).
const redis = createRedis({ url: redisUrl, connectionName: "bench-data-baseline" });
coalesceWrites(redis);
// Diagnostics only (BENCH_BASELINE_AUTOPIPELINE=1): what ioredis auto-pipelining would save
// data-query; the baseline then no longer matches data-query's client, so its ratios do not count.
if (process.env.BENCH_BASELINE_AUTOPIPELINE === "1") redis.options.enableAutoPipelining = true;

/** The gateway's defaults for a request without query parameters (services/gateway/src/routes/data). */
const TRANSACTIONS_LIMIT = 50;
const POOLS_LIMIT = 256;
const SUBNETS_LIMIT = 256;
const VALIDATORS_LIMIT = 64;

type Handler = (request: Request) => Promise<unknown>;

const app = express();
app.disable("x-powered-by");
app.set("etag", false);

const serve = (path: string, handler: Handler) =>
  app.get(path, (request: Request, response: Response) => {
    handler(request).then(
      (body) => void response.status(200).type(HAL_CONTENT_TYPE).send(JSON.stringify(body)),
      (error: unknown) => {
        const status = error instanceof AppError ? error.httpStatus : 500;
        if (status >= 500) log.warn({ err: error, path: request.path }, "baseline read failed");
        response.status(status).json({ status, code: error instanceof AppError ? error.code : "INTERNAL", detail: error instanceof Error ? error.message : String(error) });
      },
    );
  });

const addressOf = (request: Request) => String(request.params.address);

serve("/data/v1/accounts/:address/balance/latest", async (request) =>
  renderBalanceLatest(await getBalanceLatest(redis, GetBalanceLatestRequest.fromPartial({ address: addressOf(request) })), {
    address: addressOf(request),
    query: {},
  }),
);
serve("/data/v1/accounts/:address/transactions", async (request) =>
  renderTransactions(
    await listTransactions(redis, ListTransactionsRequest.fromPartial({ address: addressOf(request), window: {}, page: { limit: TRANSACTIONS_LIMIT, cursor: "" } })),
    { address: addressOf(request), query: {}, limit: TRANSACTIONS_LIMIT },
  ),
);
serve("/data/v1/coin/price/latest", async () => renderPriceLatest(await getPriceLatest(redis, GetPriceLatestRequest.fromPartial({ vs: "usd" })), { query: {} }));
serve("/data/v1/subnet-pools/latest", async () =>
  renderPoolsLatest(await getSubnetPoolsLatest(redis, GetSubnetPoolsLatestRequest.fromPartial({ page: { limit: POOLS_LIMIT, cursor: "" } })), { query: {}, limit: POOLS_LIMIT }),
);
serve("/data/v1/subnets/latest", async () =>
  renderSubnetsLatest(await getSubnetsLatest(redis, GetSubnetsLatestRequest.fromPartial({ page: { limit: SUBNETS_LIMIT, cursor: "" } })), { query: {}, limit: SUBNETS_LIMIT }),
);
serve("/data/v1/subnets/:netuid/validators/latest", async (request) => {
  const netuid = Number(request.params.netuid);
  const answer = await getValidatorsLatest(redis, GetValidatorsLatestRequest.fromPartial({ netuid, page: { limit: VALIDATORS_LIMIT, cursor: "" } }));
  return renderValidatorsLatest(answer, { netuid, query: {}, limit: VALIDATORS_LIMIT });
});
app.get("/readyz", (_request: Request, response: Response) => void response.status(redis.status === "ready" ? 200 : 503).end());

const server = app.listen(port, "127.0.0.1");
process.once("SIGTERM", () => {
  server.close();
  void redis.quit().finally(() => process.exit(0));
});
