import { randomBytes } from "node:crypto";
import { createClient, type DataStreamEvent } from "@chain-intents/client";
import { authCli, freePorts, type RunningStack, silentProgress, startStack, testRuntime } from "@platform/local-stack";
import { ss58Encode } from "@platform/subtensor";
import { tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The workspace's own suite of the client against a stack (not in the package: it imports vitest).
import { clientSuite } from "../../../libs/client/src/againstStack.js";
import { compareIds, openEventStream } from "./support/eventStream.js";
import { type OtlpReceiver, startOtlpReceiver, tracingEnv } from "./support/otlpReceiver.js";
import { tracingSuite } from "./support/tracingSuite.js";

/*
 * Live updates on the whole demo stack (the native network with its block timer, the simulator):
 * conditional reads, the data event stream, and the typed client's tests against the stack. Access
 * tokens live 5 s here (and the gateway allows 1 s of clock skew), so the client's refresh across
 * an expiry takes seconds; every test takes fresh tokens. A stream closes when its token expires,
 * so the test that holds one stream open across several blocks runs in browser.test.ts, whose
 * tokens live the default 15 minutes.
 */

const TOKEN_TTL_SECONDS = 5;
const CLOCK_TOLERANCE_SECONDS = 1;
const BLOCK_TIME_HINT_SECONDS = 10;

const state = tempDir("e2e-live");
let stack: RunningStack;
let key: { id: string; secret: string };
let freeKey: { id: string; secret: string };
// Every process exports its spans here, all sampled (support/tracingSuite.ts reads them back).
let receiver: OtlpReceiver;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  const traced = tracingEnv(receiver);
  stack = await startStack({
    stateDir: state.path,
    ports: await freePorts(),
    detached: false,
    runtime: testRuntime(),
    progress: silentProgress,
    nativeNetwork: true,
    serviceEnv: {
      auth: { ...traced, ACCESS_TOKEN_TTL_SECONDS: String(TOKEN_TTL_SECONDS) },
      // The block-time hint is 10 s where blocks come every 2 s: an answer's max-age runs to the next
      // expected block, and on a loaded machine the timer's blocks come late, so with the true 2 s
      // most answers would already be due (max-age 0, nothing kept). Kept answers then live until
      // the next block's change signal drops them, which the conditional-read test shows.
      gateway: {
        ...traced,
        TOKEN_CLOCK_TOLERANCE_SECONDS: String(CLOCK_TOLERANCE_SECONDS),
        DATA_BLOCK_SECONDS: String(BLOCK_TIME_HINT_SECONDS),
      },
      tc: traced,
      "data-query": traced,
      "intents-gateway": traced,
      "chain-ingestor": traced,
      projector: traced,
    },
  });
  key = await createKey("e2e-live", "unlimited");
  freeKey = await createKey("e2e-live-free", "free");
}, 300_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  state.remove();
}, 120_000);

async function createKey(name: string, tier: string): Promise<{ id: string; secret: string }> {
  const auth = stack.descriptor.processes.find((entry) => entry.name === "auth")!;
  return JSON.parse(
    await authCli(
      testRuntime(),
      ["keys", "create", "--name", name, "--scopes", "data:read,intents:read", "--tier", tier, "--json"],
      { AUTH_ADMIN_GRPC_TARGET: auth.adminGrpcTarget! },
    ),
  ) as { id: string; secret: string };
}

async function freshToken(): Promise<string> {
  const issued = await fetch(`${stack.descriptor.gatewayUrl}/auth`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "API_KEY", username: key.id, password: key.secret }),
  });
  return ((await issued.json()) as { access_token: string }).access_token;
}

/** A counter of a service's /metrics (ops port), summed over the series whose labels include `labels`. */
async function counter(service: string, name: string, labels: Record<string, string>): Promise<number> {
  const ops = stack.descriptor.processes.find((entry) => entry.name === service)!;
  const text = await (await fetch(`${ops.opsUrl!}/metrics`)).text();
  let total = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([label, value]) => line.includes(`${label}="${value}"`)))
      total += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return total;
}

