import { component } from "@platform/http";
import { HolderCoverage, PoolMechanism } from "@platform/proto/common/v1/network";
import { z } from "zod";
import { shortNames } from "../shared/render.js";
import {
  AccountSchema,
  asOf,
  baseUnits,
  blockNumber,
  collectionLinks,
  count,
  decimal,
  embeddedItems,
  enumName,
  IntervalSchema,
  instant,
  integerText,
  link,
  linksOf,
  netuid,
  nullableBaseUnits,
  nullableDecimal,
  optionalLink,
  page,
  subnetItemLinks,
} from "../shared/wire.js";

/**
 * The answers of the subnets group, as renderSubnets.ts renders them. u64 chain values that are
 * not block numbers or counts stay decimal strings (they can exceed 2^53).
 */

/** A text field of an on-chain identity, as set ("" when left empty). */
const identityText = (what: string) => z.string().meta({ description: `${what}, as set on chain ("" when empty)` });
/** An account that may be unknown. */
const account = (description: string) => AccountSchema.nullable().meta({ description });
/** A u16 score or share over 65535, as the chain keeps it. */
const u16Ratio = (what: string) =>
  decimal(`${what}: the chain's u16 over 65535, a ratio from 0 to 1 (8 decimal places, truncated)`);
const nullableU16Ratio = (what: string) =>
  nullableDecimal(`${what}: the chain's u16 over 65535, a ratio from 0 to 1 (8 decimal places, truncated)`);

/** A yield over one window: an annual rate. */
const yieldRate = (window: string) =>
  nullableDecimal(
    `Nominator yield over the last ${window}: an annual rate, decimal (0.12 is 12 % a year), simple (not compounded); null where the history is shorter than the window (see covered_from_block)`,
  );

/**
 * The method, once: what the document says of every yield.
 */
export const ValidatorYieldSchema = z
  .object({
    yield_1h: yieldRate("hour"),
    yield_1d: yieldRate("day (24 hours)"),
    yield_7d: yieldRate("7 days"),
    yield_30d: yieldRate("30 days"),
    covered_from_block: blockNumber().nullable().meta({
      description:
        "The first block of the subnet's yield history (its first epoch seen): a window starting before it is null; null before any epoch is seen",
    }),
    covered_from_time: instant().nullable().meta({
      description: "covered_from_block's time, ISO 8601 instant (UTC, chain clock); null before any epoch is seen",
    }),
  })
  .meta({
    description:
      "What the hotkey paid its nominators per unit of stake, annualised. At each epoch of the subnet (spec 218), the hotkey's dividends (HotkeyDividendsPerSubnet) less its take are split between its alpha stake and TaoWeight × its root stake, so each epoch adds dividends × (1 − take) ÷ (alpha_stake + TaoWeight × root_stake) to the hotkey's yield index (stakes of the epoch block's metagraph, after the payout; exact decimal arithmetic, truncated to 24 decimals). The yield over a window W ending at as_of is (index at as_of − index at as_of − W) × (365 days ÷ W): the alpha an alpha nominator earned per alpha staked, as a simple annual rate over a 365-day year, not compounded. A window with no epoch in it is 0; a window longer than the history is null. Sort by it with sort=yield_1h, yield_1d, yield_7d or yield_30d (nulls last in descending order)",
  });

