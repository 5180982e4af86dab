import { component } from "@platform/http";
import { PoolMechanism } from "@platform/proto/common/v1/network";
import { z } from "zod";
import { shortNames } from "../shared/render.js";
import {
  asOf,
  baseUnits,
  blockNumber,
  collectionLinks,
  count,
  decimal,
  embeddedItems,
  enumName,
  IntervalSchema,
  instant,
  integerText,
  link,
  linksOf,
  netuid,
  nullableBaseUnits,
  nullableDecimal,
  page,
  subnetItemLinks,
} from "../shared/wire.js";

/** The answers of the market group, as renderMarket.ts renders them. */

/** A percent change: "5" means +5 %, "-0.5" means -0.5 %. */
const percentChange = (period: string, of: string) =>
  nullableDecimal(
    `Change of ${of} over the ${period} before as_of, in percent (5 means +5 %, -0.5 means -0.5 %), 12 decimal places toward zero: against the close of the last five-minute bucket that ended at or before as_of minus ${period}. null while the series does not reach back that far`,
  );
/** A subnet's name and symbol, from its identity and TokenSymbol. */
const subnetName = () =>
  z.string().nullable().meta({ description: "The subnet's name (its identity's subnet_name); null when none is set" });
const subnetSymbol = () =>
  z
    .string()
    .nullable()
    .meta({ description: "The subnet's token symbol (TokenSymbol, e.g. α or ש); null when unknown" });

export const PriceLatestSchema = component(
  "PriceLatest",
  z.object({
    _links: linksOf({
      self: link("This answer"),
      history: link("The price's candles (coin/price/history)"),
      "network-stats": link("The network's totals (network/stats/latest)"),
    }),
    as_of: asOf(),
    symbol: z.string().meta({ description: "The asset priced: TAO" }),
    vs: z.string().meta({ description: "The currency it is priced in, lowercase: usd" }),
    price: decimal(
      "The price of one TAO in the vs currency (USD), a decimal string: the newest round of the price feed at as_of (its answer over 10^decimals)",
    ),
    price_change_1h_pct: percentChange("hour", "the price"),
    price_change_24h_pct: percentChange("24 hours", "the price"),
    price_change_7d_pct: percentChange("7 days", "the price"),
    price_change_30d_pct: percentChange("30 days", "the price"),
    volume_24h_usd: nullableDecimal(
      "Traded volume of TAO over 24 hours, USD: always null, since the price feed (an on-chain oracle) gives no volume",
    ),
    market_cap_usd: nullableDecimal(
      "price × circulating supply (circulating_supply_rao in TAO), USD, exact; null before the first network stats",
    ),
    fully_diluted_market_cap_usd: nullableDecimal("price × the maximum supply (21,000,000 TAO), USD, exact"),
    circulating_supply_tao: nullableDecimal(
      "Deprecated: circulating_supply_rao (the same figure in rao, as every amount of the API). Whole TAO, a decimal string",
    ).meta({ deprecated: true }),
    circulating_supply_rao: nullableBaseUnits(
      "The circulating supply (chain issuance), rao; null before the first network stats",
    ),
    total_issuance_rao: nullableBaseUnits(
      "SubtensorModule.TotalIssuance at the newest network stats, rao: the chain's issuance (free balances, stake and subnet locks); null before the first network stats",
    ),
    max_supply_tao: decimal("Deprecated: max_supply_rao. Whole TAO, a decimal string").meta({ deprecated: true }),
    max_supply_rao: baseUnits("The fixed maximum supply, rao"),
    source: z
      .object({
        provider: z.string().meta({ description: "The price feed's provider (e.g. chainlink)" }),
        feed_address: z.string().meta({ description: "The feed contract's 0x-prefixed 20-byte address" }),
        updated_at: instant("When the feed's round was updated (its updatedAt), ISO 8601 (UTC)"),
        round_id: integerText("The feed's round id (uint80), an unsigned integer string"),
      })
      .nullable()
      .meta({ description: "Where the price comes from: the oracle feed and its round; null when unknown" }),
  }),
);

