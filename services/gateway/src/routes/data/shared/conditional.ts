import type { AnyRoute } from "@platform/http";
import { parseAccount } from "@platform/subtensor";
import { NOT_MODIFIED_COST_SHARE, notModifiedCost } from "../../../access/notModifiedCost.js";
import type { Dependency } from "../../../http/conditional/changeClock.js";
import { conditionalRead } from "../../../http/conditional/conditionalRoute.js";

/**
 * Every Data API route is a conditional read (API.md, "Live updates and conditional reads"): a
 * strong ETag of what it renders, If-None-Match answered 304, Cache-Control until the next block,
 * and a 304 proven without calling data-query for as long as the read models it was read from
 * (`dependsOn`, as data-query reads them) have not changed.
 */
export function dataRead<R extends AnyRoute>(
  route: R,
  dependsOn: (params: Record<string, unknown>) => Dependency[],
): R {
  const cost = route.cost ?? 1;
  return conditionalRead(
    route,
    { dependsOn },
    {
      cacheControl:
        "`private, max-age=<s>`: the seconds until the next block is expected after `as_of` (its timestamp plus the block time, at most one block time, 0 once a block is overdue). An answer at a block given by number in `block_number` whose `as_of.finality` is `finalized` never changes: `private, max-age=31536000, immutable`.",
      notModified: `the representation named in If-None-Match is still the current one; no body. It spends ${notModifiedCost(cost)} units of the rate budget (${NOT_MODIFIED_COST_SHARE} of the route's ${cost}) when the gateway proves it current without asking the backend (it kept the answer and the read models it came from have not changed since), and the full ${cost} otherwise.`,
    },
  );
}

/** Answers read from these projections only. */
export const readFrom =
  (...projections: Array<"market" | "subnets">) =>
  (): Dependency[] =>
    projections;

/**
 * Answers about the account in the `address` path parameter (SS58, public key or EVM address, all
 * the same account), read from its entries in the accounts projection and from these others too
 * (balances are valued at the market projection's prices). The accounts projection's signals name
 * accounts by lower-case public key.
 */
export const readAboutAccount =
  (...projections: Array<"market" | "subnets">) =>
  (params: Record<string, unknown>): Dependency[] => [...projections, accountDependency(params.address)];

function accountDependency(address: unknown): Dependency {
  try {
    return { account: parseAccount(String(address)).publicKey.toLowerCase() };
  } catch {
    return "accounts";
  }
}
