/**
 * Members of the contract on their way out (services/gateway/CHANGELOG.md): each is marked
 * `deprecated: true` in the document, and the answers that carry it say so in their headers, a
 * `Deprecation` date (RFC 9745) and a `Sunset` date (RFC 8594) six months later, after which the
 * member goes in a major version.
 */
export interface Deprecation {
  /** What goes, and what replaces it. */
  what: string;
  since: string;
  sunset: string;
}

/** `coin/price/latest`'s supply in whole TAO, replaced by the same figures in rao (the API's one unit rule). */
export const SUPPLY_IN_TAO: Deprecation = {
  what: "circulating_supply_tao and max_supply_tao, replaced by circulating_supply_rao and max_supply_rao",
  since: "2026-12-06T00:00:00Z",
  sunset: "2027-06-06T00:00:00Z",
};

/** The headers of an answer that carries `deprecation`'s members. */
export function deprecationHeaders(deprecation: Deprecation): Record<string, string> {
  return {
    Deprecation: `@${Math.floor(Date.parse(deprecation.since) / 1_000)}`,
    Sunset: new Date(deprecation.sunset).toUTCString(),
  };
}

/** The same headers as the document describes them. */
export function deprecationHeaderDocs(deprecation: Deprecation): Record<string, string> {
  return {
    Deprecation: `RFC 9745: this answer carries deprecated members (${deprecation.what}), deprecated since ${deprecation.since}`,
    Sunset: `RFC 8594: the deprecated members go after ${deprecation.sunset} (services/gateway/CHANGELOG.md)`,
  };
}