export const SubnetSchema = component(
  "Subnet",
  z.object({
    _links: linksOf({ self: link("This subnet (subnets/latest?netuid=)"), ...subnetItemLinks("subnet") }),
    netuid: netuid(),
    name: z
      .string()
      .nullable()
      .meta({ description: "The subnet's name (its identity's subnet_name); null when none is set" }),
    symbol: z
      .string()
      .nullable()
      .meta({ description: "The subnet's token symbol (TokenSymbol, e.g. α or ש); null when unknown" }),
    identity: z
      .object({
        subnet_name: identityText("The subnet's name"),
        github_repo: identityText("Its source repository's URL"),
        subnet_contact: identityText("A contact for the subnet"),
        subnet_url: identityText("Its website's URL"),
        discord: identityText("Its Discord"),
        description: identityText("What the subnet does"),
        logo_url: identityText('Its logo\'s URL (SubnetIdentitiesV3; "" in older identity versions)'),
        additional: identityText("Anything else its owner added"),
      })
      .nullable()
      .meta({
        description: "The identity its owner set (SubnetIdentitiesV3, or an older version's fields); null when none",
      }),
    owner: z
      .object({
        coldkey: account("SubnetOwner: the owner's coldkey; null where unset"),
        hotkey: account("SubnetOwnerHotkey: the owner's hotkey; null where unset"),
      })
      .meta({ description: "Who owns the subnet" }),
    registered_at_block: blockNumber("NetworkRegisteredAt: the block the subnet was registered at (0 where unknown)"),
    registered_at: instant().nullable().meta({
      description:
        "The time of registered_at_block, ISO 8601: always null in this version (the block's time is not looked up; use registered_at_block)",
    }),
    mechanism: enumName(
      shortNames(PoolMechanism, "POOL_MECHANISM_"),
      "The pool's swap mechanism (SubnetMechanism): stable (priced 1:1) or dynamic (an alpha/TAO pool)",
    ),
    tempo: count("Tempo: blocks between the subnet's epochs (360 by default)"),
    last_epoch_block: blockNumber("The block of the subnet's last epoch; 0 when unknown or it never stepped"),
    next_epoch_block: blockNumber(
      "The block of the subnet's next epoch by the runtime's schedule; 0 when it cannot be told (tempo 0, or epochs off that schedule)",
    ),
    uid_count: count("SubnetworkN: the UIDs registered on the subnet"),
    max_uids: count()
      .nullable()
      .meta({ description: "MaxAllowedUids: the most UIDs the subnet takes; null where not read" }),
    max_validators: count()
      .nullable()
      .meta({ description: "MaxAllowedValidators: the most UIDs with a validator permit; null where not read" }),
    validators_with_permit: count("UIDs holding a validator permit (ValidatorPermit), in the metagraph at as_of"),
    active_uids: count(
      "UIDs marked active (Active: they set weights within activity_cutoff), in the metagraph at as_of",
    ),
    registration: z
      .object({
        allowed: z
          .boolean()
          .meta({ description: "NetworkRegistrationAllowed: whether neurons may register (by burn)" }),
        pow_allowed: z
          .boolean()
          .meta({ description: "NetworkPowRegistrationAllowed: whether they may register by proof of work" }),
        burn_rao: baseUnits("Burn: what registering a neuron burns now, rao"),
        min_burn_rao: baseUnits("MinBurn: the lowest the burn adjusts to, rao"),
        max_burn_rao: baseUnits("MaxBurn: the highest the burn adjusts to, rao"),
        difficulty: integerText(
          "Difficulty: the proof-of-work registration difficulty (a u64), an unsigned integer string",
        ),
        recycled_total_rao: nullableBaseUnits(
          "RAORecycledForRegistration: TAO recycled by the subnet's registrations so far, rao; null where not read",
        ),
      })
      .nullable()
      .meta({
        description: "How neurons register on the subnet; null where the runtime does not say whether it is open",
      }),
    transfers_enabled: z.boolean().nullable().meta({
      description:
        "TransferToggle: whether the subnet's stake may be transferred between coldkeys; null where not read",
    }),
    emission_enabled: z.boolean().meta({
      description:
        "Whether the subnet receives emission (SubnetEmissionEnabled where the runtime keeps it, else whether it received any in the block; never root)",
    }),
    commit_reveal: z
      .object({
        enabled: z
          .boolean()
          .meta({ description: "CommitRevealWeightsEnabled: whether weights are committed before they are revealed" }),
        interval: count("RevealPeriodEpochs: epochs between a commit and its reveal"),
      })
      .nullable()
      .meta({ description: "Commit-reveal of weights; null where the runtime keeps no such setting" }),
    liquid_alpha: z
      .object({
        enabled: z
          .boolean()
          .meta({ description: "LiquidAlphaOn: whether the bonds' alpha adapts between alpha_low and alpha_high" }),
        alpha_low: decimal("AlphaValues' low bound over 65535, a ratio from 0 to 1 (8 decimal places, truncated)"),
        alpha_high: decimal("AlphaValues' high bound over 65535, a ratio from 0 to 1 (8 decimal places, truncated)"),
      })
      .nullable()
      .meta({ description: "Liquid alpha (consensus-based bonds); null where the runtime keeps no such setting" }),
    yuma3_enabled: z
      .boolean()
      .meta({ description: "Yuma3On: whether the subnet runs Yuma consensus 3 (false in runtimes before it)" }),
    hyperparameters: z
      .object({
        rho: count("Rho: the steepness of the incentive's sigmoid"),
        kappa: count("Kappa: the consensus threshold, a u16 (32767 is about one half)"),
        immunity_period: count("ImmunityPeriod: blocks a newly registered UID cannot be pruned"),
        min_allowed_weights: count("MinAllowedWeights: the fewest weights a validator must set"),
        max_weight_limit: count("MaxWeightsLimit: the largest a single weight may be, a u16 (65535 means no limit)"),
        weights_version: integerText(
          "WeightsVersionKey: the version validators' weights must carry, an unsigned integer string",
        ),
        weights_rate_limit: count("WeightsSetRateLimit: blocks between two weight settings of one validator"),
        activity_cutoff: count("ActivityCutoff: blocks without weights after which a validator counts as inactive"),
        adjustment_alpha: integerText(
          "AdjustmentAlpha: the burn and difficulty adjustment's smoothing, a u64 over u64::MAX, as the raw unsigned integer string",
        ),
        bonds_moving_average: integerText(
          "BondsMovingAverage: the bonds' moving average factor, a u64 over 1,000,000, as the raw unsigned integer string",
        ),
        serving_rate_limit: count("ServingRateLimit: blocks between two axon updates of one neuron"),
        alpha_sigmoid_steepness: z.number().int().meta({
          description:
            "AlphaSigmoidSteepness: the liquid alpha sigmoid's steepness; 0 where the runtime keeps none or it is negative",
        }),
      })
      .nullable()
      .meta({ description: "The subnet's hyperparameters, as the runtime keeps them (0 for one it lacks)" }),
    _embedded: z
      .object({
        pool: z
          .object({
            _links: linksOf({ self: link("The pool (subnet-pools/latest?netuid=)") }),
            price_tao: decimal(
              "Alpha's price in TAO per alpha (9 decimal places, truncated): 1 for stable pools, else SubnetTAO / SubnetAlphaIn",
            ),
            tao_in_rao: baseUnits("TAO in the pool's reserve (SubnetTAO), rao"),
            market_cap_rao: baseUnits(
              "price_tao × the subnet's alpha issued (in and out of the pool), rao (rounded toward zero)",
            ),
          })
          .meta({ description: "A summary of the subnet's pool at as_of" }),
      })
      .optional()
      .meta({ description: "The subnet's pool, embedded (HAL); absent when the subnet has no pool snapshot" }),
  }),
);

