import { halCollection, halResource, hrefWithQuery } from "@platform/http";
import type {
  GetNetworkStatsHistoryResponse,
  GetNetworkStatsLatestResponse,
  GetPriceHistoryResponse,
  GetPriceLatestResponse,
  GetSubnetEmissionsHistoryResponse,
  GetSubnetEmissionsLatestResponse,
  GetSubnetPoolsHistoryResponse,
  GetSubnetPoolsLatestResponse,
  PoolPoint,
  PriceCandle,
  SubnetEmission,
  SubnetPool,
} from "@platform/proto/data/v1/market";
import type { z } from "zod";
import {
  coinPriceHistoryHref,
  coinPriceHref,
  emissionsHistoryHref,
  emissionsHref,
  networkStatsHistoryHref,
  networkStatsHref,
  poolHistoryHref,
  poolsHref,
  subnetLinks,
  subnetsHref,
} from "../shared/links.js";
import {
  integer,
  intervalName,
  type LinkQuery,
  mechanismName,
  optionalInteger,
  orNull,
  type PageView,
  pageOf,
  renderAsOf,
} from "../shared/render.js";
import type {
  NetworkStatsHistorySchema,
  NetworkStatsSchema,
  PoolPointSchema,
  PriceCandleSchema,
  PriceHistorySchema,
  PriceLatestSchema,
  SubnetEmissionSchema,
  SubnetEmissionsHistorySchema,
  SubnetEmissionsSchema,
  SubnetPoolSchema,
  SubnetPoolsHistorySchema,
  SubnetPoolsSchema,
} from "./marketSchemas.js";

/** The market group: coin price, network totals, subnet pools and emissions. */

/**
 * Empty strings mark what is unknown: the members a close-only series leaves out, and storage-only
 * chain values (TotalIssuance, BlockEmission) an ingestor without a StorageQuery reader leaves empty.
 * They read as null.
 */
const orNullIfEmpty = (value: string): string | null => (value === "" ? null : value);

export function renderPriceLatest(
  answer: GetPriceLatestResponse,
  request: { query: LinkQuery },
): z.output<typeof PriceLatestSchema> {
  return halResource(
    {
      self: { href: hrefWithQuery(coinPriceHref(), request.query) },
      history: { href: hrefWithQuery(coinPriceHistoryHref(), { vs: request.query.vs }) },
      "network-stats": { href: networkStatsHref() },
    },
    {
      as_of: renderAsOf(answer.asOf),
      symbol: answer.symbol,
      vs: answer.vs,
      price: answer.price,
      price_change_1h_pct: orNull(answer.priceChange1hPct),
      price_change_24h_pct: orNull(answer.priceChange24hPct),
      price_change_7d_pct: orNull(answer.priceChange7dPct),
      price_change_30d_pct: orNull(answer.priceChange30dPct),
      volume_24h_usd: orNull(answer.volume24hUsd),
      market_cap_usd: orNull(answer.marketCapUsd),
      fully_diluted_market_cap_usd: orNull(answer.fullyDilutedMarketCapUsd),
      circulating_supply_tao: orNull(answer.circulatingSupplyTao),
      circulating_supply_rao: orNull(answer.circulatingSupplyRao),
      total_issuance_rao: orNull(answer.totalIssuanceRao),
      max_supply_tao: answer.maxSupplyTao,
      max_supply_rao: answer.maxSupplyRao,
      source:
        answer.source === undefined
          ? null
          : {
              provider: answer.source.provider,
              feed_address: answer.source.feedAddress,
              updated_at: answer.source.updatedAt,
              round_id: answer.source.roundId,
            },
    },
  );
}

function renderCandle(candle: PriceCandle): z.output<typeof PriceCandleSchema> {
  return {
    bucket_start: candle.bucketStart,
    open: orNullIfEmpty(candle.open),
    high: orNullIfEmpty(candle.high),
    low: orNullIfEmpty(candle.low),
    close: candle.close,
    volume_usd: orNull(candle.volumeUsd),
    market_cap_usd: orNull(candle.marketCapUsd),
  };
}

