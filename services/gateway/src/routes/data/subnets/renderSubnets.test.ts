import { HolderCoverage, PoolMechanism } from "@platform/proto/common/v1/network";
import { describe, expect, it } from "vitest";
import {
  ALICE,
  BOB,
  CHARLIE,
  EXAMPLE_CURSOR,
  holdersTopExample,
  subnetsLatestExample,
  validatorsLatestExample,
} from "../examples.js";
import { renderHoldersTop, renderSubnetsLatest, renderValidatorsLatest } from "./renderSubnets.js";

const items = (body: { _embedded?: unknown }) => (body._embedded as { items: Array<Record<string, unknown>> }).items;
const account = (id: { ss58: string; publicKey: string }) => ({
  ss58: id.ss58,
  public_key: id.publicKey,
  evm_h160: null,
});

describe("renderSubnetsLatest", () => {
  it("renders a subnet with its settings, u64 raw values as strings and its pool embedded", () => {
    const body = renderSubnetsLatest(subnetsLatestExample, { query: { limit: 1 }, limit: 1 });
    expect(body._links).toEqual({
      self: { href: "/data/v1/subnets/latest?limit=1" },
      next: { href: `/data/v1/subnets/latest?limit=1&cursor=${EXAMPLE_CURSOR}` },
      "subnet-pools": { href: "/data/v1/subnet-pools/latest" },
    });
    const subnet = items(body)[0]!;
    expect(subnet._links).toEqual({
      self: { href: "/data/v1/subnets/latest?netuid=64" },
      pool: { href: "/data/v1/subnet-pools/latest?netuid=64" },
      "pool-history": { href: "/data/v1/subnet-pools/history?netuid=64" },
      emissions: { href: "/data/v1/subnet-emissions/latest?netuid=64" },
      validators: { href: "/data/v1/subnets/64/validators/latest" },
      holders: { href: "/data/v1/subnets/64/holders/top" },
    });
    expect(subnet).toMatchObject({
      netuid: 64,
      name: "Chutes",
      identity: { subnet_name: "Chutes", github_repo: "https://github.com/example/chutes", logo_url: "" },
      owner: { coldkey: account(ALICE), hotkey: account(BOB) },
      registered_at_block: 4811000,
      registered_at: "2025-01-10T08:00:00.000Z",
      mechanism: "dynamic",
      tempo: 360,
      last_epoch_block: 7012200,
      uid_count: 256,
      max_validators: 64,
      registration: {
        allowed: true,
        pow_allowed: false,
        burn_rao: "120000000",
        difficulty: "10000000",
        recycled_total_rao: "81230000000",
      },
      commit_reveal: { enabled: true, interval: 1 },
      liquid_alpha: { enabled: false, alpha_low: "0.7", alpha_high: "0.9" },
      yuma3_enabled: true,
      hyperparameters: {
        kappa: 32767,
        weights_rate_limit: 100,
        adjustment_alpha: "17893341751498265066",
        bonds_moving_average: "900000",
        weights_version: "0",
        serving_rate_limit: 50,
      },
      _embedded: {
        pool: {
          _links: { self: { href: "/data/v1/subnet-pools/latest?netuid=64" } },
          price_tao: "0.003927757700",
          tao_in_rao: "1216232342225",
          market_cap_rao: "2886862908160",
        },
      },
    });
  });

  it("shows unset identity and settings as null, and the root subnet's pool with include_root", () => {
    const bare = {
      ...subnetsLatestExample.subnets[0]!,
      netuid: 0,
      identity: undefined,
      registration: undefined,
      hyperparameters: undefined,
      pool: undefined,
      name: undefined,
      mechanism: PoolMechanism.POOL_MECHANISM_STABLE,
    };
    const subnet = items(
      renderSubnetsLatest({ ...subnetsLatestExample, subnets: [bare] }, { query: {}, limit: 256 }),
    )[0]!;
    expect(subnet).toMatchObject({
      netuid: 0,
      name: null,
      identity: null,
      registration: null,
      hyperparameters: null,
      mechanism: "stable",
    });
    expect(subnet._embedded).toBeUndefined();
    expect(subnet._links).toMatchObject({ pool: { href: "/data/v1/subnet-pools/latest?netuid=0&include_root=true" } });
  });
});