export const PriceCandleSchema = component(
  "PriceCandle",
  z.object({
    bucket_start: instant("Start of the bucket (aligned to UTC), ISO 8601; the bucket spans one interval from it"),
    open: nullableDecimal("The first price round's price in the bucket, USD per TAO; null with format=close"),
    high: nullableDecimal("The highest price round in the bucket, USD per TAO; null with format=close"),
    low: nullableDecimal("The lowest price round in the bucket, USD per TAO; null with format=close"),
    close: decimal("The last price round's price in the bucket, USD per TAO"),
    volume_usd: nullableDecimal("Traded volume in the bucket, USD: always null (the price feed gives no volume)"),
    market_cap_usd: nullableDecimal("Market capitalisation at the bucket's close, USD: always null in this version"),
  }),
);

export const PriceHistorySchema = component(
  "PriceHistory",
  z.object({
    _links: collectionLinks({ latest: link("The newest price (coin/price/latest)") }),
    as_of: asOf(),
    vs: z.string().meta({ description: "The currency of the prices, lowercase: usd" }),
    interval: IntervalSchema,
    page: page(),
    _embedded: embeddedItems(PriceCandleSchema, "The candles, by bucket_start in the order asked for"),
  }),
);

export const NetworkStatsSchema = component(
  "NetworkStats",
  z.object({
    _links: linksOf({
      self: link("This answer"),
      "coin-price": link("TAO's price (coin/price/latest)"),
      subnets: link("The subnets (subnets/latest)"),
      "subnet-pools": link("The subnet pools (subnet-pools/latest)"),
      "subnet-emissions": link("The subnets' emissions (subnet-emissions/latest)"),
    }),
    as_of: asOf(),
    total_issuance_rao: nullableBaseUnits(
      "SubtensorModule.TotalIssuance, rao: all TAO issued (free balances, stake and subnet locks); null where the runtime keeps none",
    ),
    balances_total_issuance_rao: nullableBaseUnits(
      "Balances.TotalIssuance, rao: the balances pallet's own total (free and reserved balances); null where it was not read",
    ),
    max_supply_rao: baseUnits("The fixed maximum supply, rao: 21,000,000 TAO"),
    total_stake_rao: baseUnits(
      "TAO staked, rao: SubtensorModule.TotalStake where the runtime keeps it, else staked_root_rao + staked_alpha_pools_rao",
    ),
    staked_root_rao: baseUnits("TAO in the root subnet's pool (SubnetTAO[0]), rao: the root stake"),
    staked_alpha_pools_rao: baseUnits("TAO in every other subnet's pool (the sum of SubnetTAO[netuid > 0]), rao"),
    subnet_locked_rao: nullableBaseUnits(
      "TAO locked by subnet registrations (the sum of SubnetLocked), rao; null where it was not read",
    ),
    free_rao: nullableBaseUnits(
      "Derived: total_issuance_rao - total_stake_rao - subnet_locked_rao, rao; null when one is unknown or the issuance does not cover them (a devnet genesis)",
    ),
    block_emission_rao: nullableBaseUnits(
      "BlockEmission, rao: the TAO the chain emits per block (1 TAO at first, decaying as issuance nears the maximum supply); null where it was not read",
    ),
    blocks_per_day: count("Blocks per day at the chain's 12-second block time: 7200"),
    tao_weight: decimal(
      "TaoWeight over u64::MAX, a ratio from 0 to 1 (18 decimal places, truncated): the weight of root stake (TAO) against alpha stake in a validator's stake weight",
    ),
    root_netuid: netuid("The root subnet's netuid: 0"),
    subnets_count: count("Subnets on the chain, the root subnet included (each with a pool)"),
    subnet_limit: count("SubnetLimit: the most subnets the chain allows; 0 where it was not read"),
    accounts_count: count()
      .nullable()
      .meta({ description: "Accounts on the chain (System.Account entries); null where they were not counted" }),
    balance_holders_count: count().nullable().meta({
      description: "Accounts holding a balance: always null in this version (the native source does not count them)",
    }),
    extrinsics_count: count().nullable().meta({
      description:
        "Extrinsics in the blocks from counted_since_block through as_of (the platform's running count; the chain keeps no total); null when not counted",
    }),
    transfers_count: count().nullable().meta({
      description:
        "Balances.Transfer events in the blocks from counted_since_block through as_of (the platform's running count); null when not counted",
    }),
    counted_since_block: blockNumber().nullable().meta({
      description:
        "The first block extrinsics_count and transfers_count count (0 when they are the chain's own totals); null when they are null",
    }),
    volume: z
      .object({
        swap_volume_24h_rao: nullableBaseUnits(
          "TAO swapped through every subnet pool over the 24 hours before as_of, rao: the sum of the pools' volume_24h_rao (stakes' TAO in plus unstakes' TAO out); null when no pool's volume is known",
        ),
        transfer_volume_24h_rao: nullableBaseUnits(
          "TAO moved by transfers over 24 hours, rao: always null in this version (not summed yet)",
        ),
        coin_volume_24h_usd: nullableDecimal(
          "TAO's traded volume over 24 hours, USD: always null (the price feed gives no volume)",
        ),
      })
      .meta({ description: "Volumes over the 24 hours before as_of" }),
    registration: z
      .object({
        subnet_registration_cost_rao: nullableBaseUnits(
          "What registering a subnet locks at as_of, rao: the runtime's lock cost (twice the last lock, less last_lock / lock_reduction_interval_blocks per block since the last registration, at least subnet_min_lock_rao); null when an input is unknown",
        ),
        subnet_min_lock_rao: nullableBaseUnits(
          "NetworkMinLockCost: the lowest subnet lock, rao; null where it was not read",
        ),
        subnet_last_lock_rao: nullableBaseUnits(
          "NetworkLastLockCost: the last subnet registration's lock, rao; null where it was not read",
        ),
        subnet_last_registration_block: blockNumber()
          .nullable()
          .meta({ description: "The block of the last subnet registration; null where it was not read" }),
        lock_reduction_interval_blocks: count().nullable().meta({
          description:
            "NetworkLockReductionInterval: blocks over which the lock cost falls back to the minimum; null where it was not read",
        }),
        neuron_burn: z
          .object({
            min_rao: baseUnits("The lowest Burn[netuid] over the subnets, rao"),
            median_rao: baseUnits("The median Burn[netuid] (the lower middle for an even count), rao"),
            max_rao: baseUnits("The highest Burn[netuid] over the subnets, rao"),
          })
          .nullable()
          .meta({
            description:
              "What registering a neuron burns (Burn[netuid]) over the subnets; null when no subnet's is known",
          }),
      })
      .meta({ description: "What registering a subnet or a neuron costs" }),
  }),
);

