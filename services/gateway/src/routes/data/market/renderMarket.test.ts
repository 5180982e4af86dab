import { Interval } from "@platform/proto/common/v1/common";
import { describe, expect, it } from "vitest";
import {
  EXAMPLE_CURSOR,
  emissionsLatestExample,
  networkStatsExample,
  poolsHistoryExample,
  poolsLatestExample,
  priceHistoryExample,
  priceLatestExample,
} from "../examples.js";
import {
  renderEmissionsLatest,
  renderNetworkStats,
  renderPoolsHistory,
  renderPoolsLatest,
  renderPriceHistory,
  renderPriceLatest,
} from "./renderMarket.js";

const items = (body: { _embedded?: unknown }) => (body._embedded as { items: Array<Record<string, unknown>> }).items;

describe("renderPriceLatest", () => {
  it("renders the price, changes in percent, supply and the feed as its source", () => {
    const body = renderPriceLatest(priceLatestExample, { query: { vs: "usd" } });
    expect(body._links).toEqual({
      self: { href: "/data/v1/coin/price/latest?vs=usd" },
      history: { href: "/data/v1/coin/price/history?vs=usd" },
      "network-stats": { href: "/data/v1/network/stats/latest" },
    });
    expect(body).toMatchObject({
      as_of: { chain_id: 945, block_number: 7012345 },
      symbol: "TAO",
      vs: "usd",
      price: "322.12",
      price_change_1h_pct: "0.41",
      price_change_24h_pct: "-2.15",
      price_change_30d_pct: null,
      circulating_supply_tao: "9503125.5",
      total_issuance_rao: "9503125500000000",
      max_supply_tao: "21000000",
      source: {
        provider: "chainlink",
        feed_address: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        updated_at: "2026-08-20T11:59:36.000Z",
        round_id: "18446744073709552171",
      },
    });
  });
});

describe("renderPriceHistory", () => {
  it("pages candles, with close-only members as null", () => {
    const closeOnly = {
      ...priceHistoryExample,
      candles: [{ bucketStart: "2026-08-20T11:00:00.000Z", open: "", high: "", low: "", close: "322.12" }],
    };
    const body = renderPriceHistory(closeOnly, { query: { format: "close", interval: "1h", limit: 1 }, limit: 1 });
    expect(body._links).toEqual({
      self: { href: "/data/v1/coin/price/history?format=close&interval=1h&limit=1" },
      next: { href: `/data/v1/coin/price/history?format=close&interval=1h&limit=1&cursor=${EXAMPLE_CURSOR}` },
      latest: { href: "/data/v1/coin/price/latest" },
    });
    expect(body).toMatchObject({
      vs: "usd",
      interval: "1h",
      page: { limit: 2, next_cursor: EXAMPLE_CURSOR, has_more: true },
    });
    expect(items(body)).toEqual([
      {
        bucket_start: "2026-08-20T11:00:00.000Z",
        open: null,
        high: null,
        low: null,
        close: "322.12",
        volume_usd: null,
        market_cap_usd: null,
      },
    ]);
    expect(items(renderPriceHistory(priceHistoryExample, { query: {}, limit: 500 }))[0]).toEqual({
      bucket_start: "2026-08-20T10:00:00.000Z",
      open: "320.10",
      high: "323.00",
      low: "319.85",
      close: "321.40",
      volume_usd: "3911200.00",
      market_cap_usd: "3054300000.00",
    });
  });

  it("names every interval", () => {
    const names = [
      Interval.INTERVAL_BLOCK,
      Interval.INTERVAL_FIVE_MINUTES,
      Interval.INTERVAL_ONE_HOUR,
      Interval.INTERVAL_FOUR_HOURS,
      Interval.INTERVAL_ONE_DAY,
      Interval.INTERVAL_ONE_WEEK,
      Interval.INTERVAL_UNSPECIFIED,
    ].map((interval) => renderPriceHistory({ ...priceHistoryExample, interval }, { query: {}, limit: 1 }).interval);
    expect(names).toEqual(["block", "5m", "1h", "4h", "1d", "1w", null]);
  });
});

describe("renderNetworkStats", () => {
  it("says from which block the chain's counts run, and null for it with the counts before any block was counted", () => {
    const later = renderNetworkStats({ ...networkStatsExample, countedSinceBlock: "4200000" });
    expect(later).toMatchObject({ extrinsics_count: 38120554, transfers_count: 2503311, counted_since_block: 4200000 });
    const { extrinsicsCount: _x, transfersCount: _r, countedSinceBlock: _s, ...uncounted } = networkStatsExample;
    expect(renderNetworkStats(uncounted)).toMatchObject({
      extrinsics_count: null,
      transfers_count: null,
      counted_since_block: null,
    });
  });

  it("renders totals in rao, counts as integers and unknown counts as null", () => {
    const body = renderNetworkStats(networkStatsExample);
    expect(body._links).toEqual({
      self: { href: "/data/v1/network/stats/latest" },
      "coin-price": { href: "/data/v1/coin/price/latest" },
      subnets: { href: "/data/v1/subnets/latest" },
      "subnet-pools": { href: "/data/v1/subnet-pools/latest" },
      "subnet-emissions": { href: "/data/v1/subnet-emissions/latest" },
    });
    expect(body).toMatchObject({
      total_issuance_rao: "9503125500000000",
      max_supply_rao: "21000000000000000",
      free_rao: "2103125500000000",
      blocks_per_day: 7200,
      tao_weight: "0.18",
      subnets_count: 129,
      accounts_count: 412345,
      balance_holders_count: null,
      extrinsics_count: 38120554,
      transfers_count: 2503311,
      counted_since_block: 0,
      volume: {
        swap_volume_24h_rao: "48210000000000",
        transfer_volume_24h_rao: "90233000000000",
        coin_volume_24h_usd: null,
      },
      registration: {
        subnet_registration_cost_rao: "1250000000000",
        subnet_last_registration_block: 7001000,
        lock_reduction_interval_blocks: 28800,
        neuron_burn: { min_rao: "500000", median_rao: "120000000", max_rao: "5000000000" },
      },
    });
  });
});

