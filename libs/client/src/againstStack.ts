import { describe, expect, it } from "vitest";
import { type ApiClient, type ClientOptions, createClient } from "./client.js";
import type { HalPage } from "./pages.js";
import { isProblem, ProblemError } from "./problem.js";
import type { ApiKeyCredentials } from "./tokens.js";

/*
 * The client's tests against a running stack, registered by an end-to-end test file that started
 * one: `clientSuite(() => ({ baseUrl, apiKey, freeTierKey }))` inside it. Not part of the
 * package's build (tsconfig.json leaves it out) and not run on its own (not a *.test.ts file).
 *
 * What the stack needs:
 * - auth's ACCESS_TOKEN_TTL_SECONDS short (e.g. 5): the refresh test waits past a token's expiry,
 *   plus the gateway's TOKEN_CLOCK_TOLERANCE_SECONDS (default 30) to see the old token refused;
 * - `apiKey` with data:read; `freeTierKey` (tier `free`, data:read) for the 429 test, which is
 *   skipped without it;
 * - `account` with at least two transactions before its newest block's (default: Alice, a seeded
 *   coldkey of the local stack's native network).
 */

export interface StackBase {
  baseUrl: string;
  apiKey: ApiKeyCredentials;
  freeTierKey?: ApiKeyCredentials | undefined;
  account?: string | undefined;
  /** The gateway's TOKEN_CLOCK_TOLERANCE_SECONDS, if not the default 30. */
  tokenClockToleranceSeconds?: number | undefined;
}

const ALICE = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY";
const STATS = "/data/v1/network/stats/latest";
const TRANSACTIONS = "/data/v1/accounts/{address}/transactions";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Registers the client's stack tests in the calling file. */
export function clientSuite(getBase: () => StackBase): void {
  describe("client: tokens", () => {
    it("shares one exchange, and renews with the refresh token across the access token's expiry", async () => {
      await tokenRefreshAcrossExpiry(getBase());
    }, 180_000);
  });

  describe("client: rate limits", () => {
    it("waits out 429 by Retry-After, and throws RATE_LIMITED with retries off", async (context) => {
      const base = getBase();
      if (base.freeTierKey === undefined) return context.skip("no free-tier key given");
      await rateLimitHandling(base.baseUrl, base.freeTierKey);
    }, 120_000);
  });

  describe("client: pages and problems", () => {
    it("iterates every page of an account's transactions", async () => {
      const base = getBase();
      await everyPage(createClient({ baseUrl: base.baseUrl, apiKey: base.apiKey }), base.account ?? ALICE);
    }, 120_000);

    it("throws an invalid address as ProblemError 400 INVALID_ADDRESS", async () => {
      const base = getBase();
      const client = createClient({ baseUrl: base.baseUrl, apiKey: base.apiKey });
      const error = await client
        .get("/data/v1/accounts/{address}/balance/latest", { params: { path: { address: "not-an-address" } } })
        .catch((caught: unknown) => caught);
      if (!(error instanceof ProblemError)) throw new Error(`expected a ProblemError, got ${String(error)}`);
      expect(error.code).toBe("INVALID_ADDRESS");
      expect(error.status).toBe(400);
      expect(error.requestId).toMatch(/\S/);
      expect(error.problem.type).toMatch(/\/problems\/invalid-address$/);
    });
  });
}

interface Recorded {
  grants: Array<{ type: string; expiresIn: number }>;
  statuses: number[];
}

/** A fetch that notes every grant (type, lifetime) and the status of every other answer. */
function recordingFetch(baseUrl: string): { fetch: NonNullable<ClientOptions["fetch"]>; recorded: Recorded } {
  const recorded: Recorded = { grants: [], statuses: [] };
  const authUrl = `${baseUrl.replace(/\/+$/, "")}/auth`;
  return {
    recorded,
    fetch: async (request) => {
      const grant = request.url === authUrl ? ((await request.clone().json()) as { type: string }).type : undefined;
      const response = await fetch(request);
      if (grant === undefined) recorded.statuses.push(response.status);
      else if (response.ok) {
        const answer = (await response.clone().json()) as { expires_in: string };
        recorded.grants.push({ type: grant, expiresIn: Number(answer.expires_in) });
      }
      return response;
    },
  };
}