const POOL_VOLUME_TOTAL =
  "TAO swapped through the pool, rao: stakes' TAO in plus unstakes' TAO out (both directions add; stake moves' and swaps' legs included). Where the runtime keeps SubnetVolume, that counter (since the subnet started) and volume_since_block is null; in runtimes without it (spec 218) the sum of the TAO amounts of the pool's SubtensorModule.StakeAdded and StakeRemoved events over every block from volume_since_block through block_number. null when neither is known";
const POOL_VOLUME_24H =
  "TAO swapped through the pool over the 24 hours before block_number, rao, both directions adding, over the blocks the platform saw (since its first snapshot of the pool when that is less than 24 hours ago); null when no volume is known";
const POOL_VOLUME_SINCE =
  "The first block volume_total_rao counts, when it is the platform's sum of the pool's stake events (the runtime keeps no SubnetVolume): where the platform's unbroken run of this pool's blocks starts (a gap in ingestion, or a block replaced without its successors, starts a new run). null when volume_total_rao is the runtime's SubnetVolume or is null";

const POOL_FLOW_WINDOW =
  "over the same blocks as volume_24h_rao (the 24 hours before block_number that the platform saw, since its first snapshot of the pool with order flow when that is less than 24 hours ago)";
const POOL_FLOW_NULL =
  "null when the pool's snapshots carry no order flow (a source that does not read the blocks' events)";