export function renderPriceHistory(
  answer: GetPriceHistoryResponse,
  request: PageView,
): z.output<typeof PriceHistorySchema> {
  return halCollection({
    path: coinPriceHistoryHref(),
    query: request.query,
    cursor: request.cursor,
    page: pageOf(answer.page, request.limit),
    links: { latest: { href: hrefWithQuery(coinPriceHref(), { vs: request.query.vs }) } },
    state: { as_of: renderAsOf(answer.asOf), vs: answer.vs, interval: intervalName(answer.interval) },
    items: answer.candles.map(renderCandle),
  });
}

export function renderNetworkStats(
  answer: GetNetworkStatsLatestResponse,
  query: LinkQuery = {},
): z.output<typeof NetworkStatsSchema> {
  const registration = answer.registration;
  return halResource(
    {
      self: { href: hrefWithQuery(networkStatsHref(), query) },
      "coin-price": { href: coinPriceHref() },
      subnets: { href: subnetsHref() },
      "subnet-pools": { href: poolsHref() },
      "subnet-emissions": { href: emissionsHref() },
    },
    {
      as_of: renderAsOf(answer.asOf),
      total_issuance_rao: orNullIfEmpty(answer.totalIssuanceRao),
      balances_total_issuance_rao: orNull(answer.balancesTotalIssuanceRao),
      max_supply_rao: answer.maxSupplyRao,
      total_stake_rao: answer.totalStakeRao,
      staked_root_rao: answer.stakedRootRao,
      staked_alpha_pools_rao: answer.stakedAlphaPoolsRao,
      subnet_locked_rao: orNull(answer.subnetLockedRao),
      free_rao: orNull(answer.freeRao),
      block_emission_rao: orNullIfEmpty(answer.blockEmissionRao),
      blocks_per_day: answer.blocksPerDay,
      tao_weight: answer.taoWeight,
      root_netuid: answer.rootNetuid,
      subnets_count: answer.subnetsCount,
      subnet_limit: answer.subnetLimit,
      accounts_count: optionalInteger(answer.accountsCount),
      balance_holders_count: optionalInteger(answer.balanceHoldersCount),
      extrinsics_count: optionalInteger(answer.extrinsicsCount),
      transfers_count: optionalInteger(answer.transfersCount),
      counted_since_block: optionalInteger(answer.countedSinceBlock),
      volume: {
        swap_volume_24h_rao: orNull(answer.volume?.swapVolume24hRao),
        transfer_volume_24h_rao: orNull(answer.volume?.transferVolume24hRao),
        coin_volume_24h_usd: orNull(answer.volume?.coinVolume24hUsd),
      },
      registration: {
        subnet_registration_cost_rao: orNull(registration?.subnetRegistrationCostRao),
        subnet_min_lock_rao: orNull(registration?.subnetMinLockRao),
        subnet_last_lock_rao: orNull(registration?.subnetLastLockRao),
        subnet_last_registration_block: optionalInteger(registration?.subnetLastRegistrationBlock),
        lock_reduction_interval_blocks: optionalInteger(registration?.lockReductionIntervalBlocks),
        neuron_burn:
          registration?.neuronBurn === undefined
            ? null
            : {
                min_rao: registration.neuronBurn.minRao,
                median_rao: registration.neuronBurn.medianRao,
                max_rao: registration.neuronBurn.maxRao,
              },
      },
    },
  );
}

