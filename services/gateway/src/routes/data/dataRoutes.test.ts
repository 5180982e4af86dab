import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Metadata, type ServerUnaryCall, status } from "@grpc/grpc-js";
import { loadConfig } from "@platform/config";
import { invalidArgument, notFound } from "@platform/errors";
import { type RunningGrpcServer, startGrpcServer, unaryHandler } from "@platform/grpc";
import { createLogger } from "@platform/log";
import { type AsOf, type BlockSelector, Finality, Interval, SortOrder } from "@platform/proto/common/v1/common";
import { Direction, TransactionType } from "@platform/proto/common/v1/network";
import {
  AccountsServiceService,
  type ListTransactionsRequest,
  type Transaction,
  Valuation,
} from "@platform/proto/data/v1/accounts";
import { MarketServiceService, PoolSort, SeriesFormat, SwapDirection } from "@platform/proto/data/v1/market";
import { HolderGrouping, NeuronSort, SubnetsServiceService, ValidatorSort } from "@platform/proto/data/v1/subnets";
import { createMetricsRegistry, watchDependencies } from "@platform/runtime";
import { decodeReadModelChange } from "@platform/signals";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGatewayApp } from "../../app.js";
import { type Backends, connectBackends } from "../../backends.js";
import { gatewayConfigSchema } from "../../config.js";
import { HttpProblem } from "../../HttpProblem.js";
import { applyChangeSignal } from "../../http/conditional/changeSignals.js";
import { createConditionalReads } from "../../http/conditional/conditionalReads.js";
import { unservedEventStreams } from "../events/eventStreams.js";
import { apiRoutes } from "../index.js";
import {
  ALICE,
  BOB,
  balanceHistoryExample,
  balanceLatestExample,
  CHARLIE,
  EVM_ACCOUNT,
  EXAMPLE_AS_OF,
  emissionsLatestExample,
  holdersTopExample,
  networkStatsExample,
  poolsHistoryExample,
  poolsLatestExample,
  priceHistoryExample,
  priceLatestExample,
  subnetsLatestExample,
  swapEstimateExample,
  transactionsExample,
  validatorsLatestExample,
} from "./examples.js";
import { neuronsLatestExample } from "./subnets/neuronExamples.js";

/** A change signal as the gateway receives it on `readmodel.changed.<projection>`. */
const received = (projection: string, payload: unknown) =>
  decodeReadModelChange(`readmodel.changed.${projection}`, payload);

/*
 * The twelve Data API routes through the real gateway app, against in-process gRPC backends
 * (real grpc-js servers on loopback serving canned answers): each route's 200 shape, what the
 * backend is asked, every edge validation, backend error codes relayed as problem+json, scope,
 * pagination by following _links.next, and the OpenAPI entries.
 */

const log = createLogger({ service: "gateway-data-test", level: "silent" });
const EVM = "0x52908400098527886E0F7030069857D2E4169EE7";
const UNKNOWN_NETUID = 999;
/** Windows starting before this are "too large" for the fake backends. */
const OLDEST = "2020-01-01T00:00:00.000Z";

/** What each backend method was last asked, with the metadata it came with. */
const seen = new Map<string, { request: unknown; metadata: Metadata }>();
let backendServer: RunningGrpcServer;
let backends: Backends;
let server: Server;
let base: string;
/** ETag and If-None-Match, with the change signals taken as arriving, one second after the examples' as_of. */
const reads = createConditionalReads({
  blockSeconds: 12,
  registry: createMetricsRegistry("gateway-data-conditional-test"),
  now: () => Date.parse(EXAMPLE_AS_OF.timestamp) + 1_000,
});

/** Thirty transactions, newest first, paged by offset: enough to walk several pages. */
const ledger: Transaction[] = Array.from({ length: 30 }, (_, index) => ({
  ...transactionsExample.transactions[1]!,
  id: `${7_000_100 - index}-0001-0001`,
  blockNumber: String(7_000_100 - index),
}));

function handler<Req, Res>(name: string, answer: (request: Req) => Res) {
  return unaryHandler(log, name, async (request: Req, call: ServerUnaryCall<Req, Res>) => {
    seen.set(name, { request, metadata: call.metadata });
    return answer(request);
  });
}

function checkNetuids(netuids: number[]) {
  if (netuids.includes(UNKNOWN_NETUID))
    throw notFound("NETUID_NOT_FOUND", `no subnet ${UNKNOWN_NETUID}`, { netuid: UNKNOWN_NETUID });
}

/** The fake chain behind the backends: followed from FIRST_BLOCK, final through FINALIZED_BLOCK, its head the examples' block. */
const HEAD_BLOCK = Number(EXAMPLE_AS_OF.blockNumber);
const FINALIZED_BLOCK = HEAD_BLOCK - 45;
const FIRST_BLOCK = 7_000_000;
type Pinnable = { at?: BlockSelector | undefined };

/** A latest answer at the block asked for (block_number), as data-query pins it, or its refusal. */
function atBlock<T extends { asOf?: AsOf | undefined }>(request: Pinnable, answer: T): T {
  const block = request.at?.block;
  if (block === undefined) return answer;
  const number = block.$case === "number" ? Number(block.value) : FINALIZED_BLOCK;
  if (number > HEAD_BLOCK)
    throw notFound("BLOCK_NOT_YET_INDEXED", `block ${number} is above the newest block indexed`, {
      blockNumber: number,
      headBlockNumber: HEAD_BLOCK,
    });
  if (number < FIRST_BLOCK)
    throw notFound("BLOCK_BEFORE_HISTORY", `block ${number} is older than the first block followed`, {
      blockNumber: number,
    });
  const finality = number <= FINALIZED_BLOCK ? Finality.FINALITY_FINALIZED : Finality.FINALITY_LATEST;
  return { ...answer, asOf: { ...answer.asOf!, blockNumber: String(number), finality } };
}

function checkWindow(window: { start?: string | undefined } | undefined) {
  if (window?.start !== undefined && window.start < OLDEST)
    throw invalidArgument("WINDOW_TOO_LARGE", "the window is longer than the interval allows", { parameter: "start" });
}

function listTransactions(request: ListTransactionsRequest) {
  checkWindow(request.window);
  const cursor = request.page?.cursor ?? "";
  if (cursor !== "" && !/^o\d+$/.test(cursor))
    throw invalidArgument("INVALID_CURSOR", "the cursor does not belong to this query", { parameter: "cursor" });
  const offset = cursor === "" ? 0 : Number(cursor.slice(1));
  const limit = request.page?.limit ?? 50;
  const transactions = ledger.slice(offset, offset + limit);
  const hasMore = offset + limit < ledger.length;
  return {
    ...transactionsExample,
    transactions,
    page: { limit, hasMore, nextCursor: hasMore ? `o${offset + limit}` : undefined },
  };
}

