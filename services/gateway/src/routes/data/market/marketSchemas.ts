import { component, HalLinkSchema, PageSchema } from "@platform/http";
import { PoolMechanism } from "@platform/proto/common/v1/network";
import { z } from "zod";
import { shortNames } from "../shared/render.js";
import {
  AsOfSchema,
  baseUnits,
  blockNumber,
  collectionLinks,
  count,
  decimal,
  enumName,
  IntervalSchema,
  instant,
  netuid,
  nullableBaseUnits,
  nullableDecimal,
  subnetItemLinks,
} from "../shared/wire.js";

/** The answers of the market group, as renderMarket.ts renders them. */

export const PriceLatestSchema = component(
  "PriceLatest",
  z.object({
    _links: z.object({ self: HalLinkSchema, history: HalLinkSchema, "network-stats": HalLinkSchema }),
    as_of: AsOfSchema.nullable(),
    symbol: z.string(),
    vs: z.string(),
    price: decimal(),
    price_change_1h_pct: nullableDecimal(),
    price_change_24h_pct: nullableDecimal(),
    price_change_7d_pct: nullableDecimal(),
    price_change_30d_pct: nullableDecimal(),
    volume_24h_usd: nullableDecimal(),
    market_cap_usd: nullableDecimal(),
    fully_diluted_market_cap_usd: nullableDecimal(),
    circulating_supply_tao: nullableDecimal(
      "Deprecated: circulating_supply_rao (the same figure in rao, as every amount of the API). Whole TAO, a decimal string",
    ).meta({ deprecated: true }),
    circulating_supply_rao: nullableBaseUnits(
      "The circulating supply (chain issuance), rao; null before the first network stats",
    ),
    total_issuance_rao: nullableBaseUnits(),
    max_supply_tao: decimal("Deprecated: max_supply_rao. Whole TAO, a decimal string").meta({ deprecated: true }),
    max_supply_rao: baseUnits("The fixed maximum supply, rao"),
    source: z
      .object({ provider: z.string(), feed_address: z.string(), updated_at: instant(), round_id: z.string() })
      .nullable(),
  }),
);

export const PriceCandleSchema = component(
  "PriceCandle",
  z.object({
    bucket_start: instant(),
    open: nullableDecimal(),
    high: nullableDecimal(),
    low: nullableDecimal(),
    close: decimal(),
    volume_usd: nullableDecimal(),
    market_cap_usd: nullableDecimal(),
  }),
);

export const PriceHistorySchema = component(
  "PriceHistory",
  z.object({
    _links: collectionLinks({ latest: HalLinkSchema }),
    as_of: AsOfSchema.nullable(),
    vs: z.string(),
    interval: IntervalSchema,
    page: PageSchema,
    _embedded: z.object({ items: z.array(PriceCandleSchema) }),
  }),
);

export const NetworkStatsSchema = component(
  "NetworkStats",
  z.object({
    _links: z.object({
      self: HalLinkSchema,
      "coin-price": HalLinkSchema,
      subnets: HalLinkSchema,
      "subnet-pools": HalLinkSchema,
      "subnet-emissions": HalLinkSchema,
    }),
    as_of: AsOfSchema.nullable(),
    total_issuance_rao: nullableBaseUnits(),
    balances_total_issuance_rao: nullableBaseUnits(),
    max_supply_rao: baseUnits(),
    total_stake_rao: baseUnits(),
    staked_root_rao: baseUnits(),
    staked_alpha_pools_rao: baseUnits(),
    subnet_locked_rao: nullableBaseUnits(),
    free_rao: nullableBaseUnits(),
    block_emission_rao: nullableBaseUnits(),
    blocks_per_day: count(),
    tao_weight: decimal(),
    root_netuid: netuid(),
    subnets_count: count(),
    subnet_limit: count(),
    accounts_count: count().nullable(),
    balance_holders_count: count().nullable(),
    extrinsics_count: count().nullable(),
    transfers_count: count().nullable(),
    counted_since_block: blockNumber().nullable(),
    volume: z.object({
      swap_volume_24h_rao: nullableBaseUnits(
        "TAO swapped through every subnet pool over the 24 hours before as_of, rao: the sum of the pools' volume_24h_rao (stakes' TAO in plus unstakes' TAO out); null when no pool's volume is known",
      ),
      transfer_volume_24h_rao: nullableBaseUnits(),
      coin_volume_24h_usd: nullableDecimal(),
    }),
    registration: z.object({
      subnet_registration_cost_rao: nullableBaseUnits(),
      subnet_min_lock_rao: nullableBaseUnits(),
      subnet_last_lock_rao: nullableBaseUnits(),
      subnet_last_registration_block: blockNumber().nullable(),
      lock_reduction_interval_blocks: count().nullable(),
      neuron_burn: z.object({ min_rao: baseUnits(), median_rao: baseUnits(), max_rao: baseUnits() }).nullable(),
    }),
  }),
);

