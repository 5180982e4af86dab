import { Direction, TransactionSource, TransactionType } from "@platform/proto/common/v1/network";
import { Valuation } from "@platform/proto/data/v1/accounts";
import { describe, expect, it } from "vitest";
import {
  ALICE,
  BOB,
  balanceHistoryExample,
  balanceLatestExample,
  CHARLIE,
  EVM_ACCOUNT,
  EXAMPLE_CURSOR,
  transactionsExample,
} from "../examples.js";
import {
  renderBalanceHistory,
  renderBalanceLatest,
  renderTransaction,
  renderTransactions,
  valuationName,
} from "./renderAccounts.js";

const AS_OF = {
  chain_id: 945,
  block_number: 7012345,
  block_hash: balanceLatestExample.asOf!.blockHash,
  timestamp: "2026-08-20T12:00:00.000Z",
  finality: "latest",
};
const account = (id: { ss58: string; publicKey: string }) => ({
  ss58: id.ss58,
  public_key: id.publicKey,
  evm_h160: null,
});

describe("renderBalanceLatest", () => {
  it("renders every balance in rao with the positions embedded and the account's other views linked", () => {
    const body = renderBalanceLatest(balanceLatestExample, {
      address: ALICE.ss58,
      query: { valuation: "spot", netuid: undefined },
    });
    expect(body._links).toEqual({
      self: { href: `/data/v1/accounts/${ALICE.ss58}/balance/latest?valuation=spot` },
      history: { href: `/data/v1/accounts/${ALICE.ss58}/balance/history` },
      transactions: { href: `/data/v1/accounts/${ALICE.ss58}/transactions` },
      "coin-price": { href: "/data/v1/coin/price/latest" },
    });
    const { _links, _embedded, ...state } = body;
    expect(state).toEqual({
      as_of: AS_OF,
      address: { ...account(ALICE), kind: "substrate" },
      balance_free_rao: "19349963",
      balance_reserved_rao: "93000000",
      balance_frozen_rao: "0",
      balance_staked_rao: "101074319189",
      balance_staked_root_rao: "100074319189",
      balance_staked_alpha_value_rao: "1000000000",
      balance_total_rao: "101186669152",
      valuation: "spot",
      price_usd: "322.12",
      balance_total_usd: "32594.25",
      positions_count: 2,
    });
    expect(_embedded!.positions).toEqual([
      {
        _links: {
          self: { href: "/data/v1/subnet-pools/latest?netuid=0&include_root=true" },
          subnet: { href: "/data/v1/subnets/latest?netuid=0" },
          validators: { href: "/data/v1/subnets/0/validators/latest" },
          hotkey: { href: `/data/v1/accounts/${BOB.ss58}/balance/latest` },
        },
        netuid: 0,
        hotkey: account(BOB),
        hotkey_name: "Bob's validator",
        stake_nalpha: "100074319189",
        price_tao: "1",
        value_rao: "100074319189",
      },
      expect.objectContaining({
        netuid: 64,
        hotkey: account(CHARLIE),
        hotkey_name: null,
        price_tao: "0.003927757700",
        value_rao: "1000000000",
      }),
    ]);
  });

  it("keeps the caller's spelling of the address in links, escaped, and shows a fresh account as zeros", () => {
    const evm = EVM_ACCOUNT.evmH160!;
    const fresh = renderBalanceLatest(
      {
        ...balanceLatestExample,
        address: EVM_ACCOUNT,
        balanceFreeRao: "0",
        balanceTotalRao: "0",
        priceUsd: undefined,
        balanceTotalUsd: undefined,
        positionsCount: 0,
        positions: [],
      },
      { address: evm, query: {} },
    );
    expect(fresh._links.self).toEqual({ href: `/data/v1/accounts/${evm}/balance/latest` });
    expect(fresh).toMatchObject({
      address: { ss58: EVM_ACCOUNT.ss58, public_key: EVM_ACCOUNT.publicKey, evm_h160: evm, kind: "evm_mapped" },
      balance_total_rao: "0",
      price_usd: null,
      balance_total_usd: null,
      positions_count: 0,
    });
    expect(fresh._embedded).toEqual({ positions: [] });
  });

  it("names valuations", () => {
    expect(
      [Valuation.VALUATION_SPOT, Valuation.VALUATION_UNSTAKE, Valuation.VALUATION_UNSPECIFIED].map(valuationName),
    ).toEqual(["spot", "unstake", null]);
  });
});

describe("renderBalanceHistory", () => {
  it("pages the points with self and next links carrying the same window", () => {
    const body = renderBalanceHistory(balanceHistoryExample, {
      address: ALICE.ss58,
      query: { start: "2026-08-01T00:00:00.000Z", end: undefined, interval: "1d", limit: 1 },
      limit: 1,
    });
    const path = `/data/v1/accounts/${ALICE.ss58}/balance/history`;
    expect(body._links).toEqual({
      self: { href: `${path}?start=2026-08-01T00%3A00%3A00.000Z&interval=1d&limit=1` },
      next: { href: `${path}?start=2026-08-01T00%3A00%3A00.000Z&interval=1d&limit=1&cursor=${EXAMPLE_CURSOR}` },
      latest: { href: `/data/v1/accounts/${ALICE.ss58}/balance/latest` },
      transactions: { href: `/data/v1/accounts/${ALICE.ss58}/transactions` },
    });
    expect(body).toMatchObject({
      as_of: AS_OF,
      address: { ...account(ALICE), kind: "substrate" },
      interval: "1d",
      page: { limit: 1, next_cursor: EXAMPLE_CURSOR, has_more: true },
    });
    expect((body._embedded as { items: unknown[] }).items).toEqual([
      {
        bucket_start: "2026-08-19T00:00:00.000Z",
        block_number: 7011999,
        timestamp: "2026-08-19T23:59:48.000Z",
        balance_free_rao: "19349963",
        balance_reserved_rao: "93000000",
        balance_staked_rao: "101074319189",
        balance_staked_root_rao: "100074319189",
        balance_staked_alpha_value_rao: "1000000000",
        balance_total_rao: "101186669152",
        price_usd: "320.50",
        balance_total_usd: "32430.33",
        change_total_rao: "-1500",
        positions: [
          { netuid: 0, alpha_nalpha: "100074319189", reward_alpha_nalpha: "1843200" },
          { netuid: 64, alpha_nalpha: "254600000000", reward_alpha_nalpha: "912000000" },
        ],
        reward_rao: "3427200",
        reward_blocks: 2,
      },
    ]);
  });

  it("has no next link on the last page, and shows the requested limit when the backend sends no page", () => {
    const body = renderBalanceHistory(
      { ...balanceHistoryExample, page: undefined },
      { address: ALICE.ss58, query: {}, limit: 100 },
    );
    expect(body._links.next).toBeUndefined();
    expect(body.page).toEqual({ limit: 100, next_cursor: null, has_more: false });
  });
});