beforeAll(async () => {
  backendServer = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    services: [
      {
        name: "platform.data.v1.AccountsService",
        definition: AccountsServiceService,
        implementation: {
          getBalanceLatest: handler("getBalanceLatest", (request: Pinnable) => atBlock(request, balanceLatestExample)),
          getBalanceHistory: handler(
            "getBalanceHistory",
            (request: { window?: { start?: string } }) => (checkWindow(request.window), balanceHistoryExample),
          ),
          listTransactions: handler("listTransactions", listTransactions),
        },
      },
      {
        name: "platform.data.v1.MarketService",
        definition: MarketServiceService,
        implementation: {
          getPriceLatest: handler("getPriceLatest", () => priceLatestExample),
          getPriceHistory: handler(
            "getPriceHistory",
            (request: { window?: { start?: string } }) => (checkWindow(request.window), priceHistoryExample),
          ),
          getNetworkStatsLatest: handler("getNetworkStatsLatest", (request: Pinnable) =>
            atBlock(request, networkStatsExample),
          ),
          getSubnetPoolsLatest: handler(
            "getSubnetPoolsLatest",
            (request: Pinnable & { netuids: number[] }) => (
              checkNetuids(request.netuids), atBlock(request, poolsLatestExample)
            ),
          ),
          getSubnetPoolsHistory: handler(
            "getSubnetPoolsHistory",
            (request: { netuids: number[]; window?: { start?: string } }) => {
              checkNetuids(request.netuids);
              checkWindow(request.window);
              return poolsHistoryExample;
            },
          ),
          getSubnetEmissionsLatest: handler(
            "getSubnetEmissionsLatest",
            (request: Pinnable & { netuids: number[] }) => (
              checkNetuids(request.netuids), atBlock(request, emissionsLatestExample)
            ),
          ),
          getSwapEstimate: handler(
            "getSwapEstimate",
            (request: Pinnable & { netuid: number }) => (
              checkNetuids([request.netuid]), atBlock(request, swapEstimateExample)
            ),
          ),
        },
      },
      {
        name: "platform.data.v1.SubnetsService",
        definition: SubnetsServiceService,
        implementation: {
          getSubnetsLatest: handler(
            "getSubnetsLatest",
            (request: Pinnable & { netuids: number[] }) => (
              checkNetuids(request.netuids), atBlock(request, subnetsLatestExample)
            ),
          ),
          getValidatorsLatest: handler(
            "getValidatorsLatest",
            (request: Pinnable & { netuid: number }) => (
              checkNetuids([request.netuid]), atBlock(request, validatorsLatestExample)
            ),
          ),
          getHoldersTop: handler(
            "getHoldersTop",
            (request: Pinnable & { netuid: number }) => (
              checkNetuids([request.netuid]), atBlock(request, holdersTopExample)
            ),
          ),
          getNeuronsLatest: handler(
            "getNeuronsLatest",
            (request: Pinnable & { netuid: number }) => (
              checkNetuids([request.netuid]), atBlock(request, neuronsLatestExample)
            ),
          ),
        },
      },
    ],
  });
  backendServer.setServing(true);
  const target = `127.0.0.1:${backendServer.port}`;
  const config = loadConfig(gatewayConfigSchema, {
    REDIS_URL: "redis://127.0.0.1:1",
    // The Service API backends are not started: nothing here calls them.
    AUTH_GRPC_TARGET: "127.0.0.1:1",
    TC_GRPC_TARGET: "127.0.0.1:1",
    INTENTS_GRPC_TARGET: "127.0.0.1:1",
    DATA_ACCOUNTS_GRPC_TARGET: target,
    DATA_MARKET_GRPC_TARGET: target,
    DATA_SUBNETS_GRPC_TARGET: target,
  });
  backends = connectBackends(config);
  const readiness = watchDependencies([], 60_000);
  const app = createGatewayApp({
    log,
    // Token checks have their own tests; this guard admits a caller with the scopes it names in a header.
    guard: async (context, route) => {
      const scopes = (context.header("x-test-scopes") ?? "data:read").split(",");
      if (!scopes.includes(route.scope)) {
        throw new HttpProblem({
          code: "FORBIDDEN",
          grpcStatus: status.PERMISSION_DENIED,
          detail: `this API key lacks the scope ${route.scope}`,
          headers: {},
        });
      }
      return { keyId: "ak_data", headers: {} };
    },
    registry: createMetricsRegistry("gateway-data-test"),
    readiness,
    routes: apiRoutes(backends, unservedEventStreams(log)),
    publicBaseUrl: "https://api.example",
    maxBodyBytes: 1024,
    conditional: reads,
  });
  reads.setSignalsReady(true);
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  backends.close();
  await backendServer.shutdown(1_000);
});

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, { headers });
  return { response, body: (await response.json()) as Record<string, any> };
}

async function ok(path: string) {
  const { response, body } = await get(path);
  expect(response.status, `${path}: ${JSON.stringify(body)}`).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^application\/hal\+json/);
  return body;
}

async function problem(path: string, status: number) {
  const { response, body } = await get(path);
  expect(response.status, `${path}: ${JSON.stringify(body)}`).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  return body;
}

const asked = (method: string) => seen.get(method)!.request as Record<string, any>;