const POOL_VOLUME_TOTAL =
  "TAO swapped through the pool, rao: stakes' TAO in plus unstakes' TAO out (both directions add; stake moves' and swaps' legs included). Where the runtime keeps SubnetVolume, that counter (since the subnet started) and volume_since_block is null; in runtimes without it (spec 218) the sum of the TAO amounts of the pool's SubtensorModule.StakeAdded and StakeRemoved events over every block from volume_since_block through block_number. null when neither is known";
const POOL_VOLUME_24H =
  "TAO swapped through the pool over the 24 hours before block_number, rao, both directions adding, over the blocks the platform saw (since its first snapshot of the pool when that is less than 24 hours ago); null when no volume is known";
const POOL_VOLUME_SINCE =
  "The first block volume_total_rao counts, when it is the platform's sum of the pool's stake events (the runtime keeps no SubnetVolume): where the platform's unbroken run of this pool's blocks starts (a gap in ingestion, or a block replaced without its successors, starts a new run). null when volume_total_rao is the runtime's SubnetVolume or is null";

const mechanism = () => enumName(shortNames(PoolMechanism, "POOL_MECHANISM_"), "The pool's swap mechanism");

export const SubnetPoolSchema = component(
  "SubnetPool",
  z.object({
    _links: z.object({ self: HalLinkSchema, history: HalLinkSchema, ...subnetItemLinks("pool") }).omit({
      "pool-history": true,
    }),
    netuid: netuid(),
    name: z.string().nullable(),
    symbol: z.string().nullable(),
    mechanism: mechanism(),
    tao_in_rao: baseUnits(),
    alpha_in_nalpha: baseUnits(),
    alpha_out_nalpha: baseUnits(),
    alpha_issuance_nalpha: baseUnits(),
    protocol_alpha_nalpha: nullableBaseUnits(),
    price_tao: decimal(),
    reserve_ratio_tao: decimal(),
    moving_price_tao: nullableDecimal(),
    balancer_quote_weight: nullableDecimal(),
    market_cap_rao: baseUnits(),
    liquidity_rao: baseUnits(),
    root_prop: nullableDecimal(),
    volume_total_rao: nullableBaseUnits(POOL_VOLUME_TOTAL),
    volume_24h_rao: nullableBaseUnits(POOL_VOLUME_24H),
    volume_since_block: blockNumber().nullable().meta({ description: POOL_VOLUME_SINCE }),
    price_change_1h_pct: nullableDecimal(),
    price_change_24h_pct: nullableDecimal(),
    price_change_7d_pct: nullableDecimal(),
    price_usd: nullableDecimal(),
    market_cap_usd: nullableDecimal(),
    block_number: blockNumber(),
    timestamp: instant(),
  }),
);

export const SubnetPoolsSchema = component(
  "SubnetPools",
  z.object({
    _links: collectionLinks({ emissions: HalLinkSchema, subnets: HalLinkSchema }),
    as_of: AsOfSchema.nullable(),
    page: PageSchema,
    _embedded: z.object({ items: z.array(SubnetPoolSchema) }),
  }),
);

export const PoolPointSchema = component(
  "PoolPoint",
  z.object({
    netuid: netuid(),
    bucket_start: instant(),
    block_number: blockNumber(),
    price_open_tao: nullableDecimal(),
    price_high_tao: nullableDecimal(),
    price_low_tao: nullableDecimal(),
    price_close_tao: decimal(),
    moving_price_tao: nullableDecimal(),
    tao_in_rao: baseUnits(),
    alpha_in_nalpha: baseUnits(),
    alpha_out_nalpha: baseUnits(),
    market_cap_rao: baseUnits(),
    volume_rao: baseUnits(
      "TAO swapped through the pool in the bucket (with interval=block, in that block), rao: stakes' TAO in plus unstakes' TAO out, both directions adding, over the blocks the platform saw; 0 when unknown",
    ),
    root_prop: nullableDecimal(),
  }),
);

