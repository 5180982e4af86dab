import { describe, expectTypeOf, it } from "vitest";
import type { ApiClient, ItemOf, ResponseBody } from "./client.js";
import type { IntentsStreamEvent } from "./events.js";
import type { components } from "./generated/schema.js";

/*
 * Type-level: the results of the client's methods are the document's answer schemas. This file is
 * compiled by the test command's type check (tsconfig.tests.json): a documented field missing from
 * a result type, or a wrong use that compiles (a misspelt member, a string read as a number), fails
 * it. The `it` below only makes vitest list it.
 */

type Balance = ResponseBody<"/data/v1/accounts/{address}/balance/latest", "get">;
type Transactions = ResponseBody<"/data/v1/accounts/{address}/transactions", "get">;
type Quote = ResponseBody<"/intents/v1/quotes", "post">;
type Token = ResponseBody<"/auth", "post">;

// Every member of a balance, exactly: one added to or dropped from the answer changes this list.
expectTypeOf<keyof Balance>().toEqualTypeOf<
  | "_links"
  | "as_of"
  | "address"
  | "balance_free_rao"
  | "balance_reserved_rao"
  | "balance_frozen_rao"
  | "balance_staked_rao"
  | "balance_staked_root_rao"
  | "balance_staked_alpha_value_rao"
  | "balance_total_rao"
  | "valuation"
  | "price_usd"
  | "balance_total_usd"
  | "positions_count"
  | "_embedded"
>();
expectTypeOf<Balance["balance_free_rao"]>().toEqualTypeOf<string>();
expectTypeOf<Balance["price_usd"]>().toEqualTypeOf<string | null>();
expectTypeOf<Balance["positions_count"]>().toEqualTypeOf<number>();
expectTypeOf<Balance["valuation"]>().toEqualTypeOf<"spot" | "unstake" | null>();
expectTypeOf<NonNullable<Balance["as_of"]>>().toEqualTypeOf<components["schemas"]["AsOf"]>();
expectTypeOf<Balance["_embedded"]["positions"][number]>().toEqualTypeOf<components["schemas"]["Position"]>();
expectTypeOf<Transactions["page"]>().toEqualTypeOf<components["schemas"]["Page"]>();
expectTypeOf<ItemOf<"/data/v1/accounts/{address}/transactions">>().toEqualTypeOf<
  components["schemas"]["Transaction"]
>();
expectTypeOf<Quote["settlement"]>().toEqualTypeOf<components["schemas"]["Quote"]["settlement"]>();
expectTypeOf<Token["refresh_token"]>().toEqualTypeOf<string | undefined>();
expectTypeOf<Extract<IntentsStreamEvent, { type: "status" }>["data"]>().toEqualTypeOf<
  components["schemas"]["Intent"]
>();

/** Uses as an integrator writes them: the right ones compile, the wrong ones must not. */
export async function integratorUse(client: ApiClient): Promise<void> {
  const balance = await client.get("/data/v1/accounts/{address}/balance/latest", {
    params: { path: { address: "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY" } },
  });
  const free: string = balance.balance_free_rao;
  const total: bigint = BigInt(balance.balance_total_rao) + BigInt(free);
  // @ts-expect-error a misspelt member is not in the answer
  balance.balance_fre_rao;
  // @ts-expect-error amounts are decimal strings, not numbers
  const asNumber: number = balance.balance_free_rao;
  // @ts-expect-error as_of may be null (nothing read yet)
  balance.as_of.block_number;
  for await (const page of client.pages("/data/v1/subnets/latest")) {
    const netuids: number[] = page._embedded.items.map((subnet) => subnet.netuid);
    // @ts-expect-error a page's items are subnets, which have no balance
    page._embedded.items[0]?.balance_free_rao;
    void netuids;
  }
  for await (const transaction of client.paginate("/data/v1/accounts/{address}/transactions", {
    params: { path: { address: "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY" } },
  })) {
    const amount: string | null = transaction.amount_rao;
    void amount;
  }
  const quote = await client.post("/intents/v1/quotes", {
    body: {
      originChainId: 1,
      destinationChainId: 964,
      inputToken: "0x0000000000000000000000000000000000000001",
      outputToken: "0x0000000000000000000000000000000000000002",
      amount: "1000",
      userAddress: "0x0000000000000000000000000000000000000003",
    },
  });
  const minimum: string = quote.minOutputAmount;
  void [total, asNumber, minimum];
}

describe("client result types", () => {
  it("come from the document (checked by the type check of the tests)", () => {
    expectTypeOf(integratorUse).returns.resolves.toBeVoid();
  });
});
