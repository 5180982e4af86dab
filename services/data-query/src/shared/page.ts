import { invalidArgument } from "@platform/errors";
import { type PageRequest, SortOrder } from "@platform/proto/common/v1/common";

export interface PageRules {
  defaultLimit: number;
  maxLimit: number;
}

/** The limit to apply: the route's default for 0/absent, INVALID_PARAMETER above its maximum. */
export function pageLimitOf(page: PageRequest | undefined, rules: PageRules): number {
  const limit = page?.limit ?? 0;
  if (limit === 0) return rules.defaultLimit;
  if (limit > rules.maxLimit)
    throw invalidArgument("INVALID_PARAMETER", `limit must be between 1 and ${rules.maxLimit}`, { parameter: "limit" });
  return limit;
}

export type Order = "asc" | "desc";

/** The sort order to apply; UNSPECIFIED is the route's default. */
export function orderOf(order: SortOrder | undefined, fallback: Order): Order {
  switch (order ?? SortOrder.SORT_ORDER_UNSPECIFIED) {
    case SortOrder.SORT_ORDER_UNSPECIFIED:
      return fallback;
    case SortOrder.SORT_ORDER_ASC:
      return "asc";
    case SortOrder.SORT_ORDER_DESC:
      return "desc";
    default:
      throw invalidArgument("INVALID_PARAMETER", "order must be asc or desc", { parameter: "order" });
  }
}
