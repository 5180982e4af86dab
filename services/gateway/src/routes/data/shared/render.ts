import type { PageState } from "@platform/http";
import { type AsOf, Finality, Interval } from "@platform/proto/common/v1/common";
import {
  type AccountId,
  Direction,
  HolderCoverage,
  PoolMechanism,
  TransactionSource,
  TransactionType,
} from "@platform/proto/common/v1/network";
import type { z } from "zod";
import { accountBalanceHref } from "./links.js";
import type { AccountSchema, AsOfSchema, INTERVAL_NAME_LIST, SubjectSchema } from "./wire.js";

/**
 * Rendering conventions of the Data API: snake_case members with the unit in the name, amounts and
 * ratios as the decimal strings the backend computed (never re-rounded here), block numbers,
 * netuids and counts as JSON integers, enum values as short lowercase names, and null for what the
 * backend does not know (a stable shape: a missing member never means "unknown").
 */

/** uint64 block numbers and counts arrive as decimal strings; they stay far below 2^53. */
export const integer = (value: string): number => Number(value);
export const optionalInteger = (value: string | undefined): number | null =>
  value === undefined ? null : Number(value);
export const orNull = <T>(value: T | undefined): T | null => (value === undefined ? null : value);

const FINALITY: Partial<Record<Finality, "latest" | "safe" | "finalized">> = {
  [Finality.FINALITY_LATEST]: "latest",
  [Finality.FINALITY_SAFE]: "safe",
  [Finality.FINALITY_FINALIZED]: "finalized",
};

/** What the answer reflects: the block the backend's view was taken at. */
export function renderAsOf(asOf: AsOf | undefined): z.output<typeof AsOfSchema> | null {
  if (asOf === undefined) return null;
  return {
    chain_id: integer(asOf.chainId),
    block_number: integer(asOf.blockNumber),
    block_hash: asOf.blockHash,
    timestamp: asOf.timestamp,
    finality: FINALITY[asOf.finality] ?? null,
  };
}

export function renderAccount(account: AccountId | undefined): z.output<typeof AccountSchema> | null {
  if (account === undefined) return null;
  return { ss58: account.ss58, public_key: account.publicKey, evm_h160: account.evmH160 ?? null };
}

/** The account a route is about, with how it was given: a native key, or an EVM address mapped onto one. */
export function renderSubject(account: AccountId | undefined): z.output<typeof SubjectSchema> | null {
  if (account === undefined) return null;
  return { ...renderAccount(account)!, kind: account.evmH160 === undefined ? "substrate" : "evm_mapped" };
}

/** An account with a link to its balance, for lists that name accounts (holders, validators). */
export function accountLink(account: AccountId | undefined) {
  return account === undefined || account.ss58 === "" ? undefined : { href: accountBalanceHref(account.ss58) };
}

const INTERVAL_NAMES: Partial<Record<Interval, (typeof INTERVAL_NAME_LIST)[number]>> = {
  [Interval.INTERVAL_BLOCK]: "block",
  [Interval.INTERVAL_FIVE_MINUTES]: "5m",
  [Interval.INTERVAL_ONE_HOUR]: "1h",
  [Interval.INTERVAL_FOUR_HOURS]: "4h",
  [Interval.INTERVAL_ONE_DAY]: "1d",
  [Interval.INTERVAL_ONE_WEEK]: "1w",
};
export const intervalName = (interval: Interval): (typeof INTERVAL_NAME_LIST)[number] | null =>
  INTERVAL_NAMES[interval] ?? null;

/** `TRANSACTION_TYPE_STAKE_ADD` → `stake_add`: the proto enum name without its prefix. */
function shortName(names: object, value: number, prefix: string): string | null {
  // A numeric TypeScript enum maps each value back to its name.
  const name = (names as Record<number, unknown>)[value];
  if (typeof name !== "string" || !name.startsWith(prefix) || name.endsWith("_UNSPECIFIED")) return null;
  return name.slice(prefix.length).toLowerCase();
}

/** Every name shortName gives for values of `names`: what the answer schemas list. */
export function shortNames(names: object, prefix: string): string[] {
  return Object.values(names)
    .filter((value): value is number => typeof value === "number")
    .map((value) => shortName(names, value, prefix))
    .filter((name): name is string => name !== null);
}

export const transactionTypeName = (type: TransactionType) => shortName(TransactionType, type, "TRANSACTION_TYPE_");
export const directionName = (direction: Direction) => shortName(Direction, direction, "DIRECTION_");
export const transactionSourceName = (source: TransactionSource) =>
  shortName(TransactionSource, source, "TRANSACTION_SOURCE_");
export const mechanismName = (mechanism: PoolMechanism) => shortName(PoolMechanism, mechanism, "POOL_MECHANISM_");
export const coverageName = (coverage: HolderCoverage) => shortName(HolderCoverage, coverage, "HOLDER_COVERAGE_");

/** The canonical query of a request, as it goes back into links. */
export type LinkQuery = Record<string, string | number | undefined>;

/** A missing page means the backend returned everything there is. */
export const pageOf = (page: PageState | undefined, limit: number): PageState => page ?? { limit, hasMore: false };

/** What a collection render needs to know of its request. */
export interface PageView {
  query: LinkQuery;
  cursor?: string | undefined;
  /** The limit asked for, shown when the backend sends no page. */
  limit: number;
}
