import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ClientOptions, createClient, type ListPath } from "./client.js";
import { isProblem, ProblemError, type ProblemFieldError } from "./problem.js";
import { type FakeApi, KEY, sendJson, sendProblem, sleep, startFakeApi } from "./testing/fakeApi.js";

// The client against an in-process stand-in for the gateway (testing/fakeApi.ts): token exchange
// and renewal, retries, pagination and typed problems. The event streams are in events.test.ts.
let fake: FakeApi;
const STATS = "/data/v1/network/stats/latest";

beforeEach(async () => {
  fake = await startFakeApi();
  fake.route("GET", STATS, (_request, response) => sendJson(response, 200, { ok: true }));
});

afterEach(async () => {
  await fake.close();
});

const clientOf = (options: Partial<ClientOptions> = {}) => createClient({ baseUrl: fake.url, apiKey: KEY, ...options });

describe("token exchange", () => {
  it("shares one exchange between concurrent calls and renews with the refresh token before expiry", async () => {
    fake.ttlSeconds = 1;
    const client = clientOf();
    await Promise.all(Array.from({ length: 5 }, () => client.get(STATS)));
    expect(fake.grants).toEqual([{ type: "API_KEY", username: KEY.id, password: KEY.secret }]);

    // Past the token's renewal point (a tenth of its lifetime before expiry), then past its expiry.
    await sleep(950);
    await client.get(STATS);
    await sleep(1_100);
    await client.get(STATS);
    expect(fake.grants.map((grant) => grant.type)).toEqual(["API_KEY", "REFRESH_TOKEN", "REFRESH_TOKEN"]);
    expect(fake.grants[1]).toEqual({ type: "REFRESH_TOKEN", username: KEY.id, refresh_token: "rt-1" });
    // No request ever went out with an expired token.
    expect(fake.refused).toEqual([]);
    expect(fake.calls.map((call) => call.token)).toEqual(["at-1", "at-1", "at-1", "at-1", "at-1", "at-2", "at-3"]);
  });

  it("renews once after 401 INVALID_TOKEN and sends the request again", async () => {
    const client = clientOf();
    await client.get(STATS);
    fake.revokeTokens();
    await expect(client.get(STATS)).resolves.toEqual({ ok: true });
    expect(fake.refused.map((request) => request.token)).toEqual(["at-1"]);
    expect(fake.calls.map((call) => call.token)).toEqual(["at-1", "at-2"]);
  });

  it("throws the second 401 as ProblemError INVALID_TOKEN instead of renewing again", async () => {
    const client = clientOf();
    fake.refuseTokens = true;
    const error = await client.get(STATS).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProblemError);
    expect(error).toMatchObject({ status: 401, code: "INVALID_TOKEN" });
    expect(fake.grants).toHaveLength(2);
    expect(fake.refused).toHaveLength(2);
  });

  it("falls back to the API key when the refresh token is refused", async () => {
    fake.ttlSeconds = 1;
    const client = clientOf();
    await client.get(STATS);
    fake.refuseRefresh = true;
    await sleep(1_000);
    await client.get(STATS);
    expect(fake.grants.map((grant) => grant.type)).toEqual(["API_KEY", "REFRESH_TOKEN", "API_KEY"]);
    expect(fake.refused).toEqual([]);
  });

  it("starts from a refresh token alone, and throws INVALID_REFRESH_TOKEN when it is refused", async () => {
    const client = createClient({ baseUrl: fake.url, refreshToken: { keyId: KEY.id, token: "rt-given" } });
    await client.get(STATS);
    expect(fake.grants).toEqual([{ type: "REFRESH_TOKEN", username: KEY.id, refresh_token: "rt-given" }]);

    fake.refuseRefresh = true;
    const refused = createClient({ baseUrl: fake.url, refreshToken: { keyId: KEY.id, token: "rt-revoked" } });
    await expect(refused.get(STATS)).rejects.toMatchObject({ status: 401, code: "INVALID_REFRESH_TOKEN" });
  });

  it("throws INVALID_CREDENTIALS for a wrong secret, and needs credentials at all", async () => {
    const client = createClient({ baseUrl: fake.url, apiKey: { id: KEY.id, secret: "wrong" } });
    await expect(client.accessToken()).rejects.toMatchObject({ status: 401, code: "INVALID_CREDENTIALS" });
    await expect(client.get(STATS)).rejects.toBeInstanceOf(ProblemError);
    expect(() => createClient({ baseUrl: fake.url })).toThrow(/apiKey or refreshToken/);
  });
});

