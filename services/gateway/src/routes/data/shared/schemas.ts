import {
  instantQuery,
  integerItem,
  integerQuery,
  listQuery,
  type ParameterRule,
  parametersOfRule,
  patternString,
  wireSchemas,
  withParameterRules,
} from "@platform/http";
import { type BlockSelector, Interval, SortOrder, type TimeWindow } from "@platform/proto/common/v1/common";
import { checkAccountAddress, INVALID_ADDRESS, isInvalidAddressError } from "@platform/subtensor";
import { z } from "zod";

/**
 * Inputs shared by the Data API routes. Each schema refuses what it cannot mean with a 400 naming
 * the parameter; limits, windows and cursors that only the backend can judge (window maxima per
 * interval, cursor binding) are passed through and its answer (WINDOW_TOO_LARGE, INVALID_CURSOR)
 * is relayed.
 */

export const NETUID_MAX = 65_535;

/** `{netuid}` in a path: a subnet id (u16 on chain). */
export const netuidPath = () =>
  integerQuery({ min: 0, max: NETUID_MAX, description: "Subnet id (netuid), 0 to 65535" });

/** `netuid=1,2` filters. */
export const netuidList = (max: number, description: string) =>
  listQuery(integerItem(0, NETUID_MAX), { max, description });

/** `limit` and `cursor` with the route's documented default and maximum. */
export function pageQuery(defaultLimit: number, maxLimit: number) {
  return {
    limit: integerQuery({
      min: 1,
      max: maxLimit,
      default: defaultLimit,
      description: `Page size, default ${defaultLimit}, at most ${maxLimit}`,
    }).optional(),
    // Opaque and bound to its query by the backend, which answers INVALID_CURSOR for a wrong one;
    // text that cannot be a cursor is refused here. Empty means the first page, as when absent.
    cursor: patternString(/^[A-Za-z0-9_-]{0,2048}$/, {
      message: "is not a cursor of this list",
      code: "INVALID_CURSOR",
    })
      .optional()
      .meta({ description: "Opaque: page.next_cursor of the previous page of the same query (or follow _links.next)" }),
  };
}

/** The page request sent to the backend: the documented default is applied here, so docs and answers agree. */
export function pageRequest(query: { limit?: number | undefined; cursor?: string | undefined }, defaultLimit: number) {
  return { limit: query.limit ?? defaultLimit, cursor: query.cursor ?? "" };
}

const ORDERS = { asc: SortOrder.SORT_ORDER_ASC, desc: SortOrder.SORT_ORDER_DESC } as const;
export type OrderName = keyof typeof ORDERS;

export const orderQuery = (defaultOrder: OrderName, what: string) =>
  z
    .enum(["asc", "desc"], { error: "must be asc or desc" })
    .optional()
    .meta({ description: `${what}; default ${defaultOrder}` });

export const sortOrderOf = (order: OrderName | undefined): SortOrder =>
  order === undefined ? SortOrder.SORT_ORDER_UNSPECIFIED : ORDERS[order];

/** An enum parameter from a name → proto value table; the error lists the accepted names. */
export function enumQuery<K extends string>(table: Record<K, number>, description: string) {
  const names = Object.keys(table) as [K, ...K[]];
  return z
    .enum(names, { error: `must be one of ${names.join(", ")}` })
    .optional()
    .meta({ description: `${description}: ${names.join(", ")}` });
}

export const INTERVALS = {
  block: Interval.INTERVAL_BLOCK,
  "5m": Interval.INTERVAL_FIVE_MINUTES,
  "1h": Interval.INTERVAL_ONE_HOUR,
  "4h": Interval.INTERVAL_FOUR_HOURS,
  "1d": Interval.INTERVAL_ONE_DAY,
  "1w": Interval.INTERVAL_ONE_WEEK,
} as const;
export type IntervalName = keyof typeof INTERVALS;

const blockQuery = (description: string) => integerQuery({ min: 0, max: Number.MAX_SAFE_INTEGER, description });

/**
 * A history window: half-open `[start, end)` in time, and, on routes that keep per-block points
 * (`blocks`), inclusive `[block_start, block_end]` instead.
 */
export function windowQuery(defaults: string, options: { blocks: boolean } = { blocks: false }) {
  const time = {
    // Examples before end's, so that a client (or a fuzzer) combining them gets a valid window.
    start: instantQuery(`Window start, inclusive; default ${defaults}`, [
      "2026-08-13T00:00:00Z",
      "1786579200",
    ]).optional(),
    end: instantQuery("Window end, exclusive; default now").optional(),
  };
  if (!options.blocks) return time;
  return {
    ...time,
    block_start: blockQuery("First block of the window (inclusive); instead of start/end").optional(),
    block_end: blockQuery("Last block of the window (inclusive); instead of start/end").optional(),
  };
}

/** The bucket size among the route's accepted ones. */
export function intervalQuery(
  intervals: readonly [IntervalName, ...IntervalName[]],
  defaultInterval: IntervalName,
  limits: string,
) {
  return z
    .enum(intervals, { error: `must be one of ${intervals.join(", ")}` })
    .optional()
    .meta({
      description: `Bucket size, aligned to UTC: ${intervals.join(", ")}; default ${defaultInterval}. ${limits}`,
    });
}

interface WindowInput {
  start?: string | undefined;
  end?: string | undefined;
  block_start?: number | undefined;
  block_end?: number | undefined;
  interval?: IntervalName | undefined;
}