describe("Data API routes: account answers", () => {
  it("balance/latest renders the backend's answer and asks with the parsed valuation and netuids", async () => {
    const body = await ok(`/data/v1/accounts/${ALICE.ss58}/balance/latest?valuation=spot&netuid=0,64`);
    expect(body._links.self).toEqual({
      href: `/data/v1/accounts/${ALICE.ss58}/balance/latest?valuation=spot&netuid=0%2C64`,
    });
    expect(body).toMatchObject({
      as_of: { chain_id: 945, block_number: 7012345, finality: "latest" },
      address: { ss58: ALICE.ss58, kind: "substrate" },
      balance_total_rao: "101186669152",
    });
    expect(body._embedded.positions).toHaveLength(2);
    expect(asked("getBalanceLatest")).toEqual({
      address: ALICE.ss58,
      valuation: Valuation.VALUATION_SPOT,
      netuids: [0, 64],
    });
    // The call carries the request id and the API key id for the backend's logs, never a token.
    const metadata = seen.get("getBalanceLatest")!.metadata;
    expect(metadata.get("x-api-key-id")).toEqual(["ak_data"]);
    expect(String(metadata.get("x-request-id")[0])).toMatch(/^[0-9a-f-]{36}$/);
    expect(metadata.get("authorization")).toEqual([]);
  });

  it("balance/latest passes an EVM address and a 32-byte key through unchanged", async () => {
    await ok(`/data/v1/accounts/${EVM}/balance/latest`);
    expect(asked("getBalanceLatest")).toMatchObject({
      address: EVM,
      valuation: Valuation.VALUATION_UNSPECIFIED,
      netuids: [],
    });
    await ok(`/data/v1/accounts/${ALICE.publicKey}/balance/latest`);
    expect(asked("getBalanceLatest").address).toBe(ALICE.publicKey);
  });

  it("balance/history converts unix seconds to RFC 3339 and applies the documented default limit", async () => {
    const body = await ok(
      `/data/v1/accounts/${ALICE.ss58}/balance/history?start=1787184000&end=2026-08-20T12:00:00%2B02:00&interval=1h`,
    );
    expect(asked("getBalanceHistory")).toEqual({
      address: ALICE.ss58,
      window: {
        start: "2026-08-20T00:00:00.000Z",
        end: "2026-08-20T10:00:00.000Z",
        interval: Interval.INTERVAL_ONE_HOUR,
      },
      page: { limit: 100, cursor: "" },
      order: SortOrder.SORT_ORDER_UNSPECIFIED,
    });
    expect(body).toMatchObject({ interval: "1d", page: { limit: 1, has_more: true } });
    expect(body._links.self.href).toBe(
      `/data/v1/accounts/${ALICE.ss58}/balance/history?start=2026-08-20T00%3A00%3A00.000Z&end=2026-08-20T10%3A00%3A00.000Z&interval=1h`,
    );
    expect(body._links.next.href).toContain("cursor=");
    expect(body._embedded.items[0]).toMatchObject({ block_number: 7011999, change_total_rao: "-1500" });
  });

  it("transactions asks for rewards by the type name reward", async () => {
    await ok(`/data/v1/accounts/${ALICE.ss58}/transactions?type=reward`);
    expect(asked("listTransactions")).toMatchObject({ types: [TransactionType.TRANSACTION_TYPE_REWARD] });
  });

  it("transactions maps every filter onto the request", async () => {
    const body = await ok(
      `/data/v1/accounts/${ALICE.ss58}/transactions?type=transfer,stake_add&direction=in&netuid=1&netuid=2&counterparty=${EVM}&min_amount_rao=10&max_amount_rao=20&start=1786579200&end=2026-08-20T00:00:00Z&order=asc&limit=3`,
    );
    expect(asked("listTransactions")).toEqual({
      address: ALICE.ss58,
      types: [TransactionType.TRANSACTION_TYPE_TRANSFER, TransactionType.TRANSACTION_TYPE_STAKE_ADD],
      direction: Direction.DIRECTION_IN,
      netuids: [1, 2],
      counterparty: EVM,
      minAmountRao: "10",
      maxAmountRao: "20",
      window: {
        interval: Interval.INTERVAL_UNSPECIFIED,
        start: "2026-08-13T00:00:00.000Z",
        end: "2026-08-20T00:00:00.000Z",
      },
      page: { limit: 3, cursor: "" },
      order: SortOrder.SORT_ORDER_ASC,
    });
    expect(body._embedded.items).toHaveLength(3);
    expect(body._links.next.href).toBe(
      `/data/v1/accounts/${ALICE.ss58}/transactions?type=transfer%2Cstake_add&direction=in&netuid=1%2C2&counterparty=${EVM}&min_amount_rao=10&max_amount_rao=20&start=2026-08-13T00%3A00%3A00.000Z&end=2026-08-20T00%3A00%3A00.000Z&order=asc&limit=3&cursor=o3`,
    );
  });

  it("following _links.next walks every transaction once, in order", async () => {
    const ids: string[] = [];
    let next: string | undefined = `/data/v1/accounts/${ALICE.ss58}/transactions?limit=7`;
    let pages = 0;
    while (next !== undefined) {
      const body = await ok(next);
      ids.push(...body._embedded.items.map((item: { id: string }) => item.id));
      expect(body.page.has_more).toBe(body._links.next !== undefined);
      next = body._links.next?.href;
      pages += 1;
    }
    expect(pages).toBe(5);
    expect(ids).toEqual(ledger.map((transaction) => transaction.id));
  });
});