describe("conditional reads", () => {
  // An account nobody uses: its kept answer depends on it alone, so the other accounts' changes
  // every block leave it current (a route read from a whole projection, such as subnets/latest,
  // is dropped by that projection's commits, which on a loaded machine come close together).
  const QUIET = ss58Encode(randomBytes(32));
  const PATH = `/data/v1/accounts/${QUIET}/balance/latest`;
  const ROUTE = "/data/v1/accounts/:address/balance/latest";
  const cached = () =>
    counter("gateway", "gateway_conditional_reads_total", { route: ROUTE, result: "not_modified_cached" });
  const modified = () => counter("gateway", "gateway_conditional_reads_total", { route: ROUTE, result: "modified" });
  const dataQueryCalls = () =>
    counter("data-query", "grpc_server_handled_total", { grpc_method: "getBalanceLatest", grpc_code: "OK" });

  it("answers an unchanged latest read 304 without calling data-query, and a changed one 200 with a new ETag", async () => {
    const token = await freshToken();
    const get = (etag?: string) =>
      fetch(`${stack.descriptor.gatewayUrl}${PATH}`, {
        headers: { authorization: `Bearer ${token}`, ...(etag === undefined ? {} : { "if-none-match": etag }) },
      });
    await waitFor(async () => (await counter("gateway", "gateway_conditional_cache_enabled", {})) === 1, {
      what: "the gateway's conditional cache on (NATS connected)",
    });
    // Take the ETag and ask again at once. A pair whose kept answer ran out between the two (its
    // max-age ends at the next expected block) is proven by data-query instead, a 304 too: asked
    // again, since what is shown here is the kept one.
    const pair = await waitFor(
      async () => {
        const first = await get();
        const etag = first.headers.get("etag")!;
        await first.arrayBuffer();
        const [callsBefore, cachedBefore] = [await dataQueryCalls(), await cached()];
        const again = await get(etag);
        const [callsAfter, cachedAfter] = [await dataQueryCalls(), await cached()];
        if (again.status !== 304 || cachedAfter === cachedBefore) return undefined;
        return { etag, again, callsBefore, callsAfter, cachedBefore, cachedAfter, body: await again.text() };
      },
      { what: "a 304 pair from the kept answer", timeoutMs: 30_000, intervalMs: 0 },
    );
    expect(pair.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(pair.body).toBe("");
    expect(pair.again.headers.get("etag")).toBe(pair.etag);
    // Fresh until the next expected block, by the gateway's block-time hint.
    const maxAge = /^private, max-age=(\d+)$/.exec(pair.again.headers.get("cache-control") ?? "");
    expect(Number(maxAge?.[1])).toBeLessThanOrEqual(BLOCK_TIME_HINT_SECONDS);
    expect(pair.callsAfter).toBe(pair.callsBefore);
    expect(pair.cachedAfter).toBe(pair.cachedBefore + 1);

    // Once the kept answer's max-age has run out, the read shows the read model's newer head
    // (`as_of` moves every block): the old ETag no longer matches.
    const modifiedBefore = await modified();
    const changed = await waitFor(
      async () => {
        const answer = await get(pair.etag);
        if (answer.status === 304) return undefined;
        return { status: answer.status, etag: answer.headers.get("etag"), body: (await answer.json()) as object };
      },
      { what: "a changed answer", timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(changed.status).toBe(200);
    expect(changed.etag).not.toBe(pair.etag);
    expect(changed.body).toHaveProperty("as_of");
    expect(await modified()).toBeGreaterThan(modifiedBefore);
  }, 90_000);

  it("drops a quiet account's kept answer when the accounts head moves: its as_of follows the head", async () => {
    // A token per read: tokens here live 5 s, and on a loaded machine the head can take longer to
    // move (a CI run's reads turned 401 while it waited).
    const blockOf = async (address: string) => {
      const answer = await fetch(`${stack.descriptor.gatewayUrl}/data/v1/accounts/${address}/transactions`, {
        headers: { authorization: `Bearer ${await freshToken()}` },
      });
      expect(answer.status).toBe(200);
      return ((await answer.json()) as { as_of: { block_number: number } }).as_of.block_number;
    };
    // Read and kept: nothing ever changes this account, only the head its answer shows as as_of.
    const kept = await blockOf(QUIET);
    // An account never asked about is read from data-query: its answer shows where the head is now.
    const head = await waitFor(
      async () => {
        const now = await blockOf(ss58Encode(randomBytes(32)));
        return now > kept ? now : undefined;
      },
      { what: "the accounts head past the kept answer's block", timeoutMs: 30_000, intervalMs: 500 },
    );
    // The head's change signal follows its commit within milliseconds; the kept answer is long
    // younger than its one-block lifetime (10 s here), so only the signal can have dropped it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await blockOf(QUIET)).toBeGreaterThanOrEqual(head);
  }, 60_000);
});

describe("GET /data/v1/events", () => {
  const url = (topics: string) => `${stack.descriptor.gatewayUrl}/data/v1/events?topics=${topics}`;

  it("reads the data stream through the typed client, resuming from an event's id", async () => {
    const client = createClient({ baseUrl: stack.descriptor.gatewayUrl, apiKey: key });
    const first: DataStreamEvent[] = [];
    for await (const event of client.events.data({ topics: ["heads"] })) {
      if (event.type === "head") first.push(event);
      if (first.length === 3) break;
    }
    const next: DataStreamEvent[] = [];
    for await (const event of client.events.data({ topics: ["heads"] }, { lastEventId: first.at(-1)!.id })) {
      if (event.type === "head") next.push(event);
      if (next.length === 2) break;
    }
    const ids = [...first, ...next].map((event) => event.id!);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort(compareIds)).toEqual(ids);
  }, 90_000);

  it("refuses an unknown topic with a 400 problem, and answers HEAD with the headers and no stream", async () => {
    const refused = await openEventStream(url("heads,weather"), await freshToken());
    expect(refused).toMatchObject({ status: 400, problem: { code: "INVALID_PARAMETER" } });
    const head = await fetch(url("heads"), {
      method: "HEAD",
      headers: { authorization: `Bearer ${await freshToken()}` },
    });
    expect([head.status, head.headers.get("content-type")]).toEqual([200, "text/event-stream; charset=utf-8"]);
  });
});

clientSuite(() => ({
  baseUrl: stack.descriptor.gatewayUrl,
  apiKey: key,
  freeTierKey: freeKey,
  tokenClockToleranceSeconds: CLOCK_TOLERANCE_SECONDS,
}));

tracingSuite(() => ({ stack, receiver, token: freshToken }));