describe("retries", () => {
  it("waits out 429 by Retry-After, then answers", async () => {
    let answered = 0;
    fake.route("GET", "/data/v1/coin/price/latest", (_request, response) => {
      answered += 1;
      if (answered === 1) return sendProblem(response, 429, "RATE_LIMITED", "spent", { "retry-after": "1" });
      sendJson(response, 200, { price: "1" });
    });
    const started = Date.now();
    await expect(clientOf().get("/data/v1/coin/price/latest")).resolves.toEqual({ price: "1" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(answered).toBe(2);
  });

  it("repeats a POST after 429 with its body", async () => {
    const bodies: string[] = [];
    fake.route("POST", "/intents/v1/tc/nonce", (request, response) => {
      bodies.push(request.body);
      if (bodies.length < 3) return sendProblem(response, 429, "RATE_LIMITED", "spent", { "retry-after": "0" });
      sendJson(response, 200, { nonce: "n1" });
    });
    const answer = await clientOf().post("/intents/v1/tc/nonce", { body: { walletAddress: "0xabc" } });
    expect(answer).toEqual({ nonce: "n1" });
    expect(bodies).toEqual(Array(3).fill('{"walletAddress":"0xabc"}'));
  });

  it("gives up after maxRetries, throwing RATE_LIMITED with its Retry-After", async () => {
    let answered = 0;
    fake.route("GET", "/data/v1/coin/price/latest", (_request, response) => {
      answered += 1;
      sendProblem(response, 429, "RATE_LIMITED", "spent", { "retry-after": "0" });
    });
    const error = await clientOf({ retry: { maxRetries: 2 } })
      .get("/data/v1/coin/price/latest")
      .catch((caught: unknown) => caught);
    expect(isProblem(error, "RATE_LIMITED")).toBe(true);
    expect(error).toMatchObject({ status: 429, retryAfterSeconds: 0, requestId: "req-test" });
    expect(answered).toBe(3);
  });

  it("does not wait longer than maxDelayMs, nor at all with retry: false", async () => {
    let answered = 0;
    fake.route("GET", "/data/v1/coin/price/latest", (_request, response) => {
      answered += 1;
      sendProblem(response, 429, "RATE_LIMITED", "spent", { "retry-after": answered === 1 ? "120" : "0" });
    });
    await expect(clientOf().get("/data/v1/coin/price/latest")).rejects.toMatchObject({ retryAfterSeconds: 120 });
    await expect(clientOf({ retry: false }).get("/data/v1/coin/price/latest")).rejects.toMatchObject({ status: 429 });
    expect(answered).toBe(2);
  });

  it("repeats a GET after 503 with Retry-After, never a POST", async () => {
    let reads = 0;
    let writes = 0;
    fake.route("GET", "/data/v1/coin/price/latest", (_request, response) => {
      reads += 1;
      if (reads === 1) return sendProblem(response, 503, "UNAVAILABLE", "away", { "retry-after": "0" });
      sendJson(response, 200, { price: "1" });
    });
    fake.route("POST", "/intents/v1/tc/accept", (_request, response) => {
      writes += 1;
      sendProblem(response, 503, "UNAVAILABLE", "away", { "retry-after": "0" });
    });
    const client = clientOf();
    await expect(client.get("/data/v1/coin/price/latest")).resolves.toEqual({ price: "1" });
    await expect(
      client.post("/intents/v1/tc/accept", { body: { message: "m", signature: "0x" } }),
    ).rejects.toMatchObject({ status: 503, code: "UNAVAILABLE" });
    expect([reads, writes]).toEqual([2, 1]);
  });
});

describe("pagination", () => {
  const ADDRESS = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY";
  const transactions = Array.from({ length: 7 }, (_, index) => ({ id: `tx-${index}` }));

  beforeEach(() => {
    // Cursors are the index of the page's first item; next links keep the query, as the gateway's do.
    fake.route("GET", `/data/v1/accounts/${ADDRESS}/transactions`, (request, response) => {
      const url = new URL(request.url, "http://x");
      const limit = Number(url.searchParams.get("limit") ?? 50);
      const from = Number(url.searchParams.get("cursor") ?? 0);
      if (Number.isNaN(from)) return sendProblem(response, 400, "INVALID_CURSOR", "not a cursor of this query");
      const items = transactions.slice(from, from + limit);
      const hasMore = from + limit < transactions.length;
      const next = new URL(url);
      next.searchParams.set("cursor", String(from + limit));
      sendJson(
        response,
        200,
        {
          _links: {
            self: { href: request.url },
            ...(hasMore ? { next: { href: `${next.pathname}${next.search}` } } : {}),
          },
          page: { limit, next_cursor: hasMore ? String(from + limit) : null, has_more: hasMore },
          _embedded: { items },
        },
        {},
        "application/hal+json",
      );
    });
  });

  it("iterates every item of every page by the next links, keeping the query", async () => {
    const client = clientOf();
    const items: unknown[] = [];
    for await (const item of client.paginate("/data/v1/accounts/{address}/transactions", {
      params: { path: { address: ADDRESS }, query: { limit: 3, order: "asc" } },
    })) {
      items.push(item);
    }
    expect(items).toEqual(transactions);
    expect(fake.calls.map((call) => call.url)).toEqual([
      `/data/v1/accounts/${ADDRESS}/transactions?limit=3&order=asc`,
      `/data/v1/accounts/${ADDRESS}/transactions?limit=3&order=asc&cursor=3`,
      `/data/v1/accounts/${ADDRESS}/transactions?limit=3&order=asc&cursor=6`,
    ]);
  });

  it("yields whole pages, and follows page.next_cursor where a page has no next link", async () => {
    fake.route("GET", "/intents/v1/intents/pending", (request, response) => {
      const cursor = new URL(request.url, "http://x").searchParams.get("cursor");
      sendJson(response, 200, {
        _links: { self: { href: request.url } },
        page: { limit: 1, next_cursor: cursor === null ? "c2" : null, has_more: cursor === null },
        _embedded: { items: [{ orderId: cursor ?? "first" }] },
      });
    });
    const pages = [];
    for await (const page of clientOf().pages("/intents/v1/intents/pending", {
      params: { query: { userAddress: "0xabc", limit: 1 } },
    })) {
      pages.push(page);
    }
    expect(pages.map((page) => page._embedded?.items)).toEqual([[{ orderId: "first" }], [{ orderId: "c2" }]]);
    expect(fake.calls.map((call) => call.url)).toEqual([
      "/intents/v1/intents/pending?userAddress=0xabc&limit=1",
      "/intents/v1/intents/pending?userAddress=0xabc&limit=1&cursor=c2",
    ]);
  });

  it("throws a refused page as a ProblemError", async () => {
    const walk = clientOf().paginate("/data/v1/accounts/{address}/transactions", {
      params: { path: { address: ADDRESS }, query: { cursor: "bogus" } },
    });
    await expect(walk.next()).rejects.toMatchObject({ status: 400, code: "INVALID_CURSOR" });
  });
});

describe("problems", () => {
  it("throws a problem answer as ProblemError with its code, detail, request id and extension members", async () => {
    fake.route("POST", "/intents/v1/intents", (_request, response) =>
      sendProblem(
        response,
        403,
        "TC_NOT_ACCEPTED",
        "accept the T&C first",
        {},
        { acceptedVersion: null, currentTcVersion: 3 },
      ),
    );
    const error = await clientOf()
      .post("/intents/v1/intents", { body: { userAddress: "0xabc", originChainId: 1, txHash: "0x01" } })
      .catch((caught: unknown) => caught);
    if (!(error instanceof ProblemError)) throw new Error(`expected a ProblemError, got ${String(error)}`);
    expect(error.code).toBe("TC_NOT_ACCEPTED");
    expect([error.status, error.detail, error.requestId]).toEqual([403, "accept the T&C first", "req-test"]);
    expect(error.problem.currentTcVersion).toBe(3);
    expect(error.message).toBe("403 TC_NOT_ACCEPTED: accept the T&C first");
  });

  it("surfaces every mistake of a refused request as typed errors, each with its pointer", async () => {
    const mistakes = [
      { pointer: "/query/limt", detail: "unknown query parameter 'limt': this operation takes limit, cursor" },
      { pointer: "/destinationChainId", detail: "body field 'destinationChainId' is required" },
    ];
    fake.route("POST", "/intents/v1/quotes", (_request, response) =>
      sendProblem(
        response,
        400,
        "UNKNOWN_PARAMETER",
        mistakes[0]!.detail,
        {},
        {
          parameter: "limt",
          errors: [...mistakes, { pointer: 7 }],
        },
      ),
    );
    const error = await clientOf()
      .post("/intents/v1/quotes", {
        body: { originChainId: 1, destinationChainId: 2, inputToken: "0x0", outputToken: "0x0", amount: "1" },
      })
      .catch((caught: unknown) => caught);
    if (!(error instanceof ProblemError)) throw new Error(`expected a ProblemError, got ${String(error)}`);
    expect(error.code).toBe("UNKNOWN_PARAMETER");
    // The malformed item is left out; the well-formed ones are kept, in order.
    expect(error.errors).toEqual(mistakes);
    const pointers: string[] = error.errors.map((mistake: ProblemFieldError) => mistake.pointer);
    expect(pointers).toEqual(["/query/limt", "/destinationChainId"]);
  });

  it("has no errors on a problem without a list", async () => {
    fake.route("GET", STATS, (_request, response) => sendProblem(response, 404, "NOT_FOUND", "nothing here"));
    await expect(clientOf().get(STATS)).rejects.toMatchObject({ code: "NOT_FOUND", errors: [] });
  });

  it("turns an answer that is not a problem into UNEXPECTED_RESPONSE", async () => {
    fake.route("GET", STATS, (_request, response) => {
      response.writeHead(502, { "content-type": "text/html" });
      response.end("<html>bad gateway</html>");
    });
    await expect(clientOf().get(STATS)).rejects.toMatchObject({
      status: 502,
      code: "UNEXPECTED_RESPONSE",
      detail: "<html>bad gateway</html>",
    });
  });

  it("leaves problems to the caller on the openapi-fetch client", async () => {
    fake.route("GET", "/data/v1/accounts/not-an-address/balance/latest", (_request, response) =>
      sendProblem(response, 400, "INVALID_ADDRESS", "not an address"),
    );
    const { data, error, response } = await clientOf().api.GET("/data/v1/accounts/{address}/balance/latest", {
      params: { path: { address: "not-an-address" } },
    });
    expect(data).toBeUndefined();
    expect(error?.code).toBe("INVALID_ADDRESS");
    expect(response.status).toBe(400);
  });
});

// Compile-time checks (tsconfig.tests.json type-checks this file): never called.
export function typeChecks(client: ReturnType<typeof createClient>): void {
  // Exactly the routes that take a cursor: a missing or an extra one fails to compile.
  const lists: Record<ListPath, true> = {
    "/intents/v1/intents/pending": true,
    "/intents/v1/intents/expired": true,
    "/data/v1/accounts/{address}/balance/history": true,
    "/data/v1/accounts/{address}/transactions": true,
    "/data/v1/coin/price/history": true,
    "/data/v1/network/stats/history": true,
    "/data/v1/subnet-pools/latest": true,
    "/data/v1/subnet-pools/history": true,
    "/data/v1/subnet-emissions/latest": true,
    "/data/v1/subnet-emissions/history": true,
    "/data/v1/subnets/latest": true,
    "/data/v1/subnets/history": true,
    "/data/v1/subnets/{netuid}/validators/latest": true,
    "/data/v1/subnets/{netuid}/holders/top": true,
    "/data/v1/subnets/{netuid}/neurons/latest": true,
  };
  void lists;
  // Every UID of a subnet, and a hotkey's nominators, typed from the document (the README's example).
  void (async () => {
    for await (const neuron of client.paginate("/data/v1/subnets/{netuid}/neurons/latest", {
      params: { path: { netuid: 64 }, query: { active: "true", sort: "incentive" } },
    })) {
      const scores: [string, string | null, boolean | undefined, string | undefined] = [
        neuron.incentive,
        neuron.pruning_score,
        neuron.immunity?.in_period,
        neuron.axon?.ip,
      ];
      void scores;
    }
    for await (const nominator of client.paginate("/data/v1/subnets/{netuid}/holders/top", {
      params: { path: { netuid: 64 }, query: { hotkey: "5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty" } },
    })) {
      const alpha: string = nominator.alpha_nalpha;
      void alpha;
    }
  })();
  // Validators by yield, an account's rewards, a swap estimate and a pool's order flow (the README's example).
  void (async () => {
    for await (const validator of client.paginate("/data/v1/subnets/{netuid}/validators/latest", {
      params: { path: { netuid: 64 }, query: { sort: "yield_7d" } },
    })) {
      const yields: [string | null, number | null] = [validator.yield.yield_7d, validator.yield.covered_from_block];
      void yields;
    }
    for await (const reward of client.paginate("/data/v1/accounts/{address}/transactions", {
      params: { path: { address: "5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty" }, query: { type: ["reward"] } },
    })) {
      void [reward.alpha_nalpha, reward.amount_rao, reward.netuid, reward.block_hash];
    }
    const estimate = await client.get("/data/v1/subnet-pools/{netuid}/swap-estimate", {
      params: { path: { netuid: 64 }, query: { direction: "stake", amount: "10000000000" } },
    });
    void [estimate.alpha_nalpha, estimate.price_impact, estimate.as_of?.block_number];
    const pools = await client.get("/data/v1/subnet-pools/latest", { params: { query: { netuid: [64] } } });
    const flow: [string | null | undefined, number | null | undefined] = [
      pools._embedded.items[0]?.tao_buy_volume_24h_rao,
      pools._embedded.items[0]?.buyers_24h,
    ];
    void flow;
  })();
  void client.paginate("/data/v1/subnets/{netuid}/neurons/latest", {
    // @ts-expect-error not a sort of neurons/latest
    params: { path: { netuid: 64 }, query: { sort: "vtrust" } },
  });
  // @ts-expect-error not a list route: it takes no cursor
  void client.paginate("/data/v1/network/stats/latest");
  // @ts-expect-error the path parameter is required
  void client.get("/data/v1/accounts/{address}/balance/latest");
  // @ts-expect-error not a documented problem code
  void isProblem(undefined, "NO_SUCH_CODE");
  // @ts-expect-error one of userAddress and orderId, not both
  void client.events.intents({ userAddress: "0x1", orderId: "0x2" });
}