/** A subnet's settings at the end of a bucket: the latest route's members less those derived from other series. */
export const SubnetHistoryPointSchema = component(
  "SubnetHistoryPoint",
  z.object({
    bucket_start: instant("Start of the bucket (aligned to UTC), ISO 8601"),
    block_number: blockNumber().meta({
      description: "The block of the snapshot shown (at or before the bucket's end)",
    }),
    timestamp: instant("The snapshot block's timestamp, ISO 8601 (UTC)"),
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
    _links: collectionLinks({
      latest: link("The subnet now (subnets/latest?netuid=)"),
      "emissions-history": link("The subnet's emission history (subnet-emissions/history?netuid=)"),
    }),
    as_of: asOf(),
    netuid: netuid("The subnet the history is of"),
    interval: IntervalSchema,
    page: page(),
    _embedded: embeddedItems(SubnetHistoryPointSchema, "The snapshots, one per bucket, in the order asked for"),
  }),
);

export const SubnetsSchema = component(
  "Subnets",
  z.object({
    _links: collectionLinks({ "subnet-pools": link("The subnet pools (subnet-pools/latest)") }),
    as_of: asOf(),
    page: page(),
    _embedded: embeddedItems(SubnetSchema, "The subnets, in the order asked for (sort, order)"),
  }),
);