const POOL_TRADERS = (side: "bought" | "sold", event: string) =>
  `Distinct coldkeys that ${side} through the pool (a SubtensorModule.${event} event on its netuid, stake moves' and swaps' legs included) in the 7,200 blocks through block_number (24 hours of 12-second blocks), as the platform counted them at that block from the blocks it saw; a count of accounts. null for a block the platform keeps no counts of: more than 64 blocks below the pool's newest (a block_number read of an older block), a block it did not see, or ${POOL_FLOW_NULL.slice(5)}`;

const mechanism = () =>
  enumName(
    shortNames(PoolMechanism, "POOL_MECHANISM_"),
    "The pool's swap mechanism (SubnetMechanism): stable (root and stable subnets, priced 1:1) or dynamic (an alpha/TAO pool)",
  );

const NOT_IN_RUNTIME =
  "null where the runtime keeps none: the chain this platform reads (spec 218) does not, so it is null on a running stack";
const PRICE_TAO =
  "Alpha's price in TAO per alpha, a decimal string (9 decimal places, truncated): 1 for root and stable pools, 0 for an empty alpha reserve, else SubnetTAO / SubnetAlphaIn (the chain's own quote, `getAlphaPrice` / 1e9, can be 1e-9 lower)";

export const SubnetPoolSchema = component(
  "SubnetPool",
  z.object({
    _links: z
      .object({
        self: link("This pool (subnet-pools/latest?netuid=)"),
        history: link("The pool's history (subnet-pools/history?netuid=)"),
        ...subnetItemLinks("pool"),
      })
      .omit({ "pool-history": true })
      .meta({ description: "Related resources, by relation name (HAL)" }),
    netuid: netuid(),
    name: subnetName(),
    symbol: subnetSymbol(),
    mechanism: mechanism(),
    tao_in_rao: baseUnits("TAO in the pool's reserve (SubnetTAO), rao"),
    alpha_in_nalpha: baseUnits("Alpha in the pool's reserve (SubnetAlphaIn), nalpha"),
    alpha_out_nalpha: baseUnits("Alpha outside the pool, held as stake (SubnetAlphaOut), nalpha"),
    alpha_issuance_nalpha: baseUnits("The subnet's alpha issued: alpha_in_nalpha + alpha_out_nalpha, nalpha"),
    protocol_alpha_nalpha: nullableBaseUnits(
      `Alpha the protocol bought for the pool (SubnetProtocolAlpha), nalpha; ${NOT_IN_RUNTIME}`,
    ),
    price_tao: decimal(PRICE_TAO),
    reserve_ratio_tao: decimal(
      "tao_in_rao / alpha_in_nalpha, TAO per alpha (12 decimal places, toward zero; 0 for an empty alpha reserve): the reserves' ratio, which equals price_tao while the pool's weights are even",
    ),
    moving_price_tao: nullableDecimal(
      `The pool's moving average price (SubnetMovingPrice, an EMA), TAO per alpha; ${NOT_IN_RUNTIME}`,
    ),
    balancer_quote_weight: nullableDecimal(
      `The balancer's weight of the TAO side (Swap.SwapBalancer), a ratio from 0 to 1; ${NOT_IN_RUNTIME}`,
    ),
    market_cap_rao: baseUnits("price_tao × alpha_issuance_nalpha, rao (rounded toward zero)"),
    liquidity_rao: baseUnits("2 × tao_in_rao, rao: the pool's two sides valued in TAO (Taostats' convention)"),
    root_prop: nullableDecimal(
      `The root proportion (RootProp), a ratio from 0 to 1: TaoWeight × root TAO / (TaoWeight × root TAO + the subnet's alpha issuance), root stake's share of the validators' alpha; ${NOT_IN_RUNTIME}. subnet-emissions/latest gives it where the runtime keeps it`,
    ),
    volume_total_rao: nullableBaseUnits(POOL_VOLUME_TOTAL),
    volume_24h_rao: nullableBaseUnits(POOL_VOLUME_24H),
    volume_since_block: blockNumber().nullable().meta({ description: POOL_VOLUME_SINCE }),
    tao_buy_volume_24h_rao: nullableBaseUnits(
      `TAO staked into the pool (alpha bought: the TAO amounts of its SubtensorModule.StakeAdded events), rao, ${POOL_FLOW_WINDOW}; ${POOL_FLOW_NULL}`,
    ),
    tao_sell_volume_24h_rao: nullableBaseUnits(
      `TAO paid out of the pool by unstaking (alpha sold: the TAO amounts of its SubtensorModule.StakeRemoved events), rao, ${POOL_FLOW_WINDOW}; with tao_buy_volume_24h_rao it makes volume_24h_rao; ${POOL_FLOW_NULL}`,
    ),
    buys_24h: count()
      .nullable()
      .meta({
        description: `Stakes into the pool (SubtensorModule.StakeAdded events), a count of events, ${POOL_FLOW_WINDOW}; ${POOL_FLOW_NULL}`,
      }),
    sells_24h: count()
      .nullable()
      .meta({
        description: `Unstakes from the pool (SubtensorModule.StakeRemoved events), a count of events, ${POOL_FLOW_WINDOW}; ${POOL_FLOW_NULL}`,
      }),
    buyers_24h: count()
      .nullable()
      .meta({ description: POOL_TRADERS("bought", "StakeAdded") }),
    sellers_24h: count()
      .nullable()
      .meta({ description: POOL_TRADERS("sold", "StakeRemoved") }),
    price_change_1h_pct: percentChange("hour", "price_tao"),
    price_change_24h_pct: percentChange("24 hours", "price_tao"),
    price_change_7d_pct: percentChange("7 days", "price_tao"),
    price_usd: nullableDecimal("price_tao × TAO's newest USD price, USD per alpha, exact; null without a TAO price"),
    market_cap_usd: nullableDecimal(
      "market_cap_rao in TAO × TAO's newest USD price, USD, exact; null without a TAO price",
    ),
    block_number: blockNumber("The block of the pool's snapshot"),
    timestamp: instant("The snapshot block's timestamp, ISO 8601 (UTC)"),
  }),
);