describe("Data API routes: market and subnet answers", () => {
  it("coin price latest and history", async () => {
    const { response, body: latest } = await get("/data/v1/coin/price/latest?vs=usd");
    expect(response.status).toBe(200);
    expect(latest).toMatchObject({ symbol: "TAO", vs: "usd", price: "322.12", source: { provider: "chainlink" } });
    // The supply in rao, and the deprecated whole-TAO members announced (services/gateway/CHANGELOG.md).
    expect(latest).toMatchObject({ max_supply_rao: "21000000000000000", max_supply_tao: "21000000" });
    expect(response.headers.get("deprecation")).toBe("@1796515200");
    expect(response.headers.get("sunset")).toBe("Sun, 06 Jun 2027 00:00:00 GMT");
    expect(asked("getPriceLatest")).toEqual({ vs: "usd" });
    const history = await ok("/data/v1/coin/price/history?interval=5m&format=close&start=2026-08-19T00:00:00Z");
    expect(asked("getPriceHistory")).toEqual({
      vs: "usd",
      window: { start: "2026-08-19T00:00:00.000Z", interval: Interval.INTERVAL_FIVE_MINUTES },
      format: SeriesFormat.SERIES_FORMAT_CLOSE,
      page: { limit: 500, cursor: "" },
      order: SortOrder.SORT_ORDER_UNSPECIFIED,
    });
    expect(history._embedded.items).toHaveLength(2);
    expect(history._links.latest).toEqual({ href: "/data/v1/coin/price/latest" });
  });

  it("network stats", async () => {
    const body = await ok("/data/v1/network/stats/latest");
    expect(body).toMatchObject({
      total_issuance_rao: "9503125500000000",
      blocks_per_day: 7200,
      subnets_count: 129,
      registration: { neuron_burn: { median_rao: "120000000" } },
    });
  });

  it("subnet pools latest and history", async () => {
    const latest = await ok("/data/v1/subnet-pools/latest?include_root=true&sort=price_change_24h&order=asc");
    expect(asked("getSubnetPoolsLatest")).toEqual({
      netuids: [],
      includeRoot: true,
      sort: PoolSort.POOL_SORT_PRICE_CHANGE_24H,
      order: SortOrder.SORT_ORDER_ASC,
      page: { limit: 256, cursor: "" },
    });
    expect(latest._embedded.items[0]).toMatchObject({ netuid: 64, price_tao: "0.003927757700", mechanism: "dynamic" });
    const history = await ok("/data/v1/subnet-pools/history?netuid=64,65&interval=block&block_start=7000000");
    expect(asked("getSubnetPoolsHistory")).toMatchObject({
      netuids: [64, 65],
      window: { interval: Interval.INTERVAL_BLOCK, blockStart: "7000000" },
      format: SeriesFormat.SERIES_FORMAT_UNSPECIFIED,
    });
    expect(history._embedded.items[0]).toMatchObject({ netuid: 64, price_close_tao: "0.003927757700" });
  });

  it("a swap estimate: direction and amount to the backend, the runtime's figures back", async () => {
    const body = await ok(
      "/data/v1/subnet-pools/64/swap-estimate?direction=stake&amount=10000000000&block_number=7012300",
    );
    expect(asked("getSwapEstimate")).toEqual({
      netuid: 64,
      direction: SwapDirection.SWAP_DIRECTION_STAKE,
      amount: "10000000000",
      at: { block: { $case: "number", value: "7012300" } },
    });
    expect(body).toMatchObject({
      direction: "stake",
      tao_rao: "10000000000",
      alpha_nalpha: "90909090909",
      price_impact: "0.09090909091",
      fee_rao: "0",
      pool: { tao_in_rao: "100000000000", alpha_in_after_nalpha: "909090909091" },
      as_of: { block_number: 7_012_300 },
    });
    expect(body._links.self.href).toBe(
      "/data/v1/subnet-pools/64/swap-estimate?direction=stake&amount=10000000000&block_number=7012300",
    );
    await ok("/data/v1/subnet-pools/0/swap-estimate?direction=unstake&amount=9999999999999999999");
    expect(asked("getSwapEstimate")).toMatchObject({ direction: SwapDirection.SWAP_DIRECTION_UNSTAKE });
  });

  it("subnet emissions latest", async () => {
    const body = await ok("/data/v1/subnet-emissions/latest?netuid=64&sort=share");
    expect(body).toMatchObject({ block_emission_rao: "1000000000", subnets_emitting: 128 });
    expect(body._embedded.items[0]).toMatchObject({ netuid: 64, alpha_out_split_nalpha: { owner: "180000000" } });
  });

  it("subnets, validators and holders", async () => {
    const subnets = await ok("/data/v1/subnets/latest?sort=uid_count");
    expect(subnets._embedded.items[0]).toMatchObject({
      netuid: 64,
      _embedded: { pool: { price_tao: "0.003927757700" } },
    });
    const validators = await ok("/data/v1/subnets/64/validators/latest?permit_only=false&sort=vtrust&limit=256");
    expect(asked("getValidatorsLatest")).toEqual({
      netuid: 64,
      includeWithoutPermit: true,
      sort: ValidatorSort.VALIDATOR_SORT_VTRUST,
      order: SortOrder.SORT_ORDER_UNSPECIFIED,
      page: { limit: 256, cursor: "" },
    });
    expect(validators).toMatchObject({ netuid: 64 });
    expect(validators._embedded.items[0]).toMatchObject({ uid: 140, alpha_stake_nalpha: "28193611901088" });
    // An empty cursor is the first page.
    const first = await ok("/data/v1/subnets/0/validators/latest?cursor=");
    expect(asked("getValidatorsLatest")).toMatchObject({
      netuid: 0,
      includeWithoutPermit: false,
      page: { limit: 64, cursor: "" },
    });
    expect(first._links.self).toEqual({ href: "/data/v1/subnets/0/validators/latest" });
    const holders = await ok("/data/v1/subnets/64/holders/top?group_by=position&min_alpha_nalpha=1000");
    expect(asked("getHoldersTop")).toEqual({
      netuid: 64,
      groupBy: HolderGrouping.HOLDER_GROUPING_POSITION,
      minAlphaNalpha: "1000",
      page: { limit: 100, cursor: "" },
    });
    expect(holders).toMatchObject({ holders_count: 5123, coverage: "registered_hotkeys_only" });
  });
});

describe("Data API routes: neurons and holder filters", () => {
  it("holders filtered by hotkey and coldkey: the keys go to the backend as given and back into the links", async () => {
    const path = `/data/v1/subnets/64/holders/top?hotkey=${BOB.ss58}&coldkey=${ALICE.publicKey}&limit=2`;
    const holders = await ok(path);
    expect(asked("getHoldersTop")).toEqual({
      netuid: 64,
      groupBy: HolderGrouping.HOLDER_GROUPING_UNSPECIFIED,
      hotkey: BOB.ss58,
      coldkey: ALICE.publicKey,
      page: { limit: 2, cursor: "" },
    });
    expect(holders._links.self.href).toBe(
      `/data/v1/subnets/64/holders/top?hotkey=${BOB.ss58}&coldkey=${ALICE.publicKey}&limit=2`,
    );
  });

  it("neurons: every filter, the sort and the order go to the backend; the UID renders with its units", async () => {
    const path = `/data/v1/subnets/64/neurons/latest?hotkey=${CHARLIE.ss58}&coldkey=${ALICE.ss58}&validator_permit=false&active=true&sort=emission&order=asc&limit=10`;
    const neurons = await ok(path);
    expect(asked("getNeuronsLatest")).toEqual({
      netuid: 64,
      hotkey: CHARLIE.ss58,
      coldkey: ALICE.ss58,
      validatorPermit: false,
      active: true,
      sort: NeuronSort.NEURON_SORT_EMISSION,
      order: SortOrder.SORT_ORDER_ASC,
      page: { limit: 10, cursor: "" },
    });
    expect(neurons._links.self.href).toBe(path);
    expect(neurons._links.validators).toEqual({ href: "/data/v1/subnets/64/validators/latest" });
    expect(neurons._embedded.items[0]).toEqual({
      _links: {
        hotkey: { href: `/data/v1/accounts/${CHARLIE.ss58}/balance/latest` },
        "coldkey-balance": { href: `/data/v1/accounts/${ALICE.ss58}/balance/latest` },
        subnet: { href: "/data/v1/subnets/latest?netuid=64" },
        holders: { href: "/data/v1/subnets/64/holders/top" },
      },
      uid: 17,
      hotkey: { ss58: CHARLIE.ss58, public_key: CHARLIE.publicKey, evm_h160: null },
      coldkey: { ss58: ALICE.ss58, public_key: ALICE.publicKey, evm_h160: null },
      identity: null,
      alpha_stake_nalpha: "0",
      root_stake_rao: "0",
      total_stake_value_rao: "0",
      rank: "0.04211032",
      trust: "0.96873426",
      consensus: "0.0421973",
      incentive: "0.04211032",
      dividends: "0",
      emission_nalpha: "3069125843",
      validator_permit: false,
      validator_trust: "0",
      active: true,
      axon: { ip: "203.0.113.7", port: 8091, ip_type: 4, protocol: 4, version: 9001000, block: 7011800 },
      registered_at_block: 7009000,
      immunity: { in_period: true, blocks_left: 3855, immunity_period: 7200 },
      pruning_score: "0.04211032",
      last_update_block: 7012100,
    });
    // The defaults: every UID (256, the most a subnet has), by incentive.
    await ok("/data/v1/subnets/64/neurons/latest");
    expect(asked("getNeuronsLatest")).toEqual({
      netuid: 64,
      sort: NeuronSort.NEURON_SORT_UNSPECIFIED,
      order: SortOrder.SORT_ORDER_UNSPECIFIED,
      page: { limit: 256, cursor: "" },
    });
  });
});

