import { decimalAtMostPattern, integerQuery, patternString } from "@platform/http";
import { maxUint256 } from "viem";
import { z } from "zod";

/** A 0x-prefixed 32-byte hex value (order id, tx hash), any case in, lowercase out. */
export const hash32 = (what: string) =>
  z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, { error: `must be a 0x-prefixed 32-byte hex ${what}` })
    .transform((value) => value.toLowerCase())
    .meta({
      description: `0x-prefixed 32-byte hex ${what}`,
      examples: ["0x9f2c5a1e7d4b3c2a1f0e9d8c7b6a5f4e3d2c1b0a99887766554433221100ffee"],
    });

/** Chain ids are JSON integers in bodies. */
export const chainIdField = (description: string) =>
  z.number().int().positive().max(Number.MAX_SAFE_INTEGER).meta({ description });

/** Chain ids arrive as text in a query string. */
export const chainIdQuery = (description: string) =>
  integerQuery({ min: 1, max: Number.MAX_SAFE_INTEGER, description });

/**
 * uint256 values as decimal strings (they do not fit a JSON number), without leading zeros, up to
 * 2^256 - 1: as the intents service reads them. Amounts are positive; a nonce may be zero.
 */
export const baseUnits = (description: string, options: { positive: boolean } = { positive: true }) =>
  z
    .string()
    .regex(new RegExp(decimalAtMostPattern(maxUint256, options)), {
      error: `must be a ${options.positive ? "positive " : ""}decimal integer of at most 256 bits, without leading zeros`,
    })
    .meta({ description, examples: ["100000000"] });

export const PAGE_DEFAULT = 20;
export const PAGE_MAX = 100;

/** `limit` and `cursor` of the user lists; a malformed cursor is INVALID_CURSOR before any backend call. */
export const pageQuery = {
  limit: integerQuery({
    min: 1,
    max: PAGE_MAX,
    default: PAGE_DEFAULT,
    description: `Page size, default ${PAGE_DEFAULT}, at most ${PAGE_MAX}`,
  }).optional(),
  // Empty means the first page, as when absent.
  cursor: patternString(/^[A-Za-z0-9_-]{0,1024}$/, { message: "is not a cursor of this list", code: "INVALID_CURSOR" })
    .optional()
    .meta({ description: "Opaque: page.next_cursor of the previous page of the same query" }),
};