export const SubnetPoolsSchema = component(
  "SubnetPools",
  z.object({
    _links: collectionLinks({
      emissions: link("The subnets' emissions (subnet-emissions/latest)"),
      subnets: link("The subnets (subnets/latest)"),
    }),
    as_of: asOf(),
    page: page(),
    _embedded: embeddedItems(SubnetPoolSchema, "The pools, in the order asked for (sort, order)"),
  }),
);

export const PoolPointSchema = component(
  "PoolPoint",
  z.object({
    netuid: netuid(),
    bucket_start: instant("Start of the bucket (aligned to UTC; with interval=block, the block's time), ISO 8601"),
    block_number: blockNumber("The bucket's last block seen: the block of the closing snapshot"),
    price_open_tao: nullableDecimal("price_tao at the bucket's first snapshot, TAO per alpha; null with format=close"),
    price_high_tao: nullableDecimal("The highest price_tao in the bucket, TAO per alpha; null with format=close"),
    price_low_tao: nullableDecimal("The lowest price_tao in the bucket, TAO per alpha; null with format=close"),
    price_close_tao: decimal("price_tao at the bucket's last snapshot, TAO per alpha"),
    moving_price_tao: nullableDecimal(`The moving price at the close, TAO per alpha; ${NOT_IN_RUNTIME}`),
    tao_in_rao: baseUnits("TAO in the pool's reserve at the close, rao"),
    alpha_in_nalpha: baseUnits("Alpha in the pool's reserve at the close, nalpha"),
    alpha_out_nalpha: baseUnits("Alpha held as stake at the close, nalpha"),
    market_cap_rao: baseUnits("price_close_tao × the alpha issued at the close, rao (rounded toward zero)"),
    volume_rao: baseUnits(
      "TAO swapped through the pool in the bucket (with interval=block, in that block), rao: stakes' TAO in plus unstakes' TAO out, both directions adding, over the blocks the platform saw; 0 when unknown",
    ),
    root_prop: nullableDecimal(`The root proportion at the close, a ratio from 0 to 1; ${NOT_IN_RUNTIME}`),
  }),
);

