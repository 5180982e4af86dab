import { component, HalLinkSchema, OptionalHalLinkSchema } from "@platform/http";
import { z } from "zod";

/**
 * The shapes of the Data API's answers that several answers share (render.ts renders them): each
 * is one named schema in the OpenAPI document. Amounts and ratios are decimal strings (the
 * backend's exact figures), block numbers, netuids and counts JSON integers, and null stands for
 * what the backend does not know.
 */

/** A decimal string in the unit its member's name says (tao, usd, pct...); amounts in rao or nalpha are `baseUnits`. */
export const decimal = (description?: string) =>
  description === undefined ? z.string() : z.string().meta({ description });
export const nullableDecimal = (description?: string) => decimal(description).nullable();
/**
 * An amount in base units, as an integer string (rao: 10^-9 TAO; nalpha: 10^-9 of a subnet's
 * alpha), its unit in its member's name: the one unit rule of the document (openapi.test.ts holds
 * every `_rao` and `_nalpha` member to it). Signed where a change can be negative.
 */
export const baseUnits = (description?: string) => {
  const schema = z.string().regex(BASE_UNITS_PATTERN);
  return description === undefined ? schema : schema.meta({ description });
};
export const nullableBaseUnits = (description?: string) => baseUnits(description).nullable();
/** An integer string, signed: what `baseUnits` allows. */
export const BASE_UNITS_PATTERN = /^-?[0-9]+$/;
export const count = () => z.number().int().nonnegative();
export const blockNumber = () => z.number().int().nonnegative();
export const netuid = () => z.number().int().min(0).max(65_535);
/** An ISO 8601 instant. */
export const instant = () => z.string().meta({ description: "ISO 8601 instant (UTC)" });

/** A short lowercase name of a proto enum value, or null when the backend sent none it knows. */
export const enumName = (names: readonly string[], description: string) =>
  z
    .enum(names as [string, ...string[]])
    .nullable()
    .meta({ description });

export const FinalitySchema = z
  .enum(["latest", "safe", "finalized"])
  .nullable()
  .meta({ description: "How settled the block is: latest, safe or finalized" });

export const AsOfSchema = component(
  "AsOf",
  z
    .object({
      chain_id: z.number().int(),
      block_number: blockNumber(),
      block_hash: z.string(),
      timestamp: instant(),
      finality: FinalitySchema,
    })
    .meta({ description: "The block the answer reflects: the read model's head when it was read" }),
);

export const AccountSchema = component(
  "Account",
  z
    .object({
      ss58: z.string().meta({ description: "SS58 address" }),
      public_key: z.string().meta({ description: "0x-prefixed 32-byte public key" }),
      evm_h160: z.string().nullable().meta({ description: "The EVM address mapped onto it, when known" }),
    })
    .meta({ description: "A Bittensor account" }),
);

export const SubjectSchema = component(
  "AccountSubject",
  AccountSchema.extend({
    kind: z
      .enum(["substrate", "evm_mapped"])
      .meta({ description: "How it was named: a native key, or an EVM address mapped onto one" }),
  }).meta({ description: "The account a route is about, with how it was given" }),
);

export const INTERVAL_NAME_LIST = ["block", "5m", "1h", "4h", "1d", "1w"] as const;
export const IntervalSchema = z.enum(INTERVAL_NAME_LIST).nullable().meta({ description: "Bucket width of the series" });

/** A collection page's `_links`: self, next while there is more, and the related resources. */
export const collectionLinks = <S extends Record<string, z.ZodType>>(related: S) =>
  z.object({ self: HalLinkSchema, next: OptionalHalLinkSchema, ...related });

/** The links every subnet-scoped item carries (links.ts subnetLinks), less the item's own view. */
const subnetLinkShape = {
  subnet: HalLinkSchema,
  pool: HalLinkSchema,
  "pool-history": HalLinkSchema,
  emissions: HalLinkSchema,
  validators: HalLinkSchema,
  holders: HalLinkSchema,
};
export const subnetItemLinks = <K extends keyof typeof subnetLinkShape>(own: K) => {
  const { [own]: _own, ...related } = subnetLinkShape;
  return related as Omit<typeof subnetLinkShape, K>;
};
