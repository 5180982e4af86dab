import { component, HalLinkSchema, OptionalHalLinkSchema, PageSchema } from "@platform/http";
import { z } from "zod";

/**
 * The shapes of the Data API's answers that several answers share (render.ts renders them): each
 * is one named schema in the OpenAPI document. Amounts and ratios are decimal strings (the
 * backend's exact figures), block numbers, netuids and counts JSON integers, and null stands for
 * what the backend does not know.
 */

/**
 * A decimal string (the backend's exact figure, never a float): optional minus sign, digits, and a
 * fraction only when it is not zero; never an exponent (data-query `shared/decimal.ts`,
 * `@platform/subtensor` `formatScaled`). Signed, as a price change or a difference can be negative.
 */
export const DECIMAL_PATTERN = /^-?[0-9]+(\.[0-9]+)?$/;
/** An unsigned integer string: a u64 or wider chain value that can exceed 2^53 (a difficulty, a round id). */
export const UNSIGNED_INTEGER_PATTERN = /^[0-9]+$/;
/** An integer string, signed: what `baseUnits` allows. */
export const BASE_UNITS_PATTERN = /^-?[0-9]+$/;

/** Puts a description on the member itself (on the outer schema of a nullable one). */
const described = <S extends z.ZodType>(schema: S, description: string | undefined): S =>
  description === undefined ? schema : schema.meta({ description });

/** A decimal string in the unit its member's name says (tao, usd, pct...); amounts in rao or nalpha are `baseUnits`. */
export const decimal = (description?: string) => described(z.string().regex(DECIMAL_PATTERN), description);
export const nullableDecimal = (description?: string) =>
  described(z.string().regex(DECIMAL_PATTERN).nullable(), description);
/** A u64 (or wider) chain value as an unsigned integer string, so it keeps every digit. */
export const integerText = (description: string) => z.string().regex(UNSIGNED_INTEGER_PATTERN).meta({ description });
/**
 * An amount in base units, as an integer string (rao: 10^-9 TAO; nalpha: 10^-9 of a subnet's
 * alpha), its unit in its member's name: the one unit rule of the document (unitRule.test.ts holds
 * every `_rao` and `_nalpha` member to it). Signed where a change can be negative.
 */
export const baseUnits = (description?: string) => described(z.string().regex(BASE_UNITS_PATTERN), description);
export const nullableBaseUnits = (description?: string) =>
  described(z.string().regex(BASE_UNITS_PATTERN).nullable(), description);
export const count = (description?: string) => described(z.number().int().nonnegative(), description);
export const blockNumber = (description?: string) => described(z.number().int().nonnegative(), description);
export const netuid = (description = "Subnet id (netuid); 0 is the root subnet") =>
  z.number().int().min(0).max(65_535).meta({ description });
/** An ISO 8601 instant. */
export const instant = (description = "ISO 8601 instant (UTC)") => z.string().meta({ description });

/** A HAL link of `_links`, with what it leads to. */
export const link = (description: string) => HalLinkSchema.meta({ description });
/** A HAL link of `_links` that only some answers carry. */
export const optionalLink = (description: string) => OptionalHalLinkSchema.meta({ description });
/** The `_links` object of an answer or an item. */
export const linksOf = <S extends z.ZodRawShape>(shape: S) =>
  z.object(shape).meta({ description: "Related resources, by relation name (HAL)" });
/** The `as_of` member of an answer. */
export const asOf = () =>
  AsOfSchema.nullable().meta({
    description: "The block the answer reflects; null while the read model holds no block yet",
  });
/** The `page` member of a collection. */
export const page = () =>
  PageSchema.meta({ description: "Where this page stands: its size and the next page's cursor" });
/** The `_embedded` member of a collection: its items. */
export const embeddedItems = <T extends z.ZodType>(item: T, what: string) =>
  z.object({ items: z.array(item).meta({ description: what }) }).meta({ description: "The page's items (HAL)" });

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
      chain_id: z.number().int().meta({
        description:
          "The id of the chain read, as the deployment configures it (for Bittensor its EVM chain id: 964 on mainnet, 945 on testnet)",
      }),
      block_number: blockNumber("The block's number"),
      block_hash: z.string().meta({ description: "The block's hash, 0x-prefixed 32 bytes" }),
      timestamp: instant("The block's timestamp (its Timestamp.set), ISO 8601 (UTC)"),
      finality: FinalitySchema,
    })
    .meta({ description: "The block the answer reflects: the read model's head when it was read" }),
);

export const AccountSchema = component(
  "Account",
  z
    .object({
      ss58: z.string().meta({ description: "SS58 address, prefix 42" }),
      public_key: z.string().meta({ description: "0x-prefixed 32-byte public key (the account id)" }),
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
  linksOf({
    self: link("This page"),
    next: optionalLink("The next page of the same query; absent on the last page"),
    ...related,
  });

/** The links every subnet-scoped item carries (links.ts subnetLinks), less the item's own view. */
const subnetLinkShape = {
  subnet: link("The subnet (subnets/latest?netuid=)"),
  pool: link("The subnet's pool (subnet-pools/latest?netuid=)"),
  "pool-history": link("The pool's price and reserve history (subnet-pools/history?netuid=)"),
  emissions: link("The subnet's emission (subnet-emissions/latest?netuid=)"),
  validators: link("The subnet's validators (subnets/{netuid}/validators/latest)"),
  holders: link("The subnet's top alpha holders (subnets/{netuid}/holders/top)"),
};
export const subnetItemLinks = <K extends keyof typeof subnetLinkShape>(own: K) => {
  const { [own]: _own, ...related } = subnetLinkShape;
  return related as Omit<typeof subnetLinkShape, K>;
};
