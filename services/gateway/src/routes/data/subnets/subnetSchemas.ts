import { component, HalLinkSchema, OptionalHalLinkSchema, PageSchema } from "@platform/http";
import { HolderCoverage, PoolMechanism } from "@platform/proto/common/v1/network";
import { z } from "zod";
import { shortNames } from "../shared/render.js";
import {
  AccountSchema,
  AsOfSchema,
  baseUnits,
  blockNumber,
  collectionLinks,
  count,
  decimal,
  enumName,
  IntervalSchema,
  instant,
  netuid,
  nullableBaseUnits,
  nullableDecimal,
  subnetItemLinks,
} from "../shared/wire.js";

/**
 * The answers of the subnets group, as renderSubnets.ts renders them. u64 chain values that are
 * not block numbers or counts stay decimal strings (they can exceed 2^53).
 */

export const SubnetSchema = component(
  "Subnet",
  z.object({
    _links: z.object({ self: HalLinkSchema, ...subnetItemLinks("subnet") }),
    netuid: netuid(),
    name: z.string().nullable(),
    symbol: z.string().nullable(),
    identity: z
      .object({
        subnet_name: z.string(),
        github_repo: z.string(),
        subnet_contact: z.string(),
        subnet_url: z.string(),
        discord: z.string(),
        description: z.string(),
        logo_url: z.string(),
        additional: z.string(),
      })
      .nullable(),
    owner: z.object({ coldkey: AccountSchema.nullable(), hotkey: AccountSchema.nullable() }),
    registered_at_block: blockNumber(),
    registered_at: instant().nullable(),
    mechanism: enumName(shortNames(PoolMechanism, "POOL_MECHANISM_"), "The pool's swap mechanism"),
    tempo: count(),
    last_epoch_block: blockNumber(),
    next_epoch_block: blockNumber(),
    uid_count: count(),
    max_uids: count().nullable(),
    max_validators: count().nullable(),
    validators_with_permit: count(),
    active_uids: count(),
    registration: z
      .object({
        allowed: z.boolean(),
        pow_allowed: z.boolean(),
        burn_rao: baseUnits(),
        min_burn_rao: baseUnits(),
        max_burn_rao: baseUnits(),
        difficulty: decimal(),
        recycled_total_rao: nullableBaseUnits(),
      })
      .nullable(),
    transfers_enabled: z.boolean().nullable(),
    emission_enabled: z.boolean(),
    commit_reveal: z.object({ enabled: z.boolean(), interval: count() }).nullable(),
    liquid_alpha: z.object({ enabled: z.boolean(), alpha_low: decimal(), alpha_high: decimal() }).nullable(),
    yuma3_enabled: z.boolean(),
    hyperparameters: z
      .object({
        rho: count(),
        kappa: count(),
        immunity_period: count(),
        min_allowed_weights: count(),
        max_weight_limit: count(),
        weights_version: decimal(),
        weights_rate_limit: count(),
        activity_cutoff: count(),
        adjustment_alpha: decimal(),
        bonds_moving_average: decimal(),
        serving_rate_limit: count(),
        alpha_sigmoid_steepness: z.number().int(),
      })
      .nullable(),
    _embedded: z
      .object({
        pool: z.object({
          _links: z.object({ self: HalLinkSchema }),
          price_tao: decimal(),
          tao_in_rao: baseUnits(),
          market_cap_rao: baseUnits(),
        }),
      })
      .optional(),
  }),
);

/** A subnet's settings at the end of a bucket: the latest route's members less those derived from other series. */
export const SubnetHistoryPointSchema = component(
  "SubnetHistoryPoint",
  z.object({
    bucket_start: instant(),
    block_number: blockNumber().meta({
      description: "The block of the snapshot shown (at or before the bucket's end)",
    }),
    timestamp: instant(),
    ...SubnetSchema.omit({
      _links: true,
      _embedded: true,
      last_epoch_block: true,
      next_epoch_block: true,
      validators_with_permit: true,
      active_uids: true,
    }).shape,
  }),
);