describe("renderValidatorsLatest", () => {
  it("renders stake in nalpha and rao, scores as decimals, blocks as integers, and links the keys", () => {
    const body = renderValidatorsLatest(validatorsLatestExample, {
      netuid: 64,
      query: { sort: "dividends", limit: 1 },
      limit: 1,
    });
    expect(body._links).toEqual({
      self: { href: "/data/v1/subnets/64/validators/latest?sort=dividends&limit=1" },
      next: { href: `/data/v1/subnets/64/validators/latest?sort=dividends&limit=1&cursor=${EXAMPLE_CURSOR}` },
      subnet: { href: "/data/v1/subnets/latest?netuid=64" },
      holders: { href: "/data/v1/subnets/64/holders/top" },
      pool: { href: "/data/v1/subnet-pools/latest?netuid=64" },
    });
    expect(body.netuid).toBe(64);
    expect(items(body)[0]).toEqual({
      _links: {
        hotkey: { href: `/data/v1/accounts/${BOB.ss58}/balance/latest` },
        "coldkey-balance": { href: `/data/v1/accounts/${ALICE.ss58}/balance/latest` },
        subnet: { href: "/data/v1/subnets/latest?netuid=64" },
        holders: { href: "/data/v1/subnets/64/holders/top" },
      },
      uid: 140,
      hotkey: account(BOB),
      coldkey: account(ALICE),
      identity: {
        name: "Example Validator",
        url: "https://validator.example",
        github_repo: "",
        image: "",
        discord: "",
        description: "",
        additional: "",
      },
      validator_permit: true,
      active: true,
      registered_at_block: 2064863,
      take: "0.17999542",
      childkey_take: "0",
      alpha_stake_nalpha: "28193611901088",
      root_stake_rao: "100074319189",
      stake_weight: "46207010665842",
      total_stake_value_rao: "210811402214",
      dividends: "0.12471199",
      vtrust: "0.86720073",
      incentive: "0",
      consensus: "0",
      emission_nalpha: "1706598192",
      alpha_dividends_nalpha: "1706598192",
      root_alpha_dividends_nalpha: "0",
      last_update_block: 7012300,
      blocks_since_update: 45,
      nominators_count: 8695,
      hotkey_dividends_nalpha: "2081217307",
      yield: {
        yield_1h: "0.184023117560264811",
        yield_1d: "0.179631840128655318",
        yield_7d: "0.181125707716270994",
        yield_30d: null,
        covered_from_block: 6869880,
        covered_from_time: "2026-07-31T17:07:00.000Z",
      },
    });
  });

  it("renders a validator without a yield index (no epoch seen yet) with every yield and the covered window null", () => {
    const [validator] = validatorsLatestExample.validators;
    const { yield: _yield, ...withoutYield } = validator!;
    const body = renderValidatorsLatest(
      { ...validatorsLatestExample, validators: [withoutYield] },
      { netuid: 64, query: {}, limit: 1 },
    );
    expect(items(body)[0]?.yield).toEqual({
      yield_1h: null,
      yield_1d: null,
      yield_7d: null,
      yield_30d: null,
      covered_from_block: null,
      covered_from_time: null,
    });
  });
});

describe("renderHoldersTop", () => {
  it("renders ranks, shares and per-hotkey holdings, the coverage by name, and links each holder's account", () => {
    const body = renderHoldersTop(holdersTopExample, { netuid: 64, query: { group_by: "coldkey" }, limit: 100 });
    expect(body).toMatchObject({
      netuid: 64,
      holders_count: 5123,
      alpha_out_nalpha: "425339517721064",
      price_tao: "0.003927757700",
      coverage: "registered_hotkeys_only",
      page: { limit: 1, next_cursor: EXAMPLE_CURSOR, has_more: true },
    });
    expect(body._links).toMatchObject({
      self: { href: "/data/v1/subnets/64/holders/top?group_by=coldkey" },
      next: { href: `/data/v1/subnets/64/holders/top?group_by=coldkey&cursor=${EXAMPLE_CURSOR}` },
      validators: { href: "/data/v1/subnets/64/validators/latest" },
    });
    expect(items(body)[0]).toEqual({
      _links: {
        "account-balance": { href: `/data/v1/accounts/${ALICE.ss58}/balance/latest` },
        "account-transactions": { href: `/data/v1/accounts/${ALICE.ss58}/transactions` },
      },
      rank: 1,
      coldkey: account(ALICE),
      hotkey: null,
      alpha_nalpha: "28193611901088",
      share_of_alpha_out: "0.066284",
      value_rao: "110737526389",
      positions_count: 2,
      hotkeys: [
        { hotkey: account(BOB), alpha_nalpha: "20000000000000" },
        { hotkey: account(CHARLIE), alpha_nalpha: "8193611901088" },
      ],
      identity_name: "Example Validator",
    });
    expect(
      renderHoldersTop(
        { ...holdersTopExample, coverage: HolderCoverage.HOLDER_COVERAGE_COMPLETE },
        { netuid: 64, query: {}, limit: 100 },
      ).coverage,
    ).toBe("complete");
  });
});
