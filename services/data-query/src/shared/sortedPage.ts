import { invalidArgument } from "@platform/errors";
import type { PageInfo } from "@platform/proto/common/v1/common";
import { type SortOptions, sortNameOf } from "@platform/proto/sorts";
import { decodeCursor, encodeCursor } from "./cursor.js";
import { compareDecimalStrings } from "./numbers.js";
import type { Order } from "./page.js";

/**
 * One page of a small collection sorted in memory (pools, emissions, subnets, a metagraph: at most
 * a few hundred items), by a decimal sort value then by id ascending. The cursor is the position
 * of the last item served (its value and id), so a page continues after that position even when
 * the collection changed in between. Absent values sort as the lowest.
 */
export interface SortedPageRequest<T> {
  items: readonly T[];
  valueOf: (item: T) => string | undefined;
  idOf: (item: T) => number;
  order: Order;
  limit: number;
  /** Empty for the first page. */
  cursor: string;
  /** queryScope of the request: a cursor of another query is INVALID_CURSOR. */
  scope: string;
  /** More fields for the next cursor (e.g. the block a walk is pinned to). */
  carry?: Record<string, string>;
}

function compare(
  left: { value: string | undefined; id: number },
  right: { value: string | undefined; id: number },
  order: Order,
): number {
  let byValue: number;
  if (left.value === undefined || right.value === undefined)
    byValue = left.value === right.value ? 0 : left.value === undefined ? -1 : 1;
  else byValue = compareDecimalStrings(left.value, right.value);
  if (order === "desc") byValue = -byValue;
  return byValue !== 0 ? byValue : left.id - right.id;
}

export function sortedPage<T>(request: SortedPageRequest<T>): { items: T[]; page: PageInfo } {
  const keyed = request.items.map((item) => ({ item, value: request.valueOf(item), id: request.idOf(item) }));
  keyed.sort((left, right) => compare(left, right, request.order));
  let start = 0;
  if (request.cursor !== "") {
    const position = decodeCursor(request.cursor, request.scope, { k: /^(-?\d+(\.\d+)?)?$/, i: /^\d{1,10}$/ });
    const after = { value: position.k === "" ? undefined : position.k!, id: Number(position.i) };
    start = keyed.findIndex((entry) => compare(entry, after, request.order) > 0);
    if (start === -1) start = keyed.length;
  }
  const slice = keyed.slice(start, start + request.limit);
  const hasMore = start + request.limit < keyed.length;
  const last = slice.at(-1);
  const page: PageInfo = { limit: request.limit, hasMore };
  if (hasMore && last !== undefined)
    page.nextCursor = encodeCursor(request.scope, { ...request.carry, k: last.value ?? "", i: String(last.id) });
  return { items: slice.map((entry) => entry.item), page };
}

/**
 * The sort value of a request's sort: the list's reader for the name its proto value stands for in
 * the list's sort options (@platform/proto/sorts, the table the gateway takes its names from);
 * INVALID_PARAMETER for a value the list does not have.
 */
export function sortReaderOf<N extends string, V extends number, T>(
  options: SortOptions<N, V>,
  readers: Readonly<Record<N, (item: T) => string | undefined>>,
  sort: V,
  what: string,
): (item: T) => string | undefined {
  const name = sortNameOf(options, sort);
  if (name === undefined) throw invalidArgument("INVALID_PARAMETER", `sort is not ${what}`, { parameter: "sort" });
  return readers[name];
}