describe("renderPoolsLatest", () => {
  it("renders reserves and prices with units and links each pool to its subnet's views", () => {
    const body = renderPoolsLatest(poolsLatestExample, { query: { sort: "price", limit: 1 }, limit: 1 });
    expect(body._links).toMatchObject({
      self: { href: "/data/v1/subnet-pools/latest?sort=price&limit=1" },
      next: { href: `/data/v1/subnet-pools/latest?sort=price&limit=1&cursor=${EXAMPLE_CURSOR}` },
    });
    expect(items(body)[0]).toMatchObject({
      _links: {
        self: { href: "/data/v1/subnet-pools/latest?netuid=64" },
        history: { href: "/data/v1/subnet-pools/history?netuid=64" },
        subnet: { href: "/data/v1/subnets/latest?netuid=64" },
        emissions: { href: "/data/v1/subnet-emissions/latest?netuid=64" },
        validators: { href: "/data/v1/subnets/64/validators/latest" },
        holders: { href: "/data/v1/subnets/64/holders/top" },
      },
      netuid: 64,
      mechanism: "dynamic",
      tao_in_rao: "1216232342225",
      alpha_in_nalpha: "309650552567823",
      alpha_issuance_nalpha: "734990070288887",
      protocol_alpha_nalpha: null,
      price_tao: "0.003927757700",
      reserve_ratio_tao: "0.003927757700",
      market_cap_rao: "2886862908160",
      liquidity_rao: "2432464684450",
      price_change_24h_pct: "-5.03",
      balancer_quote_weight: null,
      block_number: 7012345,
    });
  });
});

describe("renderPoolsHistory", () => {
  it("renders OHLC points and links to the pools' latest view", () => {
    const body = renderPoolsHistory(poolsHistoryExample, { query: { netuid: "64,65", interval: "1h" }, limit: 500 });
    expect(
      renderPoolsHistory(poolsHistoryExample, { query: { netuid: "64,0" }, limit: 500 })._links["pool-latest"],
    ).toEqual({ href: "/data/v1/subnet-pools/latest?netuid=64%2C0&include_root=true" });
    expect(body._links).toMatchObject({
      self: { href: "/data/v1/subnet-pools/history?netuid=64%2C65&interval=1h" },
      "pool-latest": { href: "/data/v1/subnet-pools/latest?netuid=64%2C65" },
      subnet: { href: "/data/v1/subnets/latest?netuid=64%2C65" },
    });
    expect(body.interval).toBe("1h");
    expect(items(body)[0]).toEqual({
      netuid: 64,
      bucket_start: "2026-08-20T11:00:00.000Z",
      block_number: 7012299,
      price_open_tao: "0.003901000000",
      price_high_tao: "0.003931000000",
      price_low_tao: "0.003899000000",
      price_close_tao: "0.003927757700",
      moving_price_tao: "0.0038",
      tao_in_rao: "1216232342225",
      alpha_in_nalpha: "309650552567823",
      alpha_out_nalpha: "425339517721064",
      market_cap_rao: "2886862908160",
      volume_rao: "50120000000",
      root_prop: "0.5951",
    });
  });
});

describe("renderEmissionsLatest", () => {
  it("renders the block totals and each subnet's split in nalpha", () => {
    const body = renderEmissionsLatest(emissionsLatestExample, { query: {}, limit: 256 });
    expect(body).toMatchObject({
      block_emission_rao: "1000000000",
      total_tao_emission_rao: "1000000000",
      subnets_emitting: 128,
      owner_cut: "0.18",
    });
    expect(items(body)[0]).toMatchObject({
      _links: {
        self: { href: "/data/v1/subnet-emissions/latest?netuid=64" },
        pool: { href: "/data/v1/subnet-pools/latest?netuid=64" },
      },
      tao_emission_share: "0.0731",
      tao_in_emission_rao: "73100000",
      alpha_out_emission_nalpha: "1000000000",
      alpha_out_split_nalpha: { owner: "180000000", miners: "410000000", validators: "244000000", root: "166000000" },
      pending_nalpha: {
        server: "59040000000",
        validator: "35136000000",
        root_alpha: "23904000000",
        owner: "25920000000",
      },
      tempo: 360,
      last_epoch_block: 7012200,
      next_epoch_block: 7012561,
      blocks_since_last_epoch: 145,
      per_day_estimate: { tao_in_rao: "526320000000", alpha_out_nalpha: "7200000000000" },
    });
  });

  it("shows storage-only values the chain source could not read (empty) as null, in totals and shares", () => {
    const unknown = {
      ...emissionsLatestExample,
      blockEmissionRao: "",
      emissions: emissionsLatestExample.emissions.map((emission) => ({ ...emission, taoEmissionShare: "" })),
    };
    const body = renderEmissionsLatest(unknown, { query: {}, limit: 256 });
    expect(body).toMatchObject({ block_emission_rao: null, total_tao_emission_rao: "1000000000" });
    expect(items(body)[0]).toMatchObject({ tao_emission_share: null, tao_in_emission_rao: "73100000" });
    expect(renderNetworkStats({ ...networkStatsExample, totalIssuanceRao: "", blockEmissionRao: "" })).toMatchObject({
      total_issuance_rao: null,
      block_emission_rao: null,
    });
  });
});
