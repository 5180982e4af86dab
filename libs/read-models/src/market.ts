import { DATA_PREFIX } from "./hashTags.js";
import type { BucketName } from "./series.js";

/**
 * The market read model in Redis (`rm:{data}:market:` prefix), written only by the projector's `market`
 * projection (consumer group `projector-market`, topics chain.network.v1 and oracle.prices.v1) and
 * read by data-query's MarketService (and, for pool prices at a block, its AccountsService): both
 * import this layout.
 *
 * Series (series.ts). A series is a zset of SeriesPoint JSON scored by ordinal
 * (block * 100000 + log index): `{o, b: block, h: block hash, t: block time ms, p: base64 of the
 * event's protobuf, m: measure, a: {"5m"|"1h"|"4h"|"1d": BucketAggregate}}`. The newest point is the
 * latest snapshot; the point with the greatest ordinal at or below `block * 100000 + 99999` is the
 * state at that block. A bucket zset holds BucketAggregate JSON `{s: bucket start (unix s, UTC
 * aligned), o, h, l, c, v0, v1, b: last block, x: close values}` scored by `s`.
 *
 * - `rm:{data}:market:pool:<netuid>:points` PoolSnapshot series (newest 7,300 points: one per snapshot
 *   block, enough for a 7,200-block window). Measure: price = price_tao, cumulative =
 *   volume_total_rao (`SubnetVolume`), or where the snapshot has none but its block's volume
 *   (block_volume_rao, held as `u`) the fold's never-decreasing sum of the block volumes, beside the
 *   running volume of the unbroken run through the point (`w`, series.ts RunningVolume); close =
 *   {tao_in_rao, alpha_in_nalpha, alpha_out_nalpha, alpha_issuance_nalpha, moving_price_tao,
 *   root_prop?}.
 *   `rm:{data}:market:pool:<netuid>:buckets:<interval>` OHLC of price_tao; v0 / v1 = cumulative volume
 *   before the bucket and at its close; f0 / f1 the same of the order-flow counters (m.flow: TAO
 *   bought and sold, buys and sells, from the block flows `u.f`). Kept: 5m 35 days, 1h 400 days, 4h
 *   and 1d for ever.
 * - Distinct traders per pool (the projector's traders.ts, Redis only): `…:pool:<netuid>:buyers:log`
 *   and `…:sellers:log` zsets of `<block>:<hash tag>:<coldkey>` scored by block (traderBlockTag: the hash's first 16 hex digits), one member per coldkey
 *   that bought (sold) in a block, trimmed to the newest TRADER_WINDOW_BLOCKS blocks;
 *   `…:pool:<netuid>:buyers:keys` and `…:sellers:keys` hashes coldkey -> its members in the log
 *   (HLEN: the distinct coldkeys); `…:pool:<netuid>:traders` zset of
 *   `<block>:<hash tag>:<buyers>:<sellers>` scored by block, the distinct counts through each of the
 *   newest TRADER_COUNTS_KEPT blocks. A removed block's members and counts are taken out. Not
 *   kept in PostgreSQL: a restore replays them from the restored pool points (their block_flow).
 * - `rm:{data}:market:pools` set of netuids with a standing pool snapshot newer than the subnet's removal
 *   (NETUID_NOT_FOUND otherwise).
 * - `rm:{data}:market:emission:<netuid>:points` EmissionSnapshot series (newest 64), no buckets.
 *   `rm:{data}:market:emissions` set of netuids with one (newer than the subnet's removal).
 * - `rm:{data}:market:removed-subnets` hash netuid -> `<block>:<hash>` of the subnet's removal
 *   (SubnetRemoved; subnetRemovals.ts).
 * - `rm:{data}:market:stats:points` NetworkStatsSnapshot series (newest 64), no buckets. A point whose
 *   snapshot carries its block's own counts holds them as `k` ({ph: parent hash, x: extrinsics,
 *   r: Balances.Transfer events}) and the running counts through its block as `n` ({s: first block
 *   counted, x, r}): the point below's `n` plus its own when that point is its parent, else a new
 *   run from its block (series.ts RunningCounts). Each point carries its sum, so trimming the series
 *   loses nothing, and taking points off the tail leaves the sum of the point below standing.
 * - `rm:{data}:market:price:<asset>:<vs>:points` PriceObserved series (newest 10,000; asset as published,
 *   e.g. TAO, vs lowercase). Measure: price = price. Buckets
 *   `rm:{data}:market:price:<asset>:<vs>:buckets:<interval>` as for pools (no volume).
 *   `rm:{data}:market:price:pairs` set of `<asset>:<vs>`.
 *
 * Projection state: `rm:{data}:market:price:removed` set of `<blockHash>:<logIndex>` of price rounds a
 * ChainEventRemoved took back (the removal travels on oracle.prices.v1 with the asset's key, after the
 * round it removes; before, it travelled on chain.network.v1 and could overtake the round, and such
 * records may remain in that topic's tail, so a removal read first still leaves a tombstone);
 * `rm:{data}:market:offset:<topic>:<partition>` the last applied offset, written in the same
 * MULTI/EXEC as the changes; `rm:{data}:market:projection` the marker whose loss (FLUSHALL) makes the
 * supervisor replay both topics from offset 0; `rm:{data}:market:version` a token every commit replaces
 * (versions.ts).
 */