export const SubnetsHistorySchema = component(
  "SubnetsHistory",
  z.object({
    _links: collectionLinks({ latest: HalLinkSchema, "emissions-history": HalLinkSchema }),
    as_of: AsOfSchema.nullable(),
    netuid: netuid(),
    interval: IntervalSchema,
    page: PageSchema,
    _embedded: z.object({ items: z.array(SubnetHistoryPointSchema) }),
  }),
);

export const SubnetsSchema = component(
  "Subnets",
  z.object({
    _links: collectionLinks({ "subnet-pools": HalLinkSchema }),
    as_of: AsOfSchema.nullable(),
    page: PageSchema,
    _embedded: z.object({ items: z.array(SubnetSchema) }),
  }),
);

export const ValidatorSchema = component(
  "Validator",
  z.object({
    _links: z.object({
      hotkey: OptionalHalLinkSchema,
      "coldkey-balance": OptionalHalLinkSchema,
      subnet: HalLinkSchema,
      holders: HalLinkSchema,
    }),
    uid: count(),
    hotkey: AccountSchema.nullable(),
    coldkey: AccountSchema.nullable(),
    identity: z
      .object({
        name: z.string(),
        url: z.string(),
        github_repo: z.string(),
        image: z.string(),
        discord: z.string(),
        description: z.string(),
        additional: z.string(),
      })
      .nullable(),
    validator_permit: z.boolean(),
    active: z.boolean(),
    registered_at_block: blockNumber().nullable(),
    take: nullableDecimal(),
    childkey_take: nullableDecimal(),
    alpha_stake_nalpha: baseUnits(),
    root_stake_rao: nullableBaseUnits(),
    stake_weight: nullableDecimal(),
    total_stake_value_rao: baseUnits(),
    dividends: decimal(),
    vtrust: decimal(),
    incentive: decimal(),
    consensus: decimal(),
    emission_nalpha: baseUnits(),
    alpha_dividends_nalpha: nullableBaseUnits(),
    root_alpha_dividends_nalpha: nullableBaseUnits(),
    last_update_block: blockNumber(),
    blocks_since_update: count(),
    nominators_count: count().nullable(),
  }),
);

const subnetViewLinks = { subnet: HalLinkSchema, pool: HalLinkSchema };

export const ValidatorsSchema = component(
  "Validators",
  z.object({
    _links: collectionLinks({ ...subnetViewLinks, holders: HalLinkSchema }),
    as_of: AsOfSchema.nullable(),
    netuid: netuid(),
    page: PageSchema,
    _embedded: z.object({ items: z.array(ValidatorSchema) }),
  }),
);

export const HolderSchema = component(
  "Holder",
  z.object({
    _links: z.object({ "account-balance": OptionalHalLinkSchema, "account-transactions": OptionalHalLinkSchema }),
    rank: count(),
    coldkey: AccountSchema.nullable(),
    hotkey: AccountSchema.nullable(),
    alpha_nalpha: baseUnits(),
    share_of_alpha_out: decimal(),
    value_rao: baseUnits(),
    positions_count: count(),
    hotkeys: z.array(z.object({ hotkey: AccountSchema.nullable(), alpha_nalpha: baseUnits() })),
    identity_name: z.string().nullable(),
  }),
);

export const HoldersTopSchema = component(
  "HoldersTop",
  z.object({
    _links: collectionLinks({ ...subnetViewLinks, validators: HalLinkSchema }),
    as_of: AsOfSchema.nullable(),
    netuid: netuid(),
    holders_count: count(),
    alpha_out_nalpha: baseUnits(),
    price_tao: decimal(),
    coverage: enumName(shortNames(HolderCoverage, "HOLDER_COVERAGE_"), "Which holders the ranking counts"),
    page: PageSchema,
    _embedded: z.object({ items: z.array(HolderSchema) }),
  }),
);