describe("Data API routes: query parameters no route lists, and every mistake at once", () => {
  const account = `/data/v1/accounts/${ALICE.ss58}`;
  it("refuses query parameters a route does not list, naming each, on every Data API route", async () => {
    seen.clear();
    const body = await problem(`${account}/transactions?limt=5&ofset=2&limit=3`, 400);
    expect(body).toMatchObject({ code: "UNKNOWN_PARAMETER", parameter: "limt" });
    expect(body.detail).toContain("'limt'");
    expect(body.errors).toEqual([
      { pointer: "/query/limt", detail: expect.stringContaining("unknown query parameter 'limt'") },
      { pointer: "/query/ofset", detail: expect.stringContaining("unknown query parameter 'ofset'") },
    ]);
    // No cache-buster exemption, and the event stream too.
    for (const path of ["/data/v1/coin/price/latest?_=1700000000", "/data/v1/events?topics=heads&since=1"]) {
      expect(await problem(path, 400)).toMatchObject({ code: "UNKNOWN_PARAMETER" });
    }
    expect(seen.size).toBe(0);
  });

  it("lists every bad value of a query at once, each with a pointer to its parameter", async () => {
    const body = await problem(`${account}/transactions?limit=0&direction=sideways&typo=1`, 400);
    expect(body).toMatchObject({ code: "UNKNOWN_PARAMETER", parameter: "typo" });
    expect(body.errors.map((error: { pointer: string }) => error.pointer)).toEqual([
      "/query/typo",
      "/query/direction",
      "/query/limit",
    ]);
    expect(body.detail).toMatch(/\(and 2 more: see errors\)$/);
  });
});

/** The swap estimate's own refusals: a direction it does not know, and amounts that are not 1 to 19 digits. */
const SWAP_ESTIMATE_REFUSALS: Array<[string, string, string]> = [
  ["/data/v1/subnet-pools/1/swap-estimate?amount=1", "INVALID_PARAMETER", "direction"],
  ["/data/v1/subnet-pools/1/swap-estimate?direction=buy&amount=1", "INVALID_PARAMETER", "direction"],
  ["/data/v1/subnet-pools/1/swap-estimate?direction=stake", "INVALID_PARAMETER", "amount"],
  ["/data/v1/subnet-pools/1/swap-estimate?direction=stake&amount=0", "INVALID_PARAMETER", "amount"],
  ["/data/v1/subnet-pools/1/swap-estimate?direction=stake&amount=1.5", "INVALID_PARAMETER", "amount"],
  ["/data/v1/subnet-pools/1/swap-estimate?direction=stake&amount=10000000000000000000", "INVALID_PARAMETER", "amount"],
  ["/data/v1/subnet-pools/70000/swap-estimate?direction=stake&amount=1", "INVALID_PARAMETER", "netuid"],
];