export type TraderSide = "buyers" | "sellers";

/** The blocks a pool's distinct buyers and sellers are counted over: 24 hours of 12-second blocks. */
export const TRADER_WINDOW_BLOCKS = 7_200;
/** How many of a pool's newest blocks keep their trader counts (`…:traders`), for reads at a recent block. */
export const TRADER_COUNTS_KEPT = 64;

/**
 * How a trader key names a block's hash: its first 16 hex digits, lowercase. Two blocks of one
 * height (a reorganisation's branches) differ there but for a chance of 2^-64, and every log member
 * is 48 bytes shorter than with the whole hash (the logs hold a member per trader and block).
 */
export const traderBlockTag = (hash: string) => hash.toLowerCase().slice(0, 18);

/** The prefix of a block's members in a pool's trader logs and `…:traders` zset. */
export const traderBlockPrefix = (block: number | string, hash: string) => `${block}:${traderBlockTag(hash)}:`;

export const marketKeys = {
  poolPoints: (netuid: number) => `${DATA_PREFIX}market:pool:${netuid}:points`,
  poolBuckets: (netuid: number, interval: BucketName) => `${DATA_PREFIX}market:pool:${netuid}:buckets:${interval}`,
  pools: `${DATA_PREFIX}market:pools`,
  emissionPoints: (netuid: number) => `${DATA_PREFIX}market:emission:${netuid}:points`,
  emissions: `${DATA_PREFIX}market:emissions`,
  statsPoints: `${DATA_PREFIX}market:stats:points`,
  pricePoints: (asset: string, vs: string) => `${DATA_PREFIX}market:price:${asset}:${vs}:points`,
  priceBuckets: (asset: string, vs: string, interval: BucketName) =>
    `${DATA_PREFIX}market:price:${asset}:${vs}:buckets:${interval}`,
  pricePairs: `${DATA_PREFIX}market:price:pairs`,
  priceRemoved: `${DATA_PREFIX}market:price:removed`,
  removedSubnets: `${DATA_PREFIX}market:removed-subnets`,
  poolTraders: (netuid: number, side: TraderSide) => `${DATA_PREFIX}market:pool:${netuid}:${side}:log`,
  poolTraderKeys: (netuid: number, side: TraderSide) => `${DATA_PREFIX}market:pool:${netuid}:${side}:keys`,
  poolTraderCounts: (netuid: number) => `${DATA_PREFIX}market:pool:${netuid}:traders`,
  offset: (topic: string, partition: number) => `${DATA_PREFIX}market:offset:${topic}:${partition}`,
  marker: `${DATA_PREFIX}market:projection`,
} as const;