function renderPool(pool: SubnetPool): z.output<typeof SubnetPoolSchema> {
  const { pool: _self, "pool-history": history, ...related } = subnetLinks(pool.netuid);
  return {
    _links: { self: { href: poolsHref(pool.netuid) }, history, ...related },
    netuid: pool.netuid,
    name: orNull(pool.name),
    symbol: orNull(pool.symbol),
    mechanism: mechanismName(pool.mechanism),
    tao_in_rao: pool.taoInRao,
    alpha_in_nalpha: pool.alphaInNalpha,
    alpha_out_nalpha: pool.alphaOutNalpha,
    alpha_issuance_nalpha: pool.alphaIssuanceNalpha,
    protocol_alpha_nalpha: orNull(pool.protocolAlphaNalpha),
    price_tao: pool.priceTao,
    reserve_ratio_tao: pool.reserveRatioTao,
    moving_price_tao: orNull(pool.movingPriceTao),
    balancer_quote_weight: orNull(pool.balancerQuoteWeight),
    market_cap_rao: pool.marketCapRao,
    liquidity_rao: pool.liquidityRao,
    root_prop: orNull(pool.rootProp),
    volume_total_rao: orNull(pool.volumeTotalRao),
    volume_24h_rao: orNull(pool.volume24hRao),
    volume_since_block: pool.volumeSinceBlock === undefined ? null : integer(pool.volumeSinceBlock),
    tao_buy_volume_24h_rao: orNull(pool.taoBuyVolume24hRao),
    tao_sell_volume_24h_rao: orNull(pool.taoSellVolume24hRao),
    buys_24h: optionalInteger(pool.buys24h),
    sells_24h: optionalInteger(pool.sells24h),
    buyers_24h: optionalInteger(pool.buyers24h),
    sellers_24h: optionalInteger(pool.sellers24h),
    price_change_1h_pct: orNull(pool.priceChange1hPct),
    price_change_24h_pct: orNull(pool.priceChange24hPct),
    price_change_7d_pct: orNull(pool.priceChange7dPct),
    price_usd: orNull(pool.priceUsd),
    market_cap_usd: orNull(pool.marketCapUsd),
    block_number: integer(pool.blockNumber),
    timestamp: pool.timestamp,
  };
}

export function renderPoolsLatest(
  answer: GetSubnetPoolsLatestResponse,
  request: PageView,
): z.output<typeof SubnetPoolsSchema> {
  return halCollection({
    path: poolsHref(),
    query: request.query,
    cursor: request.cursor,
    page: pageOf(answer.page, request.limit),
    links: { emissions: { href: emissionsHref() }, subnets: { href: subnetsHref() } },
    state: { as_of: renderAsOf(answer.asOf) },
    items: answer.pools.map(renderPool),
  });
}

function renderPoolPoint(point: PoolPoint): z.output<typeof PoolPointSchema> {
  return {
    netuid: point.netuid,
    bucket_start: point.bucketStart,
    block_number: integer(point.blockNumber),
    price_open_tao: orNullIfEmpty(point.priceOpenTao),
    price_high_tao: orNullIfEmpty(point.priceHighTao),
    price_low_tao: orNullIfEmpty(point.priceLowTao),
    price_close_tao: point.priceCloseTao,
    moving_price_tao: orNull(point.movingPriceTao),
    tao_in_rao: point.taoInRao,
    alpha_in_nalpha: point.alphaInNalpha,
    alpha_out_nalpha: point.alphaOutNalpha,
    market_cap_rao: point.marketCapRao,
    volume_rao: point.volumeRao,
    root_prop: orNull(point.rootProp),
  };
}

export function renderPoolsHistory(
  answer: GetSubnetPoolsHistoryResponse,
  request: PageView,
): z.output<typeof SubnetPoolsHistorySchema> {
  const netuid = request.query.netuid;
  return halCollection({
    path: poolHistoryHref(),
    query: request.query,
    cursor: request.cursor,
    page: pageOf(answer.page, request.limit),
    links: {
      "pool-latest": {
        href: hrefWithQuery(poolsHref(), {
          netuid,
          include_root: String(netuid ?? "")
            .split(",")
            .includes("0")
            ? "true"
            : undefined,
        }),
      },
      subnet: { href: hrefWithQuery(subnetsHref(), { netuid }) },
    },
    state: { as_of: renderAsOf(answer.asOf), interval: intervalName(answer.interval) },
    items: answer.points.map(renderPoolPoint),
  });
}

