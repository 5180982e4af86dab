import { z } from "zod";

/** A 0x-prefixed 32-byte hex value (order id, tx hash), any case in, lowercase out. */
export const hash32 = (what: string) =>
  z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, { error: `must be a 0x-prefixed 32-byte hex ${what}` })
    .transform((value) => value.toLowerCase())
    .meta({ description: `0x-prefixed 32-byte hex ${what}`, examples: ["0x9f2c5a1e7d4b3c2a1f0e9d8c7b6a5f4e3d2c1b0a99887766554433221100ffee"] });

/** Chain ids are JSON integers in bodies. */
export const chainIdField = (description: string) => z.number().int().positive().max(Number.MAX_SAFE_INTEGER).meta({ description });

/** Chain ids arrive as text in a query string. */
export const chainIdQuery = (description: string) => z.coerce.number({ error: "must be a chain id" }).int().positive().max(Number.MAX_SAFE_INTEGER).meta({ description });

/** Amounts are decimal strings of base units: uint256 does not fit a JSON number. */
export const baseUnits = (description: string) =>
  z
    .string()
    .regex(/^[0-9]{1,78}$/, { error: "must be a decimal string of base units" })
    .meta({ description, examples: ["100000000"] });

export const PAGE_DEFAULT = 20;
export const PAGE_MAX = 100;

/** `limit` and `cursor` of the user lists; a malformed cursor is INVALID_CURSOR before any backend call. */
export const pageQuery = {
  limit: z.coerce
    .number({ error: "must be a whole number" })
    .int({ error: "must be a whole number" })
    .min(1, { error: `must be between 1 and ${PAGE_MAX}` })
    .max(PAGE_MAX, { error: `must be between 1 and ${PAGE_MAX}` })
    .optional()
    .meta({ description: `Page size, default ${PAGE_DEFAULT}, at most ${PAGE_MAX}` }),
  cursor: z
    .string()
    .refine((value) => /^[A-Za-z0-9_-]{1,1024}$/.test(value), { error: "is not a cursor of this list", params: { code: "INVALID_CURSOR" } })
    .optional()
    .meta({ description: "Opaque: page.next_cursor of the previous page of the same query" }),
};
