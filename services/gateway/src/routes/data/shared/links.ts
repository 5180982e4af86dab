import { hrefWithQuery } from "@platform/http";

/**
 * Hrefs of the Data API resources, so every render links with the same spelling. Subnet-scoped
 * lists take `netuid` as a filter; netuid 0 (root) is only listed among pools with include_root.
 */
const BASE = "/data/v1";

const account = (address: string) => `${BASE}/accounts/${encodeURIComponent(address)}`;
export const accountBalanceHref = (address: string) => `${account(address)}/balance/latest`;
export const accountHistoryHref = (address: string) => `${account(address)}/balance/history`;
export const accountTransactionsHref = (address: string) => `${account(address)}/transactions`;

export const coinPriceHref = () => `${BASE}/coin/price/latest`;
export const coinPriceHistoryHref = () => `${BASE}/coin/price/history`;
export const networkStatsHref = () => `${BASE}/network/stats/latest`;
export const networkStatsHistoryHref = () => `${BASE}/network/stats/history`;

export const poolsHref = (netuid?: number) =>
  hrefWithQuery(`${BASE}/subnet-pools/latest`, { netuid, include_root: netuid === 0 ? "true" : undefined });
export const poolHistoryHref = (netuid?: number) => hrefWithQuery(`${BASE}/subnet-pools/history`, { netuid });
export const emissionsHref = (netuid?: number) => hrefWithQuery(`${BASE}/subnet-emissions/latest`, { netuid });
export const emissionsHistoryHref = (netuid?: number) => hrefWithQuery(`${BASE}/subnet-emissions/history`, { netuid });
export const subnetsHref = (netuid?: number) => hrefWithQuery(`${BASE}/subnets/latest`, { netuid });
export const subnetsHistoryHref = (netuid?: number) => hrefWithQuery(`${BASE}/subnets/history`, { netuid });
export const validatorsHref = (netuid: number) => `${BASE}/subnets/${netuid}/validators/latest`;
export const holdersHref = (netuid: number) => `${BASE}/subnets/${netuid}/holders/top`;
export const neuronsHref = (netuid: number) => `${BASE}/subnets/${netuid}/neurons/latest`;

/** The links every subnet-scoped item carries to the other views of its subnet. */
export function subnetLinks(netuid: number) {
  return {
    subnet: { href: subnetsHref(netuid) },
    pool: { href: poolsHref(netuid) },
    "pool-history": { href: poolHistoryHref(netuid) },
    emissions: { href: emissionsHref(netuid) },
    validators: { href: validatorsHref(netuid) },
    holders: { href: holdersHref(netuid) },
  };
}