async function tokenRefreshAcrossExpiry(base: StackBase): Promise<void> {
  const { fetch: recording, recorded } = recordingFetch(base.baseUrl);
  const client = createClient({ baseUrl: base.baseUrl, apiKey: base.apiKey, fetch: recording });
  await Promise.all(Array.from({ length: 5 }, () => client.get(STATS)));
  expect(recorded.grants.map((grant) => grant.type)).toEqual(["API_KEY"]);
  const lifetime = recorded.grants[0]!.expiresIn;
  if (lifetime > 60) {
    throw new Error(`access tokens live ${lifetime} s: start the stack with auth's ACCESS_TOKEN_TTL_SECONDS=5`);
  }
  const firstToken = await client.accessToken();
  // Past the first token's expiry and the gateway's leeway for it.
  await sleep((lifetime + (base.tokenClockToleranceSeconds ?? 30) + 2) * 1000);
  await client.get(STATS);
  expect(recorded.grants.map((grant) => grant.type)).toEqual(["API_KEY", "REFRESH_TOKEN"]);
  expect(await client.accessToken()).not.toBe(firstToken);
  // Renewed before it was needed: no call was refused on the way.
  expect(recorded.statuses).toEqual(Array(6).fill(200));
  const stale = await fetch(`${base.baseUrl}${STATS}`, { headers: { authorization: `Bearer ${firstToken}` } });
  expect(stale.status).toBe(401);
  expect(((await stale.json()) as { code: string }).code).toBe("INVALID_TOKEN");
}

async function rateLimitHandling(baseUrl: string, key: ApiKeyCredentials): Promise<void> {
  const { fetch: recording, recorded } = recordingFetch(baseUrl);
  const patient = createClient({ baseUrl, apiKey: key, fetch: recording, retry: { maxRetries: 30 } });
  const answers = await Promise.all(Array.from({ length: 25 }, () => patient.get(STATS)));
  expect(answers).toHaveLength(25);
  expect(recorded.statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
  expect(recorded.statuses.filter((status) => status === 200)).toHaveLength(25);

  const impatient = createClient({ baseUrl, apiKey: key, retry: false });
  let refusal: unknown;
  for (let attempt = 0; attempt < 40 && refusal === undefined; attempt += 1) {
    refusal = await impatient.get(STATS).then(
      () => undefined,
      (error: unknown) => error,
    );
  }
  expect(isProblem(refusal, "RATE_LIMITED")).toBe(true);
  expect((refusal as ProblemError).status).toBe(429);
  expect((refusal as ProblemError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
}

/**
 * Walks the account's transactions of a fixed window in about four pages, and compares them with
 * one page of up to 200. The window ends at the block of the account's newest transaction (the end
 * is exclusive): every later block has a later timestamp, so nothing enters it while it is walked.
 * The wall clock cannot fix it: a chain's timestamps need not follow it (chopsticks stamps each
 * block 12 s after its parent, however fast it builds them).
 */
async function everyPage(client: ApiClient, address: string): Promise<void> {
  const newest = (await client.get(TRANSACTIONS, {
    params: { path: { address }, query: { limit: 1 } },
  })) as HalPage<{ id: string; timestamp: string }>;
  const end = newest._embedded?.items?.[0]?.timestamp;
  if (end === undefined) throw new Error(`account ${address} has no transactions`);
  const reference = (await client.get(TRANSACTIONS, {
    params: { path: { address }, query: { end, limit: 200 } },
  })) as HalPage<{ id: string }>;
  const referenceIds = (reference._embedded?.items ?? []).map((item) => item.id);
  expect(referenceIds.length, `account ${address} needs two transactions before ${end}`).toBeGreaterThanOrEqual(2);
  const limit = Math.ceil(referenceIds.length / 4);

  let pages = 0;
  const pagedIds: string[] = [];
  for await (const page of client.pages(TRANSACTIONS, { params: { path: { address }, query: { end, limit } } })) {
    pages += 1;
    const items = (page._embedded?.items ?? []) as Array<{ id: string }>;
    expect(items.length).toBeLessThanOrEqual(limit);
    pagedIds.push(...items.map((item) => item.id));
  }
  const itemIds: string[] = [];
  for await (const item of client.paginate(TRANSACTIONS, { params: { path: { address }, query: { end, limit } } })) {
    itemIds.push((item as { id: string }).id);
  }
  expect(new Set(pagedIds).size).toBe(pagedIds.length);
  expect(itemIds).toEqual(pagedIds);
  if (reference.page?.has_more) {
    expect(pagedIds.slice(0, referenceIds.length)).toEqual(referenceIds);
  } else {
    expect(pagedIds).toEqual(referenceIds);
    expect(pages).toBe(Math.ceil(referenceIds.length / limit));
  }
}