describe("renderTransactions", () => {
  it("renders types, directions and sources by name, amounts in rao, and links the counterparty and subnet", () => {
    const [stake, transfer] = transactionsExample.transactions;
    expect(renderTransaction(stake!, ALICE)).toEqual({
      _links: {
        subnet: { href: "/data/v1/subnets/latest?netuid=64" },
        counterparty: { href: `/data/v1/accounts/${CHARLIE.ss58}/balance/latest` },
      },
      id: "7012345-0012-0031",
      type: "stake_add",
      direction: "out",
      success: true,
      block_number: 7012345,
      block_hash: null,
      timestamp: "2026-08-20T12:00:00.000Z",
      extrinsic_id: "7012345-0012",
      extrinsic_hash: stake!.extrinsicHash,
      evm_tx_hash: null,
      from: account(ALICE),
      to: account(CHARLIE),
      amount_rao: "1000000000",
      fee_rao: "1301638",
      netuid: 64,
      hotkey: account(CHARLIE),
      alpha_nalpha: "254600000000",
      effective_price_tao: "0.003927757700",
      slippage: "0.0015",
      source: "substrate_event",
      event_name: "SubtensorModule.StakeAdded",
    });
    expect(renderTransaction(transfer!, ALICE)).toMatchObject({
      _links: { counterparty: { href: `/data/v1/accounts/${EVM_ACCOUNT.ss58}/balance/latest` } },
      type: "transfer",
      direction: "in",
      netuid: null,
      hotkey: null,
      from: {
        ss58: EVM_ACCOUNT.ss58,
        public_key: EVM_ACCOUNT.publicKey,
        evm_h160: "0x52908400098527886E0F7030069857D2E4169EE7",
      },
      source: "evm_tx",
      evm_tx_hash: transfer!.evmTxHash,
      extrinsic_id: null,
      event_name: null,
    });
  });

  it("renders a reward: its position's subnet, hotkey, alpha and TAO value at its block, without counterparty", () => {
    const reward = transactionsExample.transactions[2]!;
    expect(renderTransaction(reward, ALICE)).toEqual({
      _links: { subnet: { href: "/data/v1/subnets/latest?netuid=64" } },
      id: `7012296-reward-64-${CHARLIE.publicKey}`,
      type: "reward",
      direction: "in",
      success: true,
      block_number: 7012296,
      block_hash: reward.blockHash,
      timestamp: "2026-08-20T11:50:12.000Z",
      extrinsic_id: null,
      extrinsic_hash: null,
      evm_tx_hash: null,
      from: null,
      to: account(ALICE),
      amount_rao: "3582000",
      fee_rao: null,
      netuid: 64,
      hotkey: account(CHARLIE),
      alpha_nalpha: "912000000",
      effective_price_tao: null,
      slippage: null,
      source: "storage",
      event_name: null,
    });
  });

  it("has no counterparty for a transfer to oneself, and null names for unspecified enums", () => {
    const self = renderTransaction(
      {
        ...transactionsExample.transactions[1]!,
        from: ALICE,
        to: ALICE,
        type: TransactionType.TRANSACTION_TYPE_UNSPECIFIED,
        direction: Direction.DIRECTION_UNSPECIFIED,
        source: TransactionSource.TRANSACTION_SOURCE_UNSPECIFIED,
      },
      ALICE,
    );
    expect(self._links).toEqual({});
    expect(self).toMatchObject({ type: null, direction: null, source: null });
  });

  it("pages with every filter kept in the links", () => {
    const body = renderTransactions(transactionsExample, {
      address: ALICE.ss58,
      query: { type: "transfer,stake_add", direction: "in", limit: 3 },
      limit: 3,
    });
    const path = `/data/v1/accounts/${ALICE.ss58}/transactions`;
    expect(body._links.self).toEqual({ href: `${path}?type=transfer%2Cstake_add&direction=in&limit=3` });
    expect(body._links.next).toEqual({
      href: `${path}?type=transfer%2Cstake_add&direction=in&limit=3&cursor=${EXAMPLE_CURSOR}`,
    });
    expect(body._links).toMatchObject({
      balance: { href: `/data/v1/accounts/${ALICE.ss58}/balance/latest` },
      history: { href: `/data/v1/accounts/${ALICE.ss58}/balance/history` },
    });
    expect((body._embedded as unknown as { items: Array<{ id: string }> }).items.map((item) => item.id)).toEqual([
      "7012345-0012-0031",
      "7012300-0003-0007",
      `7012296-reward-64-${CHARLIE.publicKey}`,
    ]);
  });
});