export const ValidatorSchema = component(
  "Validator",
  z.object({
    _links: linksOf({
      hotkey: optionalLink("The hotkey's account balance (accounts/{hotkey}/balance/latest); absent without a hotkey"),
      "coldkey-balance": optionalLink(
        "The owner coldkey's balance (accounts/{coldkey}/balance/latest); absent without a coldkey",
      ),
      subnet: link("The subnet (subnets/latest?netuid=)"),
      holders: link("The subnet's top alpha holders (subnets/{netuid}/holders/top)"),
    }),
    uid: count("The neuron's UID on the subnet"),
    hotkey: account("The neuron's hotkey (Keys[netuid, uid])"),
    coldkey: account("The hotkey's owner coldkey (Owner[hotkey]); null where unknown"),
    identity: z
      .object({
        name: identityText("The name"),
        url: identityText("A website's URL"),
        github_repo: identityText("A source repository's URL"),
        image: identityText("An image's URL"),
        discord: identityText("A Discord handle"),
        description: identityText("A description"),
        additional: identityText("Anything else"),
      })
      .nullable()
      .meta({ description: "The coldkey's on-chain identity (IdentitiesV2[coldkey]); null when none is set" }),
    validator_permit: z
      .boolean()
      .meta({ description: "ValidatorPermit: whether the UID may set weights as a validator" }),
    active: z
      .boolean()
      .meta({ description: "Active: whether the UID set weights within the subnet's activity_cutoff" }),
    registered_at_block: blockNumber()
      .nullable()
      .meta({ description: "BlockAtRegistration: the block the UID was registered at; null where not read" }),
    take: nullableU16Ratio(
      "The hotkey's delegate take (Delegates[hotkey]), the share of its nominators' rewards it keeps",
    ),
    childkey_take: nullableU16Ratio(
      "ChildkeyTake[hotkey, netuid]: the share a child hotkey keeps of what its parents delegate",
    ),
    alpha_stake_nalpha: baseUnits(
      "TotalHotkeyAlpha[hotkey, netuid]: alpha staked on the hotkey in this subnet, nalpha",
    ),
    root_stake_rao: nullableBaseUnits(
      "TotalHotkeyAlpha[hotkey, 0]: TAO staked on the hotkey on root, rao; null where not read",
    ),
    stake_weight: nullableDecimal(
      "The stake weight the runtime computes from alpha and root stake (with TaoWeight): always null in this version (not read)",
    ),
    total_stake_value_rao: baseUnits(
      "alpha_stake_nalpha × the pool's price at the same block (0 without a pool) + root_stake_rao, rao; on root, the root stake once",
    ),
    dividends: u16Ratio("Dividends: the UID's share of the validators' dividends at the last epoch"),
    vtrust: u16Ratio("ValidatorTrust: how far the UID's weights agree with consensus"),
    incentive: u16Ratio("Incentive: the UID's share of the miners' incentive at the last epoch"),
    consensus: u16Ratio("Consensus: the stake-weighted consensus of the weights the UID received"),
    emission_nalpha: baseUnits("Emission[netuid][uid]: the alpha the UID earned at the last epoch, nalpha"),
    alpha_dividends_nalpha: nullableBaseUnits(
      "AlphaDividendsPerSubnet: the alpha dividends the hotkey received at the last epoch, nalpha: always null in this version (not read)",
    ),
    root_alpha_dividends_nalpha: nullableBaseUnits(
      "RootAlphaDividendsPerSubnet: root's alpha dividends through the hotkey at the last epoch, nalpha: always null in this version (not read)",
    ),
    last_update_block: blockNumber("LastUpdate: the block the UID last set weights (0 if never)"),
    blocks_since_update: count("as_of's block less last_update_block, in blocks (0 if later)"),
    nominators_count: count().nullable().meta({
      description: "Coldkeys staking on the hotkey in this subnet: always null in this version (not counted)",
    }),
    hotkey_dividends_nalpha: nullableBaseUnits(
      "HotkeyDividendsPerSubnet[netuid, hotkey]: the dividends the hotkey was paid at the subnet's last epoch, before its take, nalpha; null where the runtime keeps none",
    ),
    yield: ValidatorYieldSchema,
  }),
);