function renderEmission(emission: SubnetEmission): z.output<typeof SubnetEmissionSchema> {
  const { emissions: _self, ...related } = subnetLinks(emission.netuid);
  return {
    _links: { self: { href: emissionsHref(emission.netuid) }, ...related },
    netuid: emission.netuid,
    name: orNull(emission.name),
    symbol: orNull(emission.symbol),
    emission_enabled: emission.emissionEnabled,
    tao_emission_share: orNullIfEmpty(emission.taoEmissionShare),
    tao_in_emission_rao: emission.taoInEmissionRao,
    excess_tao_rao: orNull(emission.excessTaoRao),
    root_sell_tao_rao: orNull(emission.rootSellTaoRao),
    alpha_in_emission_nalpha: orNull(emission.alphaInEmissionNalpha),
    alpha_out_emission_nalpha: orNull(emission.alphaOutEmissionNalpha),
    alpha_out_split_nalpha:
      emission.alphaOutSplit === undefined
        ? null
        : {
            owner: emission.alphaOutSplit.ownerNalpha,
            miners: emission.alphaOutSplit.minersNalpha,
            validators: emission.alphaOutSplit.validatorsNalpha,
            root: emission.alphaOutSplit.rootNalpha,
          },
    pending_nalpha:
      emission.pending === undefined
        ? null
        : {
            server: emission.pending.serverNalpha,
            validator: emission.pending.validatorNalpha,
            root_alpha: emission.pending.rootAlphaNalpha,
            owner: emission.pending.ownerNalpha,
          },
    root_prop: orNull(emission.rootProp),
    tempo: emission.tempo,
    last_epoch_block: optionalInteger(emission.lastEpochBlock),
    next_epoch_block: optionalInteger(emission.nextEpochBlock),
    blocks_since_last_epoch: optionalInteger(emission.blocksSinceLastEpoch),
    per_day_estimate:
      emission.perDayEstimate === undefined
        ? null
        : {
            tao_in_rao: emission.perDayEstimate.taoInRao,
            alpha_out_nalpha: orNull(emission.perDayEstimate.alphaOutNalpha),
          },
  };
}

export function renderEmissionsLatest(
  answer: GetSubnetEmissionsLatestResponse,
  request: PageView,
): z.output<typeof SubnetEmissionsSchema> {
  return halCollection({
    path: emissionsHref(),
    query: request.query,
    cursor: request.cursor,
    page: pageOf(answer.page, request.limit),
    links: { "subnet-pools": { href: poolsHref() }, "network-stats": { href: networkStatsHref() } },
    state: {
      as_of: renderAsOf(answer.asOf),
      block_emission_rao: orNullIfEmpty(answer.blockEmissionRao),
      total_tao_emission_rao: answer.totalTaoEmissionRao,
      subnets_emitting: answer.subnetsEmitting,
      owner_cut: orNull(answer.ownerCut),
    },
    items: answer.emissions.map(renderEmission),
  });
}

export function renderNetworkStatsHistory(
  answer: GetNetworkStatsHistoryResponse,
  request: PageView,
): z.output<typeof NetworkStatsHistorySchema> {
  return halCollection({
    path: networkStatsHistoryHref(),
    query: request.query,
    cursor: request.cursor,
    page: pageOf(answer.page, request.limit),
    links: { latest: { href: networkStatsHref() } },
    state: { as_of: renderAsOf(answer.asOf), interval: intervalName(answer.interval) },
    items: answer.points.flatMap((point) => {
      if (point.stats === undefined) return [];
      // The latest route's rendering of the same figures, less its links and what a point leaves out.
      const { _links: _latest, as_of: asOf, volume: _volume, ...figures } = renderNetworkStats(point.stats);
      return [
        {
          bucket_start: point.bucketStart,
          block_number: asOf?.block_number ?? 0,
          block_hash: asOf?.block_hash ?? "",
          timestamp: asOf?.timestamp ?? point.bucketStart,
          ...figures,
        },
      ];
    }),
  });
}

export function renderEmissionsHistory(
  answer: GetSubnetEmissionsHistoryResponse,
  request: PageView & { netuid: number },
): z.output<typeof SubnetEmissionsHistorySchema> {
  return halCollection({
    path: emissionsHistoryHref(),
    query: request.query,
    cursor: request.cursor,
    page: pageOf(answer.page, request.limit),
    links: { latest: { href: emissionsHref(request.netuid) }, subnet: { href: subnetsHref(request.netuid) } },
    state: { as_of: renderAsOf(answer.asOf), netuid: request.netuid, interval: intervalName(answer.interval) },
    items: answer.points.flatMap((point) => {
      if (point.emission === undefined) return [];
      const { _links: _item, name: _name, symbol: _symbol, ...emission } = renderEmission(point.emission);
      return [
        {
          bucket_start: point.bucketStart,
          block_number: integer(point.blockNumber),
          timestamp: point.timestamp,
          ...emission,
        },
      ];
    }),
  });
}