export const SubnetPoolsHistorySchema = component(
  "SubnetPoolsHistory",
  z.object({
    _links: collectionLinks({ "pool-latest": HalLinkSchema, subnet: HalLinkSchema }),
    as_of: AsOfSchema.nullable(),
    interval: IntervalSchema,
    page: PageSchema,
    _embedded: z.object({ items: z.array(PoolPointSchema) }),
  }),
);

export const SubnetEmissionSchema = component(
  "SubnetEmission",
  z.object({
    _links: z.object({ self: HalLinkSchema, ...subnetItemLinks("emissions") }),
    netuid: netuid(),
    name: z.string().nullable(),
    symbol: z.string().nullable(),
    emission_enabled: z.boolean(),
    tao_emission_share: nullableDecimal(),
    tao_in_emission_rao: baseUnits(),
    excess_tao_rao: nullableBaseUnits(),
    root_sell_tao_rao: nullableBaseUnits(),
    alpha_in_emission_nalpha: nullableBaseUnits(),
    alpha_out_emission_nalpha: nullableBaseUnits(),
    alpha_out_split_nalpha: z
      .object({ owner: baseUnits(), miners: baseUnits(), validators: baseUnits(), root: baseUnits() })
      .nullable(),
    pending_nalpha: z
      .object({ server: baseUnits(), validator: baseUnits(), root_alpha: baseUnits(), owner: baseUnits() })
      .nullable(),
    root_prop: nullableDecimal(),
    tempo: count(),
    last_epoch_block: blockNumber().nullable(),
    next_epoch_block: blockNumber().nullable(),
    blocks_since_last_epoch: count().nullable(),
    per_day_estimate: z.object({ tao_in_rao: baseUnits(), alpha_out_nalpha: nullableBaseUnits() }).nullable(),
  }),
);

export const SubnetEmissionsSchema = component(
  "SubnetEmissions",
  z.object({
    _links: collectionLinks({ "subnet-pools": HalLinkSchema, "network-stats": HalLinkSchema }),
    as_of: AsOfSchema.nullable(),
    block_emission_rao: nullableBaseUnits(),
    total_tao_emission_rao: baseUnits(),
    subnets_emitting: count(),
    owner_cut: nullableDecimal(),
    page: PageSchema,
    _embedded: z.object({ items: z.array(SubnetEmissionSchema) }),
  }),
);

/** The point members every snapshot history shares: its bucket, and the block its reading was taken at. */
const readingOf = {
  bucket_start: instant(),
  block_number: blockNumber().meta({ description: "The block the reading was taken at (the bucket's last one)" }),
  timestamp: instant(),
};

export const NetworkStatsPointSchema = component(
  "NetworkStatsPoint",
  z.object({
    ...readingOf,
    block_hash: z.string(),
    // The latest route's members less what it derives from other series (volume, neuron burn).
    ...NetworkStatsSchema.omit({ _links: true, as_of: true, volume: true }).shape,
  }),
);

export const NetworkStatsHistorySchema = component(
  "NetworkStatsHistory",
  z.object({
    _links: collectionLinks({ latest: HalLinkSchema }),
    as_of: AsOfSchema.nullable(),
    interval: IntervalSchema,
    page: PageSchema,
    _embedded: z.object({ items: z.array(NetworkStatsPointSchema) }),
  }),
);

export const SubnetEmissionPointSchema = component(
  "SubnetEmissionPoint",
  z.object({
    ...readingOf,
    ...SubnetEmissionSchema.omit({ _links: true, name: true, symbol: true }).shape,
  }),
);

export const SubnetEmissionsHistorySchema = component(
  "SubnetEmissionsHistory",
  z.object({
    _links: collectionLinks({ latest: HalLinkSchema, subnet: HalLinkSchema }),
    as_of: AsOfSchema.nullable(),
    netuid: netuid(),
    interval: IntervalSchema,
    page: PageSchema,
    _embedded: z.object({ items: z.array(SubnetEmissionPointSchema) }),
  }),
);