export const SubnetPoolsHistorySchema = component(
  "SubnetPoolsHistory",
  z.object({
    _links: collectionLinks({
      "pool-latest": link("The pools' newest state (subnet-pools/latest?netuid=)"),
      subnet: link("The subnets (subnets/latest?netuid=)"),
    }),
    as_of: asOf(),
    interval: IntervalSchema,
    page: page(),
    _embedded: embeddedItems(PoolPointSchema, "The points, one per netuid and bucket, in the order asked for"),
  }),
);

export const SubnetEmissionSchema = component(
  "SubnetEmission",
  z.object({
    _links: linksOf({
      self: link("This subnet's emission (subnet-emissions/latest?netuid=)"),
      ...subnetItemLinks("emissions"),
    }),
    netuid: netuid(),
    name: subnetName(),
    symbol: subnetSymbol(),
    emission_enabled: z.boolean().meta({
      description:
        "Whether the subnet receives emission (SubnetEmissionEnabled where the runtime keeps it, else whether it received any this block)",
    }),
    tao_emission_share: nullableDecimal(
      "The subnet's share of the block's TAO emission: (tao_in_emission_rao + excess_tao_rao) / block_emission_rao, a ratio from 0 to 1 (12 decimal places, toward zero); null when block_emission_rao is unknown",
    ),
    tao_in_emission_rao: baseUnits(
      "TAO injected into the subnet's pool in the block of as_of (SubnetTaoInEmission; EmissionValues in spec 218), rao",
    ),
    excess_tao_rao: nullableBaseUnits(
      `TAO of the subnet's emission used for a protocol buy of alpha in the block (SubnetExcessTao), rao; ${NOT_IN_RUNTIME}`,
    ),
    root_sell_tao_rao: nullableBaseUnits(
      `TAO from selling root's alpha dividends in the block (SubnetRootSellTao), rao; ${NOT_IN_RUNTIME}`,
    ),
    alpha_in_emission_nalpha: nullableBaseUnits(
      `Alpha injected into the pool's reserve in the block (SubnetAlphaInEmission), nalpha; ${NOT_IN_RUNTIME}`,
    ),
    alpha_out_emission_nalpha: nullableBaseUnits(
      `Alpha minted for the subnet's participants in the block (SubnetAlphaOutEmission), nalpha; ${NOT_IN_RUNTIME}`,
    ),
    alpha_out_split_nalpha: z
      .object({
        owner: baseUnits("The owner's cut: alpha_out × owner_cut, nalpha (rounded toward zero)"),
        miners: baseUnits("Half of what the owner's cut leaves, to the miners, nalpha (rounded down)"),
        validators: baseUnits("The other half less root's part, to the validators, nalpha"),
        root: baseUnits("root_prop of the validators' half, to root stakers, nalpha (rounded toward zero)"),
      })
      .nullable()
      .meta({
        description:
          "Derived: how alpha_out_emission_nalpha divides as the runtime's coinbase divides it (owner cut, then half to miners and half to validators, of which root_prop to root); null unless owner_cut, root_prop and alpha_out_emission_nalpha are known",
      }),
    pending_nalpha: z
      .object({
        server: baseUnits("PendingServerEmission: the miners' alpha accumulated for the next epoch, nalpha"),
        validator: baseUnits("PendingValidatorEmission: the validators' alpha accumulated for the next epoch, nalpha"),
        root_alpha: baseUnits(
          "PendingRootAlphaDivs (PendingAlphaSwapped in older runtimes): root's alpha dividends held until the next epoch, nalpha",
        ),
        owner: baseUnits("PendingOwnerCut: the owner's cut accumulated for the next epoch, nalpha"),
      })
      .nullable()
      .meta({
        description:
          "Alpha accumulated since the last epoch, distributed at the next one; null unless the runtime keeps all four items: spec 218, the chain this platform reads, keeps one undivided PendingEmission instead, so it is null on a running stack",
      }),
    root_prop: nullableDecimal(
      "The root proportion (RootProp, a U96F32, 18 decimal places truncated), a ratio from 0 to 1: TaoWeight × root TAO / (TaoWeight × root TAO + the subnet's alpha issuance), root stake's share of the validators' alpha; null where the runtime keeps none (spec 218, the chain this platform reads, does not)",
    ),
    tempo: count("Tempo: blocks between the subnet's epochs (360 by default); 0 where it was not read"),
    last_epoch_block: blockNumber().nullable().meta({
      description: "The block of the subnet's last epoch (its last mechanism step); null if it never stepped",
    }),
    next_epoch_block: blockNumber().nullable().meta({
      description:
        "The block of the subnet's next epoch by the runtime's schedule ((block + netuid + 1) mod (tempo + 1) = tempo); null for tempo 0 or where epochs are not on that schedule",
    }),
    blocks_since_last_epoch: count()
      .nullable()
      .meta({ description: "as_of's block less last_epoch_block, in blocks; null when last_epoch_block is null" }),
    per_day_estimate: z
      .object({
        tao_in_rao: baseUnits("tao_in_emission_rao × 7200 blocks, rao"),
        alpha_out_nalpha: nullableBaseUnits("alpha_out_emission_nalpha × 7200 blocks, nalpha; null when that is null"),
      })
      .nullable()
      .meta({ description: "This block's emission over a day (7200 blocks) at the same rate: an estimate" }),
  }),
);

