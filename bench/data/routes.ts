// The Data API routes bench/data measures, shared by the bench (which loads them through the gateway
// and the baseline) and the baseline process (which serves the same paths). Nothing heavy is
// imported here: the bench process only needs the paths and what a populated answer looks like.

export type Group = "accounts" | "market" | "subnets";

export interface BenchRoute {
  /** Short name in the tables. */
  name: string;
  group: Group;
  /** The path and query, identical on the gateway and on the baseline. */
  path: string;
  /** Whether an answer carries real data; the bench refuses to measure an empty read model. */
  populated(body: HalBody): boolean;
  /** Measured by default (one headline route per group); the others with BENCH_ROUTES=all. */
  headline: boolean;
}

export type HalBody = Record<string, unknown> & { _embedded?: Record<string, unknown[]> };

const embedded = (body: HalBody, name: string): unknown[] => body._embedded?.[name] ?? [];

/**
 * Why these routes: per group, the route a client calls most (the "latest" view) as the headline,
 * and the heaviest common read (a full page, or a list of every pool) as the second.
 * - accounts: balance/latest (4 Redis reads in two waves: head + newest point, then pool prices +
 *   coin price) and the first page of transactions (one ZRANGE + one HMGET of 50 protobuf rows).
 * - market: coin/price/latest (newest price + stats points, then the 5-minute buckets for the
 *   changes) and subnet-pools/latest (every pool with changes, volumes, names and USD).
 * - subnets: validators/latest of one subnet (netuid list, newest metagraph, pool at its block)
 *   and subnets/latest (every subnet with its metagraph, pool and emission).
 */
export function benchRoutes(address: string, netuid: number): BenchRoute[] {
  return [
    {
      name: "accounts: balance/latest",
      group: "accounts",
      path: `/data/v1/accounts/${address}/balance/latest`,
      populated: (body) => BigInt(String(body.balance_total_rao ?? "0")) > 0n && embedded(body, "positions").length > 0,
      headline: true,
    },
    {
      name: "accounts: transactions (first page of 50)",
      group: "accounts",
      path: `/data/v1/accounts/${address}/transactions`,
      populated: (body) => embedded(body, "items").length === 50,
      headline: false,
    },
    {
      name: "market: coin/price/latest",
      group: "market",
      path: "/data/v1/coin/price/latest",
      populated: (body) => typeof body.price === "string" && Number(body.price) > 0,
      headline: true,
    },
    {
      name: "market: subnet-pools/latest",
      group: "market",
      path: "/data/v1/subnet-pools/latest",
      populated: (body) => embedded(body, "items").length >= 3,
      headline: false,
    },
    {
      name: `subnets: subnets/${netuid}/validators/latest`,
      group: "subnets",
      path: `/data/v1/subnets/${netuid}/validators/latest`,
      populated: (body) => embedded(body, "items").length > 0,
      headline: true,
    },
    {
      name: "subnets: subnets/latest",
      group: "subnets",
      path: "/data/v1/subnets/latest",
      populated: (body) => embedded(body, "items").length >= 3,
      headline: false,
    },
  ];
}