describe("Data API routes: refusals", () => {
  const account = `/data/v1/accounts/${ALICE.ss58}`;
  const cases: Array<[string, string, string]> = [
    ["/data/v1/accounts/not-an-address/balance/latest", "INVALID_ADDRESS", "address"],
    [`/data/v1/accounts/${ALICE.ss58.slice(0, -1)}x/balance/latest`, "INVALID_ADDRESS", "address"],
    [`/data/v1/accounts/0x52908400098527886e0F7030069857D2E4169EE7/transactions`, "INVALID_ADDRESS", "address"],
    ["/data/v1/accounts/0x1234/balance/history", "INVALID_ADDRESS", "address"],
    [`${account}/transactions?counterparty=nobody`, "INVALID_ADDRESS", "counterparty"],
    [`${account}/balance/latest?valuation=market`, "INVALID_PARAMETER", "valuation"],
    [`${account}/balance/latest?valuation=unstake`, "INVALID_PARAMETER", "valuation"],
    [`${account}/balance/latest?netuid=65536`, "INVALID_PARAMETER", "netuid"],
    [`${account}/balance/latest?netuid=1,,2`, "INVALID_PARAMETER", "netuid"],
    [`${account}/balance/history?interval=5m`, "INVALID_PARAMETER", "interval"],
    [`${account}/balance/history?start=yesterday`, "INVALID_PARAMETER", "start"],
    [`${account}/balance/history?start=2026-02-30T00:00:00Z`, "INVALID_PARAMETER", "start"],
    [`${account}/balance/history?start=2026-08-20T00:00:00Z&end=2026-08-19T00:00:00Z`, "INVALID_PARAMETER", "end"],
    [
      "/data/v1/subnet-pools/history?netuid=1&interval=block&start=2026-08-20T00:00:00Z&block_start=5",
      "INVALID_PARAMETER",
      "block_start",
    ],
    [
      "/data/v1/subnet-pools/history?netuid=1&interval=block&block_start=10&block_end=5",
      "INVALID_PARAMETER",
      "block_end",
    ],
    ["/data/v1/subnet-pools/history?netuid=1&block_start=10", "INVALID_PARAMETER", "block_start"],
    ["/data/v1/subnet-pools/history?netuid=1&interval=1h&block_end=10", "INVALID_PARAMETER", "block_end"],
    ["/data/v1/subnet-pools/history?netuid=1&interval=block&start=2026-08-20T00:00:00Z", "INVALID_PARAMETER", "start"],
    [
      `${account}/balance/history?start=2026-08-20T00:00:00.000000000001Z&end=2026-08-20T00:00:00Z`,
      "INVALID_PARAMETER",
      "end",
    ],
    [`${account}/balance/history?limit=1001`, "INVALID_PARAMETER", "limit"],
    [`${account}/balance/history?order=up`, "INVALID_PARAMETER", "order"],
    [`${account}/transactions?limit=201`, "INVALID_PARAMETER", "limit"],
    [`${account}/transactions?limit=0`, "INVALID_PARAMETER", "limit"],
    [`${account}/transactions?limit=1e2`, "INVALID_PARAMETER", "limit"],
    [`${account}/transactions?type=transfer,mint`, "INVALID_PARAMETER", "type"],
    [`${account}/transactions?direction=sideways`, "INVALID_PARAMETER", "direction"],
    [`${account}/transactions?min_amount_rao=-1`, "INVALID_PARAMETER", "min_amount_rao"],
    [`${account}/transactions?min_amount_rao=20&max_amount_rao=10`, "INVALID_PARAMETER", "max_amount_rao"],
    [`${account}/transactions?cursor=${"x".repeat(3000)}`, "INVALID_CURSOR", "cursor"],
    ["/data/v1/coin/price/latest?vs=eur", "INVALID_PARAMETER", "vs"],
    ["/data/v1/coin/price/history?interval=4h", "INVALID_PARAMETER", "interval"],
    ["/data/v1/coin/price/history?format=candles", "INVALID_PARAMETER", "format"],
    ["/data/v1/coin/price/history?limit=2001", "INVALID_PARAMETER", "limit"],
    ["/data/v1/subnet-pools/latest?include_root=yes", "INVALID_PARAMETER", "include_root"],
    ["/data/v1/subnet-pools/latest?sort=name", "INVALID_PARAMETER", "sort"],
    ["/data/v1/subnet-pools/latest?limit=257", "INVALID_PARAMETER", "limit"],
    ["/data/v1/subnet-pools/history", "INVALID_PARAMETER", "netuid"],
    [
      `/data/v1/subnet-pools/history?netuid=${Array.from({ length: 17 }, (_, index) => index).join(",")}`,
      "INVALID_PARAMETER",
      "netuid",
    ],
    ["/data/v1/subnet-pools/history?netuid=1&interval=1w", "INVALID_PARAMETER", "interval"],
    ["/data/v1/subnet-emissions/latest?sort=price", "INVALID_PARAMETER", "sort"],
    ...SWAP_ESTIMATE_REFUSALS,
    ["/data/v1/subnets/latest?netuid=abc", "INVALID_PARAMETER", "netuid"],
    ["/data/v1/subnets/latest?order=random", "INVALID_PARAMETER", "order"],
    ["/data/v1/subnets/65536/validators/latest", "INVALID_PARAMETER", "netuid"],
    ["/data/v1/subnets/-1/validators/latest", "INVALID_PARAMETER", "netuid"],
    ["/data/v1/subnets/1.5/holders/top", "INVALID_PARAMETER", "netuid"],
    ["/data/v1/subnets/1/validators/latest?permit_only=1", "INVALID_PARAMETER", "permit_only"],
    ["/data/v1/subnets/1/validators/latest?limit=257", "INVALID_PARAMETER", "limit"],
    ["/data/v1/subnets/1/holders/top?group_by=hotkey", "INVALID_PARAMETER", "group_by"],
    ["/data/v1/subnets/1/holders/top?min_alpha_nalpha=0.5", "INVALID_PARAMETER", "min_alpha_nalpha"],
    ["/data/v1/subnets/1/holders/top?limit=501", "INVALID_PARAMETER", "limit"],
  ];

  const labelled = cases.map(
    ([path, code, parameter]) => [path.length > 140 ? `${path.slice(0, 140)}…` : path, code, parameter, path] as const,
  );
  it.each(labelled)("%s → 400 %s naming %s, without calling a backend", async (_label, code, parameter, path) => {
    seen.clear();
    const body = await problem(path, 400);
    expect(body).toMatchObject({
      status: 400,
      code,
      parameter,
      type: `https://api.example/problems/${code.toLowerCase().replaceAll("_", "-")}`,
    });
    expect(body.detail).toContain(`'${parameter}'`);
    expect(seen.size).toBe(0);
  });

  it("says a missing required parameter is required", async () => {
    expect((await problem("/data/v1/subnet-pools/history", 400)).detail).toBe("query parameter 'netuid' is required");
  });

  it("relays the backend's codes: NETUID_NOT_FOUND 404, WINDOW_TOO_LARGE and INVALID_CURSOR 400", async () => {
    for (const path of [
      `/data/v1/subnets/${UNKNOWN_NETUID}/validators/latest`,
      `/data/v1/subnets/${UNKNOWN_NETUID}/holders/top`,
      `/data/v1/subnets/latest?netuid=${UNKNOWN_NETUID}`,
      `/data/v1/subnet-pools/latest?netuid=1,${UNKNOWN_NETUID}`,
      `/data/v1/subnet-pools/history?netuid=${UNKNOWN_NETUID}`,
      `/data/v1/subnet-emissions/latest?netuid=${UNKNOWN_NETUID}`,
      `/data/v1/subnet-pools/${UNKNOWN_NETUID}/swap-estimate?direction=stake&amount=1`,
    ]) {
      expect(await problem(path, 404)).toMatchObject({
        code: "NETUID_NOT_FOUND",
        netuid: UNKNOWN_NETUID,
        instance: path.split("?")[0],
      });
    }
    for (const path of [
      `/data/v1/accounts/${ALICE.ss58}/balance/history?start=2019-01-01T00:00:00Z`,
      `/data/v1/accounts/${ALICE.ss58}/transactions?start=1500000000`,
      "/data/v1/coin/price/history?start=2019-01-01T00:00:00Z&interval=5m",
      "/data/v1/subnet-pools/history?netuid=1&start=2019-01-01T00:00:00Z",
    ]) {
      expect(await problem(path, 400)).toMatchObject({ code: "WINDOW_TOO_LARGE", parameter: "start" });
    }
    expect(await problem(`/data/v1/accounts/${ALICE.ss58}/transactions?cursor=somebody-elses`, 400)).toMatchObject({
      code: "INVALID_CURSOR",
      parameter: "cursor",
    });
  });

  it("answers 403 to a key without data:read, before looking at the input", async () => {
    const { response, body } = await get("/data/v1/accounts/not-an-address/balance/latest", {
      "x-test-scopes": "intents:read",
    });
    expect(response.status).toBe(403);
    expect(body).toMatchObject({ code: "FORBIDDEN" });
  });
});

describe("Data API routes: neurons and holder filter refusals", () => {
  it.each([
    ["/data/v1/subnets/1/holders/top?hotkey=5Nobody", "INVALID_ADDRESS", "hotkey"],
    [`/data/v1/subnets/1/holders/top?coldkey=${ALICE.ss58.slice(0, -1)}x`, "INVALID_ADDRESS", "coldkey"],
    ["/data/v1/subnets/1/neurons/latest?hotkey=0x1234", "INVALID_ADDRESS", "hotkey"],
    ["/data/v1/subnets/1/neurons/latest?coldkey=nobody", "INVALID_ADDRESS", "coldkey"],
    ["/data/v1/subnets/1/neurons/latest?validator_permit=yes", "INVALID_PARAMETER", "validator_permit"],
    ["/data/v1/subnets/1/neurons/latest?active=1", "INVALID_PARAMETER", "active"],
    ["/data/v1/subnets/1/neurons/latest?sort=vtrust", "INVALID_PARAMETER", "sort"],
    ["/data/v1/subnets/1/neurons/latest?limit=257", "INVALID_PARAMETER", "limit"],
    ["/data/v1/subnets/1/neurons/latest?netuid=1", "UNKNOWN_PARAMETER", "netuid"],
  ])("%s → 400 %s naming %s, without calling a backend", async (path, code, parameter) => {
    seen.clear();
    expect(await problem(path, 400)).toMatchObject({ status: 400, code, parameter });
    expect(seen.size).toBe(0);
  });
});