const subnetViewLinks = {
  subnet: link("The subnet (subnets/latest?netuid=)"),
  pool: link("The subnet's pool (subnet-pools/latest?netuid=)"),
};

export const ValidatorsSchema = component(
  "Validators",
  z.object({
    _links: collectionLinks({
      ...subnetViewLinks,
      holders: link("The subnet's top alpha holders (subnets/{netuid}/holders/top)"),
    }),
    as_of: asOf(),
    netuid: netuid("The subnet listed"),
    page: page(),
    _embedded: embeddedItems(ValidatorSchema, "The UIDs, in the order asked for (sort, order)"),
  }),
);

export const HolderSchema = component(
  "Holder",
  z.object({
    _links: linksOf({
      "account-balance": optionalLink("The coldkey's balance (accounts/{coldkey}/balance/latest)"),
      "account-transactions": optionalLink("The coldkey's transactions (accounts/{coldkey}/transactions)"),
    }),
    rank: count("The holder's rank by alpha held, 1 for the largest"),
    coldkey: account("The holder's coldkey"),
    hotkey: account("With group_by=position, the hotkey of the position; null when grouped by coldkey"),
    alpha_nalpha: baseUnits(
      "Alpha the holder holds in the subnet (with group_by=coldkey, over all its hotkeys), nalpha",
    ),
    share_of_alpha_out: decimal(
      "alpha_nalpha / the subnet's alpha_out_nalpha, a ratio from 0 to 1 (12 decimal places, toward zero; 0 when nothing is out)",
    ),
    value_rao: baseUnits(
      "alpha_nalpha × the pool's price_tao, rao (rounded toward zero): its spot value, not what unstaking gives",
    ),
    positions_count: count("Hotkeys the holder stakes through in the subnet (1 with group_by=position)"),
    hotkeys: z
      .array(
        z
          .object({
            hotkey: account("A hotkey the coldkey stakes through"),
            alpha_nalpha: baseUnits("Alpha the coldkey holds through that hotkey, nalpha"),
          })
          .meta({ description: "One position of the holder" }),
      )
      .meta({ description: "With group_by=coldkey, the holder's positions by hotkey; empty with group_by=position" }),
    identity_name: z.string().nullable().meta({
      description:
        "The name of the coldkey's on-chain identity, when it owns a UID of the subnet and set one; else null",
    }),
  }),
);

export const HoldersTopSchema = component(
  "HoldersTop",
  z.object({
    _links: collectionLinks({
      ...subnetViewLinks,
      validators: link("The subnet's validators (subnets/{netuid}/validators/latest)"),
    }),
    as_of: asOf(),
    netuid: netuid("The subnet ranked"),
    holders_count: count("Distinct coldkeys holding alpha in the subnet, whatever group_by and min_alpha_nalpha"),
    alpha_out_nalpha: baseUnits("The subnet's alpha outside the pool (SubnetAlphaOut) at as_of, nalpha"),
    price_tao: decimal("The pool's price at as_of, TAO per alpha (9 decimal places, truncated); values value_rao"),
    coverage: enumName(
      shortNames(HolderCoverage, "HOLDER_COVERAGE_"),
      "Which holders the ranking counts: complete (every stake position), or registered_hotkeys_only (positions on the subnet's registered hotkeys only)",
    ),
    page: page(),
    _embedded: embeddedItems(HolderSchema, "The holders, by rank"),
  }),
);
