/** A HAL link. */
export interface HalLink {
  href: string;
  templated?: boolean;
  title?: string;
  type?: string;
}

/**
 * One page of a collection, as every list route answers: `_links.next` while there is more,
 * `page: {limit, next_cursor, has_more}`, the items under `_embedded.items`.
 */
export interface HalPage<Item = unknown> {
  _links: { self?: HalLink; next?: HalLink | HalLink[]; [rel: string]: HalLink | HalLink[] | undefined };
  page?: { limit: number; next_cursor: string | null; has_more: boolean };
  _embedded?: { items?: Item[]; [rel: string]: unknown };
  [member: string]: unknown;
}

export interface PageReader {
  /** The first page, or the query's page at `cursor` when a page had a cursor but no next link. */
  read(cursor?: string): Promise<unknown>;
  /** The page a `next` link points to. */
  follow(href: string): Promise<unknown>;
}

/**
 * Every page of a collection, in order: follows `_links.next` until a page has none (or, for a
 * page with no links, passes `page.next_cursor` while `page.has_more`). Stops, rather than loops,
 * if the server ever pointed back at the page it just answered.
 */
export async function* walkPages<Item>(reader: PageReader): AsyncGenerator<HalPage<Item>, void, undefined> {
  let page = asPage<Item>(await reader.read());
  const seen = new Set<string>();
  for (;;) {
    yield page;
    const href = nextHref(page);
    const cursor = page.page?.has_more ? (page.page.next_cursor ?? undefined) : undefined;
    const key = href ?? (cursor === undefined ? undefined : `cursor:${cursor}`);
    if (key === undefined || seen.has(key)) return;
    seen.add(key);
    page = asPage<Item>(href === undefined ? await reader.read(cursor) : await reader.follow(href));
  }
}

/** The items of every page, in order. */
export async function* walkItems<Item>(reader: PageReader): AsyncGenerator<Item, void, undefined> {
  for await (const page of walkPages<Item>(reader)) yield* page._embedded?.items ?? [];
}

function nextHref(page: HalPage<unknown>): string | undefined {
  const next = page._links.next;
  const link = Array.isArray(next) ? next[0] : next;
  return typeof link?.href === "string" && link.href !== "" ? link.href : undefined;
}

function asPage<Item>(body: unknown): HalPage<Item> {
  if (typeof body !== "object" || body === null || typeof (body as { _links?: unknown })._links !== "object") {
    throw new TypeError("not a page of a collection: the answer has no _links");
  }
  return body as HalPage<Item>;
}
