import { join } from "node:path";
import { FeeType, type QuoteResponse } from "@platform/proto/intents/v1/intents";
import { createRedis, type Redis } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createQuoteStore, newQuoteId, quoteIndexKey } from "./quoteStore.js";

const dir = tempDir("intents-quote-store-");
let server: RunningRedis;
// Several connections, so a burst reaches Redis interleaved as replicas' saves would.
let clients: Redis[];

const TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

/** A quote shaped like the service's (about 1.3 KB stored, orderData included). */
export function sampleQuote(): QuoteResponse {
  const order = {
    originChainId: "31337",
    destinationChainId: "31338",
    inputToken: TOKEN,
    inputAmount: "100000000",
    outputToken: TOKEN,
    outputAmount: "99850000",
    recipient: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    nonce: "84172938472938472938472938472938472938472938472938472938472938472938472",
    fillDeadline: 1763770900,
  };
  const fee = (type: FeeType, amount: string) => ({ type, amount, token: TOKEN, bps: 5 });
  return {
    quoteId: newQuoteId(),
    originChainId: "31337",
    destinationChainId: "31338",
    inputToken: TOKEN,
    outputToken: TOKEN,
    inputAmount: "100000000",
    outputAmount: "99850000",
    minOutputAmount: "99850000",
    fees: {
      total: fee(FeeType.FEE_TYPE_UNSPECIFIED, "150000"),
      breakdown: [fee(FeeType.FEE_TYPE_FILLER, "50000"), fee(FeeType.FEE_TYPE_GAS, "100000")],
    },
    limits: { minInputAmount: "1000000", maxInputAmount: "100000000000" },
    fillDeadline: 1763770900,
    validUntil: "2026-11-29T00:07:00.000Z",
    estimatedFillTimeSeconds: 10,
    settlement: {
      fullSettler: TOKEN,
      orderDataType: `0x${"71".repeat(32)}`,
      orderData: `0x${"ab".repeat(224)}`,
      order,
    },
  };
}

/** Every stored quote of any key, whatever the key layout. */
async function storedQuotes(redis: Redis): Promise<number> {
  let count = 0;
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", "intents-gateway:quote:*", "COUNT", 1_000);
    count += keys.length;
    cursor = next;
  } while (cursor !== "0");
  return count;
}

beforeAll(async () => {
  server = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
  clients = [0, 1, 2, 3].map((index) => createRedis({ url: server.url, connectionName: `quote-store-${index}` }));
  await waitFor(async () => clients.every((client) => client.status === "ready"), {
    what: "redis connections",
    timeoutMs: 30_000,
  });
}, 60_000);

afterAll(async () => {
  for (const client of clients ?? []) client.disconnect();
  await server?.stop();
  dir.remove();
});

beforeEach(async () => {
  await clients[0]!.flushdb();
});

describe("quote store: a bound per API key", () => {
  it("keeps at most QUOTES_PER_KEY of one key's quotes through a concurrent burst, and another key's are untouched", async () => {
    const cap = 50;
    const stores = clients.map((client) => createQuoteStore(client, 3_600, cap));
    const other = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const quote = sampleQuote();
        await stores[0]!.save({ quote }, 60, "ak_other");
        return quote.quoteId;
      }),
    );

    const burst = Array.from({ length: 600 }, () => sampleQuote());
    await Promise.all(burst.map((quote, index) => stores[index % stores.length]!.save({ quote }, 60, "ak_busy")));

    const redis = clients[0]!;
    expect(await storedQuotes(redis)).toBe(cap + other.length);
    const live = await Promise.all(burst.map((quote) => stores[0]!.load(quote.quoteId, "ak_busy")));
    expect(live.filter((found) => found !== undefined)).toHaveLength(cap);
    expect(await redis.zcard(quoteIndexKey("ak_busy"))).toBe(cap);
    for (const quoteId of other) expect((await stores[0]!.load(quoteId, "ak_other"))?.quote.quoteId).toBe(quoteId);

    // The newest quote is always kept: the ones that expire first make room for it.
    const newest = sampleQuote();
    await stores[1]!.save({ quote: newest, userAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" }, 60, "ak_busy");
    expect(await stores[2]!.load(newest.quoteId, "ak_busy")).toEqual({
      quote: newest,
      userAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    });
    expect(await storedQuotes(redis)).toBe(cap + other.length);
  }, 60_000);

  it("drops the quote that expires first, keeps the index no longer than its last quote, and reads a quote only under its own key", async () => {
    const store = createQuoteStore(clients[0]!, 100, 2);
    const short = sampleQuote();
    const long = sampleQuote();
    await store.save({ quote: long }, 3_000, "ak_one");
    await store.save({ quote: short }, 10, "ak_one");
    const third = sampleQuote();
    await store.save({ quote: third }, 600, "ak_one");
    expect(await store.load(short.quoteId, "ak_one")).toBeUndefined();
    expect((await store.load(long.quoteId, "ak_one"))?.quote.quoteId).toBe(long.quoteId);
    expect((await store.load(third.quoteId, "ak_one"))?.quote.quoteId).toBe(third.quoteId);
    expect(await store.load(long.quoteId, "ak_two")).toBeUndefined();
    expect(await store.load(long.quoteId, "")).toBeUndefined();

    const ttl = await clients[0]!.ttl(quoteIndexKey("ak_one"));
    expect(ttl).toBeGreaterThan(3_000);
    expect(ttl).toBeLessThanOrEqual(3_100);
  }, 30_000);
});
