import { describe, expect, expectTypeOf, it } from "vitest";
import type { ApiClient } from "./client.js";
import type { DataStreamEvent, IntentsStreamEvent } from "./events.js";
import type { components } from "./generated/schema.js";
import { typecheck } from "./testing/typecheck.js";

/*
 * Issue 44, point 1: typed to the last event. The lines below are checked by the test command's
 * type check (tsconfig.tests.json): each `@ts-expect-error` must be an error, and every other line
 * must compile. The compiler's own words for a wrong path are checked by the test at the end.
 */

type Data<Name extends DataStreamEvent["type"]> = Extract<DataStreamEvent, { type: Name }>["data"];

// Each data stream event's data is the document's schema of it.
expectTypeOf<Data<"head">>().toEqualTypeOf<components["schemas"]["HeadEventData"]>();
expectTypeOf<Data<"pool">>().toEqualTypeOf<components["schemas"]["PoolEventData"]>();
expectTypeOf<Data<"price">>().toEqualTypeOf<components["schemas"]["PriceEventData"]>();
expectTypeOf<Data<"pool">["price_tao"]>().toEqualTypeOf<string>();
expectTypeOf<Data<"head">["read_model"]>().toEqualTypeOf<"accounts" | "market" | "subnets">();
expectTypeOf<Data<"closed">["retryAfterSeconds"]>().toEqualTypeOf<number | undefined>();
expectTypeOf<Data<"live">>().toEqualTypeOf<{ position: string }>();
expectTypeOf<DataStreamEvent["type"]>().toEqualTypeOf<
  "head" | "pool" | "price" | "live" | "gap" | "dropped" | "closed"
>();
expectTypeOf<Extract<IntentsStreamEvent, { type: "removed" }>["data"]>().toEqualTypeOf<{ key: string }>();
expectTypeOf<Extract<IntentsStreamEvent, { type: "update" }>["data"]>().toEqualTypeOf<
  components["schemas"]["Intent"]
>();

/** The stream as an integrator reads it: narrowing on the event's name types its data. */
export async function readDataStream(client: ApiClient): Promise<void> {
  for await (const ev of client.events.data({ topics: ["pools", "heads"] })) {
    if (ev.type === "pool") {
      const price: string = ev.data.price_tao;
      const netuid: number = ev.data.netuid;
      void [price, netuid];
    } else if (ev.type === "head") {
      const block: number | undefined = ev.data.as_of?.block_number;
      // @ts-expect-error a head event has no price
      ev.data.price_tao;
      void block;
    }
    // @ts-expect-error not narrowed: only some events have a price
    ev.data.price_tao;
  }
}

/** The preflight body is typed: `userAddress`, and an order or a quote id. */
export async function preflight(client: ApiClient): Promise<void> {
  const userAddress = "0x52908400098527886E0F7030069857D2E4169EE7";
  const checks = await client.post("/intents/v1/preflight", { body: { userAddress, quoteId: "q_1" } });
  const ok: boolean = checks.ok;
  await client.post("/intents/v1/preflight", {
    body: {
      userAddress,
      order: {
        originChainId: 1,
        fillDeadline: 1_800_000_000,
        orderDataType: "0x710ff9c18e186a951058948b3f672872edcc77cebb109fa91b4dd01bda901fcc",
        orderData: "0x00",
      },
    },
  });
  // @ts-expect-error not a preflight body
  await client.post("/intents/v1/preflight", { body: { totally: "wrong" } });
  // @ts-expect-error neither an order nor a quote id
  await client.post("/intents/v1/preflight", { body: { userAddress } });
  // @ts-expect-error an order needs its encoded fields or every decoded one
  await client.post("/intents/v1/preflight", { body: { userAddress, order: { originChainId: 1, fillDeadline: 1 } } });
  void ok;
}

/** A path that is not the API's does not compile (its message is checked below). */
export async function wrongPaths(client: ApiClient): Promise<void> {
  // @ts-expect-error misspelt
  await client.get("/data/v1/acounts/{address}/balance/latest");
  // @ts-expect-error a POST route asked with GET
  await client.get("/intents/v1/preflight");
  // @ts-expect-error not a list route
  client.pages("/data/v1/coin/price/latest");
}

describe("typed to the last event", () => {
  it("names a path that is not in the API in the compiler's error, for get, post and pages", () => {
    const errors = typecheck({
      "wrongPath.ts": [
        'import { createClient } from "@chain-intents/client";',
        'const client = createClient({ baseUrl: "http://localhost" });',
        'await client.get("/data/v1/acounts/{address}/balance/latest");',
        'await client.post("/intents/v1/preflite", { body: {} });',
        'client.pages("/data/v1/coin/price/latest");',
        'await client.get("/data/v1/coin/price/latest");',
        "",
      ].join("\n"),
    });
    expect(errors.map(({ line, message }) => ({ line, message }))).toEqual([
      {
        line: 3,
        message: expect.stringContaining(
          "parameter of type '\"not a GET path of the API: /data/v1/acounts/{address}/balance/latest\"'",
        ),
      },
      { line: 4, message: expect.stringContaining("not a POST path of the API: /intents/v1/preflite") },
      {
        line: 5,
        message: expect.stringContaining(
          "not a list path of the API (a GET route that takes a cursor): /data/v1/coin/price/latest",
        ),
      },
    ]);
  }, 120_000);

  it("runs the typed uses above only as types", () => {
    expectTypeOf(readDataStream).returns.resolves.toBeVoid();
    expectTypeOf(preflight).returns.resolves.toBeVoid();
    expectTypeOf(wrongPaths).returns.resolves.toBeVoid();
  });
});