export const SubnetEmissionsSchema = component(
  "SubnetEmissions",
  z.object({
    _links: collectionLinks({
      "subnet-pools": link("The subnet pools (subnet-pools/latest)"),
      "network-stats": link("The network's totals (network/stats/latest)"),
    }),
    as_of: asOf(),
    block_emission_rao: nullableBaseUnits(
      "BlockEmission: the TAO the chain emits per block, rao; null where it was not read",
    ),
    total_tao_emission_rao: baseUnits(
      "The sum over the subnets listed of tao_in_emission_rao + excess_tao_rao: TAO emitted to them in the block, rao",
    ),
    subnets_emitting: count("Subnets listed with emission_enabled true"),
    owner_cut: nullableDecimal(
      "SubnetOwnerCut / 65535, a ratio from 0 to 1 (8 decimal places, truncated): the share of each subnet's alpha emission that goes to its owner (0.17999542 by default); null where it was not read",
    ),
    page: page(),
    _embedded: embeddedItems(SubnetEmissionSchema, "The subnets' emissions, in the order asked for (sort, order)"),
  }),
);

/** The point members every snapshot history shares: its bucket, and the block its reading was taken at. */
const readingOf = {
  bucket_start: instant("Start of the bucket (aligned to UTC), ISO 8601"),
  block_number: blockNumber().meta({ description: "The block the reading was taken at (the bucket's last one)" }),
  timestamp: instant("The reading block's timestamp, ISO 8601 (UTC)"),
};

export const NetworkStatsPointSchema = component(
  "NetworkStatsPoint",
  z.object({
    ...readingOf,
    block_hash: z.string().meta({ description: "The reading block's hash, 0x-prefixed" }),
    // The latest route's members less what it derives from other series (volume, neuron burn).
    ...NetworkStatsSchema.omit({ _links: true, as_of: true, volume: true }).shape,
  }),
);

export const NetworkStatsHistorySchema = component(
  "NetworkStatsHistory",
  z.object({
    _links: collectionLinks({ latest: link("The newest totals (network/stats/latest)") }),
    as_of: asOf(),
    interval: IntervalSchema,
    page: page(),
    _embedded: embeddedItems(NetworkStatsPointSchema, "The readings, one per bucket, in the order asked for"),
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
    _links: collectionLinks({
      latest: link("The subnet's newest emission (subnet-emissions/latest?netuid=)"),
      subnet: link("The subnet (subnets/latest?netuid=)"),
    }),
    as_of: asOf(),
    netuid: netuid("The subnet the history is of"),
    interval: IntervalSchema,
    page: page(),
    _embedded: embeddedItems(SubnetEmissionPointSchema, "The readings, one per bucket, in the order asked for"),
  }),
);
