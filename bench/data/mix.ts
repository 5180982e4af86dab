// The realistic mix of bench/data (mixRun.ts): which Data API reads, over which accounts and subnets,
// in what proportions, and which requests are conditional. Everything here is deterministic (one
// seed), so both sides of a run, and every run, send the same request sequence.
import { createHash } from "node:crypto";
import { ss58Encode } from "../../libs/subtensor/src/address/ss58.js";
import { seededRandom, weightedPicker, zipfSampler } from "./zipf.js";

/** Each read of the mix. */
export type MixRoute =
  | "balance"
  | "transactions"
  | "validators"
  | "holders"
  | "subnetPool"
  | "subnets"
  | "price"
  | "pools"
  | "stats"
  | "emissions"
  | "balanceAt"
  | "subnetPoolAt"
  | "validatorsAt"
  | "statsAt"
  | "statsHistory"
  | "emissionsHistory"
  | "subnetsHistory"
  | "poolHistory"
  | "priceHistory";

/**
 * Share of requests per read, in percent. A wallet polls its balance more than anything else and
 * its history less; explorers and dashboards read a subnet's validators first, then its holders and
 * its pool; the market views are one URL each and shared by every client, so they are the hottest
 * single URLs of the mix.
 *
 * Since issue 41 (history in PostgreSQL, reads at a past block) 13 % of the mix reads history or a
 * past block, taken from the reads they stand beside (until then: balance 40, transactions 15,
 * validators 12, holders 5, subnetPool 5, price 10, pools 5):
 * - `block_number` reads, 7 %: exchanges and accountants reconcile against finalized state, so an
 *   account's balance at `finalized` (3 %) and a subnet's pool at a block (2 %: an explorer's block
 *   page, a price at a trade's block); a subnet's validators and the network totals at a block (1 %
 *   each: explorers' block pages). A numbered block is Zipf-ranked by its distance from the head
 *   when the mix is built (mixBlocks: recent blocks most, some older than Redis' 64-point windows,
 *   read from PostgreSQL), half of them `finalized`. Each is a URL of its own, and an answer at a
 *   finalized block never changes.
 * - history routes, 6 %: a chart is fetched once per page view and then follows the latest route, so
 *   far less often than the latest views: a subnet's pool chart 2 % (the most viewed chart on
 *   explorers), the TAO price chart, the network totals, a subnet's emission and its settings 1 %
 *   each; each with the route's default window (7 days, 1 h buckets).
 */
export const MIX_WEIGHTS: Record<MixRoute, number> = {
  balance: 35,
  transactions: 13,
  validators: 10,
  holders: 4,
  subnetPool: 4,
  subnets: 3,
  price: 9,
  pools: 4,
  stats: 3,
  emissions: 2,
  balanceAt: 3,
  subnetPoolAt: 2,
  validatorsAt: 1,
  statsAt: 1,
  statsHistory: 1,
  emissionsHistory: 1,
  subnetsHistory: 1,
  poolHistory: 2,
  priceHistory: 1,
};

/** Each read's path: over an account (Zipf rank), over a subnet (Zipf rank), at a block (Zipf rank), or one URL. */
const PATHS: Record<MixRoute, (account: string, netuid: number, block: string) => string> = {
  balance: (account) => `/data/v1/accounts/${account}/balance/latest`,
  transactions: (account) => `/data/v1/accounts/${account}/transactions`,
  validators: (_account, netuid) => `/data/v1/subnets/${netuid}/validators/latest`,
  holders: (_account, netuid) => `/data/v1/subnets/${netuid}/holders/top`,
  subnetPool: (_account, netuid) => `/data/v1/subnet-pools/latest?netuid=${netuid}`,
  subnets: () => "/data/v1/subnets/latest",
  price: () => "/data/v1/coin/price/latest",
  pools: () => "/data/v1/subnet-pools/latest",
  stats: () => "/data/v1/network/stats/latest",
  emissions: () => "/data/v1/subnet-emissions/latest",
  balanceAt: (account) => `/data/v1/accounts/${account}/balance/latest?block_number=finalized`,
  subnetPoolAt: (_account, netuid, block) => `/data/v1/subnet-pools/latest?netuid=${netuid}&block_number=${block}`,
  validatorsAt: (_account, netuid, block) => `/data/v1/subnets/${netuid}/validators/latest?block_number=${block}`,
  statsAt: (_account, _netuid, block) => `/data/v1/network/stats/latest?block_number=${block}`,
  statsHistory: () => "/data/v1/network/stats/history",
  emissionsHistory: (_account, netuid) => `/data/v1/subnet-emissions/history?netuid=${netuid}`,
  subnetsHistory: (_account, netuid) => `/data/v1/subnets/history?netuid=${netuid}`,
  poolHistory: (_account, netuid) => `/data/v1/subnet-pools/history?netuid=${netuid}`,
  priceHistory: () => "/data/v1/coin/price/history",
};

/** The path of `route` for an account, a subnet and a block (the ones it does not use are ignored). */
export const mixPath = (route: MixRoute, account: string, netuid: number, block = "finalized"): string =>
  PATHS[route](account, netuid, block);

