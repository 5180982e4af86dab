import { type HalLink, type HalLinks, halResource, hrefWithQuery } from "./hal.js";

/** One page as a backend reports it. */
export interface PageState {
  limit: number;
  nextCursor?: string | undefined;
  hasMore: boolean;
}

/** The `page` member every collection carries. */
export function pageBody(page: PageState): { limit: number; next_cursor: string | null; has_more: boolean } {
  return {
    limit: page.limit,
    next_cursor: page.hasMore && page.nextCursor ? page.nextCursor : null,
    has_more: page.hasMore,
  };
}

export interface CollectionOptions<
  I = unknown,
  S extends Record<string, unknown> = Record<string, unknown>,
  L extends Record<string, HalLink> = Record<string, HalLink>,
> {
  /** The collection's path, without query. */
  path: string;
  /** The query that produced this page, canonical form, without the cursor. */
  query: Record<string, string | number | undefined>;
  /** The cursor this page was read with (absent for the first page). */
  cursor?: string | undefined;
  page: PageState;
  items: I[];
  /** Related resources besides self and next. */
  links?: L;
  /** State members shown before `page` (as_of, the subject of the list...). */
  state?: S;
}

/** A page of a collection as halCollection renders it, typed by its items and state. */
export type HalCollection<I, S, L = Record<never, HalLink>> = { _links: { self: HalLink; next?: HalLink } & L } & S & {
    page: ReturnType<typeof pageBody>;
    _embedded: { items: I[] };
  };

/**
 * A page of a collection as HAL: `_links.self` (this page), `_links.next` (the same query with the
 * next cursor) when there is more, `page: {limit, next_cursor, has_more}`, items under
 * `_embedded.items`. Following `next` until it is absent walks the whole collection.
 */
export function halCollection<
  I,
  S extends Record<string, unknown> = Record<never, unknown>,
  L extends Record<string, HalLink> = Record<never, HalLink>,
>(options: CollectionOptions<I, S, L>): HalCollection<I, S, L> {
  // An empty cursor asks for the first page, like none.
  const href = (cursor: string | undefined) =>
    hrefWithQuery(options.path, { ...options.query, cursor: cursor || undefined });
  const links: HalLinks = { self: { href: href(options.cursor) } };
  if (options.page.hasMore && options.page.nextCursor) links.next = { href: href(options.page.nextCursor) };
  return halResource(
    { ...links, ...options.links },
    { ...options.state, page: pageBody(options.page) },
    { items: options.items },
  ) as HalCollection<I, S, L>;
}