describe("Data API routes: wiring", () => {
  it("mounts every data route (the spec's twelve, three histories, neurons and the swap estimate) with scope data:read and HAL answers", () => {
    const data = apiRoutes(backends, unservedEventStreams(log)).filter(
      (route) => route.path.startsWith("/data/v1/") && route.path !== "/data/v1/events",
    );
    expect(data).toHaveLength(17);
    for (const route of data) {
      expect(route.scope).toBe("data:read");
      expect(route.method).toBe("get");
      expect(route.docs.success.contentType).toBe("application/hal+json");
    }
  });

  it("checks readiness of each data service by its own gRPC health name", async () => {
    const probes = backends.checks.filter((check) => check.name.startsWith("grpc:data-"));
    expect(probes.map((check) => check.name)).toEqual(["grpc:data-accounts", "grpc:data-market", "grpc:data-subnets"]);
    for (const check of probes) expect(await check.probe()).toBe(true);
  });

  it("documents every data path in the OpenAPI document with examples, parameters and error codes", async () => {
    const { body } = await get("/openapi.json");
    const paths = Object.keys(body.paths).filter((path) => path.startsWith("/data/v1/") && path !== "/data/v1/events");
    expect(paths.sort()).toEqual(
      [
        "/data/v1/accounts/{address}/balance/history",
        "/data/v1/accounts/{address}/balance/latest",
        "/data/v1/accounts/{address}/transactions",
        "/data/v1/coin/price/history",
        "/data/v1/coin/price/latest",
        "/data/v1/network/stats/history",
        "/data/v1/network/stats/latest",
        "/data/v1/subnet-emissions/history",
        "/data/v1/subnet-emissions/latest",
        "/data/v1/subnet-pools/history",
        "/data/v1/subnet-pools/latest",
        "/data/v1/subnet-pools/{netuid}/swap-estimate",
        "/data/v1/subnets/history",
        "/data/v1/subnets/latest",
        "/data/v1/subnets/{netuid}/holders/top",
        "/data/v1/subnets/{netuid}/neurons/latest",
        "/data/v1/subnets/{netuid}/validators/latest",
      ].sort(),
    );
    for (const path of paths) {
      const operation = body.paths[path].get;
      expect(operation.security).toEqual([{ bearerAuth: ["data:read"] }]);
      const example = operation.responses["200"].content["application/hal+json"].example;
      expect(example._links.self.href, path).toMatch(/^\/data\/v1\//);
      expect(example.as_of ?? example._embedded, path).toBeDefined();
    }
    const transactions = body.paths["/data/v1/accounts/{address}/transactions"].get;
    expect(transactions.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(
      expect.arrayContaining([
        "address",
        "type",
        "direction",
        "netuid",
        "counterparty",
        "start",
        "end",
        "limit",
        "cursor",
        "order",
      ]),
    );
    expect(Object.keys(transactions.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "403", "429"]));
    expect(body.paths["/data/v1/subnets/{netuid}/holders/top"].get.responses["404"].description).toContain(
      "NETUID_NOT_FOUND",
    );
    expect(body.components.schemas.Problem.properties.code.enum).toEqual(
      expect.arrayContaining(["INVALID_ADDRESS", "WINDOW_TOO_LARGE", "NETUID_NOT_FOUND", "INVALID_CURSOR"]),
    );
  });
});

describe("Data API routes: conditional reads", () => {
  // One read of each route, the backend method it calls, and the change signals that make it stale.
  type Signal = "market" | "subnets" | "account";
  const routes: Array<[string, string, Signal[]]> = [
    [`/data/v1/accounts/${ALICE.ss58}/balance/latest`, "getBalanceLatest", ["account", "market"]],
    [`/data/v1/accounts/${ALICE.ss58}/balance/history?interval=1w`, "getBalanceHistory", ["account", "market"]],
    [`/data/v1/accounts/${ALICE.ss58}/transactions?limit=3`, "listTransactions", ["account"]],
    ["/data/v1/coin/price/latest", "getPriceLatest", ["market"]],
    ["/data/v1/coin/price/history?interval=5m", "getPriceHistory", ["market"]],
    ["/data/v1/network/stats/latest", "getNetworkStatsLatest", ["market", "subnets"]],
    ["/data/v1/subnet-pools/latest?netuid=64", "getSubnetPoolsLatest", ["market", "subnets"]],
    ["/data/v1/subnet-pools/history?netuid=64", "getSubnetPoolsHistory", ["market"]],
    ["/data/v1/subnet-emissions/latest", "getSubnetEmissionsLatest", ["market", "subnets"]],
    ["/data/v1/subnets/latest", "getSubnetsLatest", ["subnets"]],
    ["/data/v1/subnets/64/validators/latest", "getValidatorsLatest", ["subnets"]],
    ["/data/v1/subnets/64/holders/top", "getHoldersTop", ["subnets"]],
    ["/data/v1/subnets/64/neurons/latest", "getNeuronsLatest", ["subnets"]],
  ];
  const signal = (which: Signal, account = ALICE.publicKey) =>
    which === "account"
      ? applyChangeSignal(reads, received("accounts", { accounts: [account], truncated: false }))
      : applyChangeSignal(reads, received(which, { projection: which, version: "v" }));

  it("covers the thirteen routes", () => {
    expect(new Set(routes.map(([, method]) => method)).size).toBe(13);
  });

  it.each(routes)(
    "%s: ETag and Cache-Control, 304 without a backend call until its read models change",
    async (path, method, signals) => {
      const first = await fetch(`${base}${path}`);
      expect(first.status, await first.clone().text()).toBe(200);
      const tag = first.headers.get("etag")!;
      expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      // One second after as_of, with a 12 s block.
      expect(first.headers.get("cache-control")).toBe("private, max-age=11");
      const conditional = () => fetch(`${base}${path}`, { headers: { "if-none-match": tag } });

      seen.clear();
      const cached = await conditional();
      expect([cached.status, cached.headers.get("etag"), await cached.text()]).toEqual([304, tag, ""]);
      expect(seen.size).toBe(0);

      // What it does not depend on changes nothing.
      for (const other of (["market", "subnets", "account"] as const).filter((which) => !signals.includes(which)))
        signal(other);
      signal("account", `0x${"77".repeat(32)}`);
      expect((await conditional()).status).toBe(304);
      expect(seen.size).toBe(0);

      for (const which of signals) {
        signal(which);
        const afterCall = await conditional();
        expect([which, afterCall.status, afterCall.headers.get("etag")]).toEqual([which, 304, tag]);
        expect(seen.has(method), which).toBe(true);
        seen.clear();
        expect((await conditional()).status).toBe(304);
        expect(seen.size).toBe(0);
      }
    },
  );

  it("knows an account by its public key however the path spells it (an EVM address is its mapped account)", async () => {
    const path = `/data/v1/accounts/${EVM}/balance/latest`;
    const tag = (await fetch(`${base}${path}`)).headers.get("etag")!;
    seen.clear();
    expect((await fetch(`${base}${path}`, { headers: { "if-none-match": tag } })).status).toBe(304);
    expect(seen.size).toBe(0);
    signal("account", EVM_ACCOUNT.publicKey);
    expect((await fetch(`${base}${path}`, { headers: { "if-none-match": tag } })).status).toBe(304);
    expect(seen.has("getBalanceLatest")).toBe(true);
  });

  it("documents If-None-Match, ETag, Cache-Control and the 304 with what it costs on every route", async () => {
    const { body } = await get("/openapi.json");
    for (const [path] of routes) {
      const template = Object.keys(body.paths).find((candidate) =>
        new RegExp(`^${candidate.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path.split("?")[0]!),
      )!;
      const operation = body.paths[template].get;
      expect(operation.parameters.at(-1), template).toMatchObject({
        name: "If-None-Match",
        in: "header",
        required: false,
      });
      expect(Object.keys(operation.responses["200"].headers)).toEqual(
        expect.arrayContaining(["ETag", "Cache-Control"]),
      );
      expect(operation.responses["304"].headers.ETag).toEqual({ $ref: "#/components/headers/ETag" });
      expect(body.components.headers.ETag.required).toBe(true);
      expect(operation.responses["304"].description).toMatch(/^Not Modified: /);
    }
    const holders = body.paths["/data/v1/subnets/{netuid}/holders/top"].get.responses["304"].description;
    expect(holders).toContain("0.4 units of the rate budget (0.2 of the route's 2)");
    const price = body.paths["/data/v1/coin/price/latest"].get.responses["304"].description;
    expect(price).toContain("0.2 units of the rate budget (0.2 of the route's 1)");
  });
});

describe("Data API routes: reads at a past block (block_number)", () => {
  // Each latest route over the native network, its backend method, and its path with a query of its own.
  const routes: Array<[string, string]> = [
    [`/data/v1/accounts/${ALICE.ss58}/balance/latest?netuid=64`, "getBalanceLatest"],
    ["/data/v1/network/stats/latest?", "getNetworkStatsLatest"],
    ["/data/v1/subnet-pools/latest?netuid=64", "getSubnetPoolsLatest"],
    ["/data/v1/subnet-emissions/latest?limit=5", "getSubnetEmissionsLatest"],
    ["/data/v1/subnets/latest?netuid=64", "getSubnetsLatest"],
    ["/data/v1/subnets/64/validators/latest?limit=5", "getValidatorsLatest"],
    ["/data/v1/subnets/64/holders/top?limit=5", "getHoldersTop"],
    ["/data/v1/subnets/64/neurons/latest?limit=5", "getNeuronsLatest"],
  ];
  const withBlock = (path: string, block: string | number) =>
    `${path}${path.endsWith("?") ? "" : "&"}block_number=${block}`;

  it.each(routes)(
    "%s: a finalized block by number answers it, immutable, and is kept past the read models' changes",
    async (path, method) => {
      const block = FINALIZED_BLOCK - 1_000;
      seen.clear();
      const first = await fetch(`${base}${withBlock(path, block)}`);
      const body = (await first.json()) as Record<string, any>;
      expect(first.status, JSON.stringify(body)).toBe(200);
      expect(asked(method).at).toEqual({ block: { $case: "number", value: String(block) } });
      expect(body.as_of).toMatchObject({ block_number: block, finality: "finalized" });
      expect(body._links.self.href).toContain(`block_number=${block}`);
      expect(first.headers.get("cache-control")).toBe("private, max-age=31536000, immutable");

      // Nothing a projection commits changes a finalized block: the same answer from memory, and a 304.
      for (const projection of ["market", "subnets"])
        applyChangeSignal(reads, received(projection, { projection, version: "v" }));
      applyChangeSignal(reads, received("accounts", { accounts: [ALICE.publicKey], truncated: false }));
      seen.clear();
      const again = await fetch(`${base}${withBlock(path, block)}`, {
        headers: { "if-none-match": first.headers.get("etag")! },
      });
      expect([again.status, again.headers.get("cache-control")]).toEqual([304, "private, max-age=31536000, immutable"]);
      expect(seen.size).toBe(0);
    },
  );

  it.each(routes)(
    "%s: `finalized` and a block above finality answer as any latest read, not immutable",
    async (path, method) => {
      const finalized = await fetch(`${base}${withBlock(path, "finalized")}`);
      const body = (await finalized.json()) as Record<string, any>;
      expect(finalized.status, JSON.stringify(body)).toBe(200);
      expect(asked(method).at).toEqual({ block: { $case: "finalized", value: true } });
      expect(body.as_of).toMatchObject({ block_number: FINALIZED_BLOCK, finality: "finalized" });
      expect(body._links.self.href).toContain("block_number=finalized");
      expect(finalized.headers.get("cache-control")).toMatch(/^private, max-age=\d+$/);

      const recent = await fetch(`${base}${withBlock(path, HEAD_BLOCK - 1)}`);
      expect(((await recent.json()) as Record<string, any>).as_of).toMatchObject({ finality: "latest" });
      expect(recent.headers.get("cache-control")).toMatch(/^private, max-age=\d+$/);
    },
  );

  it.each(
    routes.map(([path], index) => [
      withBlock(path, ["latest", "-1", "1.5", "0x10", "9007199254740992", "", "Finalized"][index]!),
    ]),
  )("%s → 400 INVALID_PARAMETER naming block_number, without calling a backend", async (path) => {
    seen.clear();
    expect(await problem(path, 400)).toMatchObject({ code: "INVALID_PARAMETER", parameter: "block_number" });
    expect(seen.size).toBe(0);
  });

  it.each(routes)("%s: a block beyond the head or before history is a 404 problem with its code", async (path) => {
    expect(await problem(withBlock(path, HEAD_BLOCK + 1), 404)).toMatchObject({
      code: "BLOCK_NOT_YET_INDEXED",
      blockNumber: HEAD_BLOCK + 1,
      headBlockNumber: HEAD_BLOCK,
      type: "https://api.example/problems/block-not-yet-indexed",
    });
    expect(await problem(withBlock(path, 5), 404)).toMatchObject({ code: "BLOCK_BEFORE_HISTORY", blockNumber: 5 });
  });

  it("documents block_number (a block number or finalized) and its two 404 codes on every latest route", async () => {
    const { body } = await get("/openapi.json");
    for (const [path] of routes) {
      const template = Object.keys(body.paths).find((candidate) =>
        new RegExp(`^${candidate.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path.split("?")[0]!),
      )!;
      const operation = body.paths[template].get;
      const parameter = operation.parameters.find((candidate: { name: string }) => candidate.name === "block_number");
      expect(parameter, template).toMatchObject({ in: "query", required: false });
      expect(parameter.schema.anyOf).toEqual([
        { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
        { type: "string", enum: ["finalized"] },
      ]);
      expect(operation.responses["404"].description, template).toContain("BLOCK_NOT_YET_INDEXED");
      expect(operation.responses["404"].description, template).toContain("BLOCK_BEFORE_HISTORY");
    }
    expect(body.components.schemas.Problem.properties.code.enum).toEqual(
      expect.arrayContaining(["BLOCK_NOT_YET_INDEXED", "BLOCK_BEFORE_HISTORY"]),
    );
  });
});