/** Window rules the schema of each field cannot see: time and block bounds not mixed, bounds in order. */
export const WINDOW_RULES: ParameterRule[] = [
  {
    kind: "exclusive",
    groups: [
      ["start", "end"],
      ["block_start", "block_end"],
    ],
  },
  {
    kind: "ordered",
    first: "start",
    second: "end",
    strict: true,
    compare: "instant",
    message: "must be after start (the window is [start, end))",
  },
  {
    kind: "ordered",
    first: "block_start",
    second: "block_end",
    strict: false,
    compare: "integer",
    message: "must not be below block_start",
  },
];

/** A history route's query: its fields, checked against the window rules its fields have (and the route's own). */
export function windowedQuery<S extends z.ZodRawShape>(shape: S, extraRules: ParameterRule[] = []) {
  const rules = [...WINDOW_RULES, ...extraRules].filter((rule) =>
    parametersOfRule(rule).every((name) => name in shape),
  );
  return withParameterRules(z.object(shape), rules);
}

/** The proto window; unset bounds and interval mean the route's defaults, applied by the backend. */
export function timeWindow(query: WindowInput): TimeWindow {
  return {
    start: query.start,
    end: query.end,
    interval: query.interval === undefined ? Interval.INTERVAL_UNSPECIFIED : INTERVALS[query.interval],
    blockStart: query.block_start === undefined ? undefined : String(query.block_start),
    blockEnd: query.block_end === undefined ? undefined : String(query.block_end),
  };
}

/** The window as it goes back into links (canonical text forms). */
export function windowLinkQuery(query: WindowInput): Record<string, string | number | undefined> {
  return {
    start: query.start,
    end: query.end,
    block_start: query.block_start,
    block_end: query.block_end,
    interval: query.interval,
  };
}

/** SS58 with prefix 42 of a 32-byte key (48 base58 characters from '5'), a 0x 32-byte key or a 0x H160. */
const ACCOUNT_ADDRESS_PATTERN = "^(5[1-9A-HJ-NP-Za-km-z]{47}|0x[0-9a-fA-F]{64}|0x[0-9a-fA-F]{40})$";

/**
 * An account: SS58 (prefix 42), 0x 32-byte public key, or 0x 20-byte EVM address (any case;
 * mixed case must carry a valid EIP-55 checksum). The text goes to the backend unchanged (it
 * echoes the EVM form when given one); parsing here turns a malformed one into 400
 * INVALID_ADDRESS before any backend call.
 */
export const accountAddress = (description: string) =>
  z
    .string()
    .superRefine((text, context) => {
      try {
        checkAccountAddress(text);
      } catch (error) {
        if (!isInvalidAddressError(error)) throw error;
        context.addIssue({
          code: "custom",
          message: `is not an account address (${error.reason})`,
          params: { code: INVALID_ADDRESS },
        });
      }
    })
    .meta({
      description: `${description}: SS58 (prefix 42), 0x-prefixed 32-byte public key, or 0x-prefixed 20-byte EVM address (mapped with HashedAddressMapping)`,
      // The shape; the SS58 checksum (blake2b-512 of "SS58PRE" and the payload) and, for a
      // mixed-case EVM address, its EIP-55 checksum are the format's rules.
      pattern: ACCOUNT_ADDRESS_PATTERN,
      format: "bittensor-account",
      examples: ["5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY"],
    });

/** What `block_number` asks for: a block number, or the newest finalized block. */
export type BlockWanted = number | "finalized";

const BLOCK_NUMBER = /^\d{1,16}$/;

/**
 * `block_number` of the `latest` routes over the native network: a block number (the state at
 * that block of the canonical chain) or `finalized` (the newest finalized block). Absent, the
 * newest block, as before. Whether the block is held is the backend's to say (404
 * BLOCK_NOT_YET_INDEXED, BLOCK_BEFORE_HISTORY); anything else is 400 INVALID_PARAMETER here.
 */
export const blockNumberQuery = () =>
  z
    .string()
    .transform((text, context): BlockWanted => {
      if (text === "finalized") return "finalized";
      const value = BLOCK_NUMBER.test(text) ? Number(text) : Number.NaN;
      if (Number.isSafeInteger(value)) return value;
      context.addIssue({
        code: "custom",
        message: `must be a block number (0 to ${Number.MAX_SAFE_INTEGER}) or finalized`,
      });
      return z.NEVER;
    })
    .register(wireSchemas, {
      jsonSchema: {
        description:
          "The block to answer at: a block number (the state at that block of the canonical chain as the API knows it; after a reorganisation, the block now at that height) or `finalized` (the newest finalized block). Default: the newest block. as_of names the block answered; an answer at a finalized block given by number never changes (Cache-Control immutable). A block above the newest indexed is 404 BLOCK_NOT_YET_INDEXED, one before the first block followed 404 BLOCK_BEFORE_HISTORY. For example `block_number=1200` or `block_number=finalized`.",
        // No examples: the reference page's "try it" sends a parameter's example, and any fixed
        // block number is beyond the head of a young chain (a 404 for a reader who asked for nothing).
        anyOf: [
          { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
          { type: "string", enum: ["finalized"] },
        ],
      },
    });

/** The `block_number` query member of a latest route. */
export const blockNumberShape = () => ({ block_number: blockNumberQuery().optional() });

/** The proto BlockSelector of `block_number`; undefined for the newest block. */
export function blockSelectorOf(wanted: BlockWanted | undefined): BlockSelector | undefined {
  if (wanted === undefined) return undefined;
  return wanted === "finalized"
    ? { block: { $case: "finalized", value: true } }
    : { block: { $case: "number", value: String(wanted) } };
}