/**
 * The numbered `block_number` values of the mix, hottest first: every block from the one below
 * `head` down to `first`, Zipf-ranked by distance from the head (an explorer's readers look at recent
 * blocks most). buildMix sends `finalized` for half of the block reads and a ranked block for the
 * other half.
 */
export function mixBlocks(head: number, first: number): string[] {
  const blocks: string[] = [];
  for (let block = head - 1; block >= first; block -= 1) blocks.push(String(block));
  return blocks;
}

/**
 * `count` SS58 accounts, hottest first: the seeded ones (with balances, positions, transfers) at the
 * top ranks, then accounts derived from their rank (SHA-256 of `bench-data-mix/<rank>` as the public
 * key), which have never been on chain: the API answers them 200 with zeros and empty pages.
 */
export function mixAccounts(seeded: readonly string[], count: number): string[] {
  const accounts = [...seeded];
  for (let rank = accounts.length; accounts.length < count; rank += 1)
    accounts.push(ss58Encode(createHash("sha256").update(`bench-data-mix/${rank}`).digest()));
  return accounts.slice(0, count);
}

export interface MixOptions {
  /** Accounts by Zipf rank, hottest first (mixAccounts). */
  accounts: readonly string[];
  /** Subnets by Zipf rank, hottest first. */
  netuids: readonly number[];
  /**
   * Past blocks by Zipf rank, hottest first (mixBlocks); half of the block reads ask for `finalized`
   * instead (all of them when there are none).
   */
  blocks: readonly string[];
  /** Requests in the sequence; a side that gets to its end starts it again. */
  length: number;
  seed: number;
  /** Zipf exponent over accounts and over subnets. */
  exponent: number;
  /** Share of requests sent with If-None-Match. */
  conditionalShare: number;
}

export interface Mix {
  /** Each distinct path and query the sequence names. */
  urls: string[];
  routeOfUrl: MixRoute[];
  /** The request sequence, as indices into `urls`. */
  sequence: Int32Array;
  /**
   * 1 where the request goes with If-None-Match: the ETag of the latest answer the side got for the
   * same URL. Only requests whose URL came earlier in the sequence are chosen, at random (seeded),
   * and the share is kept at `conditionalShare` of every prefix of the sequence (from the first
   * few hundred requests on), so a side that gets through fewer requests sends the same share.
   */
  conditional: Uint8Array;
}

/** The seeded request sequence of the mix. */
export function buildMix(options: MixOptions): Mix {
  const random = seededRandom(options.seed);
  const pickRoute = weightedPicker(MIX_WEIGHTS, random);
  const pickAccount = zipfSampler(options.accounts.length, options.exponent, random);
  const pickSubnet = zipfSampler(options.netuids.length, options.exponent, random);
  const pickBlock =
    options.blocks.length === 0 ? () => 0 : zipfSampler(options.blocks.length, options.exponent, random);
  const atBlock: ReadonlySet<MixRoute> = new Set(["subnetPoolAt", "validatorsAt", "statsAt"]);
  const block = (route: MixRoute) =>
    !atBlock.has(route) || options.blocks.length === 0 || random() < 0.5 ? "finalized" : options.blocks[pickBlock()]!;
  const urls: string[] = [];
  const routeOfUrl: MixRoute[] = [];
  const indexOf = new Map<string, number>();
  const sequence = new Int32Array(options.length);
  const conditional = new Uint8Array(options.length);
  let marked = 0;
  for (let at = 0; at < options.length; at += 1) {
    const route = pickRoute();
    const url = mixPath(route, options.accounts[pickAccount()]!, options.netuids[pickSubnet()]!, block(route));
    let index = indexOf.get(url);
    const seenBefore = index !== undefined;
    if (index === undefined) {
      index = urls.length;
      indexOf.set(url, index);
      urls.push(url);
      routeOfUrl.push(route);
    }
    sequence[at] = index;
    // Half of the repeated URLs are candidates while the share is behind its target: the chosen
    // ones spread over the sequence instead of bunching where the target is first in reach.
    if (seenBefore && marked < options.conditionalShare * (at + 1) && random() < 0.5) {
      conditional[at] = 1;
      marked += 1;
    }
  }
  return { urls, routeOfUrl, sequence, conditional };
}

/** What the sequence holds: share of requests per read, distinct URLs, conditional share, hottest URLs. */
export function describeMix(mix: Mix, prefix: number) {
  const length = Math.min(prefix, mix.sequence.length);
  const perRoute: Partial<Record<MixRoute, number>> = {};
  const perUrl = new Map<number, number>();
  let conditional = 0;
  for (let at = 0; at < length; at += 1) {
    const index = mix.sequence[at]!;
    const route = mix.routeOfUrl[index]!;
    perRoute[route] = (perRoute[route] ?? 0) + 1;
    perUrl.set(index, (perUrl.get(index) ?? 0) + 1);
    conditional += mix.conditional[at]!;
  }
  const hottest = [...perUrl.entries()].sort((left, right) => right[1] - left[1]).slice(0, 5);
  return {
    requests: length,
    distinctUrls: perUrl.size,
    conditionalShare: conditional / length,
    routeShare: Object.fromEntries(Object.entries(perRoute).map(([route, count]) => [route, count / length])),
    hottest: hottest.map(([index, count]) => ({ url: mix.urls[index]!, share: count / length })),
  };
}
