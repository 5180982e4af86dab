export const HAL_CONTENT_TYPE = "application/hal+json";

export interface HalLink {
  href: string;
  templated?: boolean;
  title?: string;
  type?: string;
}

export type HalLinks = Record<string, HalLink | HalLink[]> & { self: HalLink };

export interface HalResource {
  _links: HalLinks;
  _embedded?: Record<string, HalResource | HalResource[]>;
  [state: string]: unknown;
}

/**
 * Builds a HAL resource: links first, then state, then embedded resources, as clients read it. The
 * result keeps the types of its parts, so a render's output can be held against its answer schema.
 */
export function halResource<L extends HalLinks, S extends Record<string, unknown>>(
  links: L,
  state: S,
): { _links: L } & S;
export function halResource<L extends HalLinks, S extends Record<string, unknown>, E extends Record<string, unknown>>(
  links: L,
  state: S,
  embedded: E,
): { _links: L } & S & { _embedded: E };
export function halResource(
  links: HalLinks,
  state: Record<string, unknown>,
  embedded?: Record<string, unknown>,
): HalResource {
  return { _links: links, ...state, ...(embedded === undefined ? {} : { _embedded: embedded }) } as HalResource;
}

/** A path with a query string built from the defined values only, in a stable order. */
export function hrefWithQuery(path: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}
