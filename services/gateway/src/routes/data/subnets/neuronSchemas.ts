import { component, HalLinkSchema, OptionalHalLinkSchema, PageSchema } from "@platform/http";
import { z } from "zod";
import {
  AccountSchema,
  AsOfSchema,
  baseUnits,
  blockNumber,
  collectionLinks,
  count,
  netuid,
  nullableBaseUnits,
} from "../shared/wire.js";
import { ValidatorSchema } from "./subnetSchemas.js";

/**
 * `GET /data/v1/subnets/{netuid}/neurons/latest`, as renderNeurons.ts renders it: every UID of a
 * subnet's metagraph, each member described with its unit.
 */

/** A u16 score of the runtime (value / 65535) as a decimal string in [0, 1]. */
const SCORE_PATTERN = /^(0(\.[0-9]+)?|1(\.0+)?)$/;
const score = (description: string) =>
  z
    .string()
    .regex(SCORE_PATTERN)
    .meta({ description: `${description}: the runtime's u16 score / 65535, a decimal string in [0, 1] (ratio)` });
const nullableScore = (description: string, whenNull: string) =>
  score(description)
    .nullable()
    .meta({
      description: `${description}: the runtime's u16 score / 65535, a decimal string in [0, 1] (ratio); null ${whenNull}`,
    });

export const NeuronAxonSchema = component(
  "NeuronAxon",
  z
    .object({
      ip: z.string().meta({ description: "IP address the axon serves on: dotted IPv4, or IPv6 in RFC 5952 form" }),
      port: z.number().int().min(0).max(65_535).meta({ description: "TCP/UDP port (number)" }),
      ip_type: z.number().int().meta({ description: "IP version: 4 or 6" }),
      protocol: z
        .number()
        .int()
        .meta({ description: "The runtime's protocol number as served (0 TCP, 1 UDP by the SDK's convention)" }),
      version: z
        .number()
        .int()
        .nonnegative()
        .meta({ description: "Axon software version the neuron declared (integer)" }),
      block: blockNumber().meta({ description: "Block number at which the axon was served" }),
    })
    .meta({ description: "The endpoint the neuron serves (`Axons[netuid, hotkey]`)" }),
);

export const NeuronImmunitySchema = component(
  "NeuronImmunity",
  z
    .object({
      in_period: z.boolean().meta({
        description:
          "Whether the UID is immune from deregistration at as_of: (as_of block - registered_at_block) < immunity_period, as the runtime judges it",
      }),
      blocks_left: count().meta({ description: "Blocks until the immunity period ends (0 once it has)" }),
      immunity_period: count().meta({ description: "The subnet's immunity period at as_of, in blocks" }),
    })
    .meta({ description: "Immunity from deregistration after registration" }),
);

const identity = ValidatorSchema.shape.identity.meta({
  description: "The on-chain identity the hotkey's owner (coldkey) set; null when none is set",
});

export const NeuronSchema = component(
  "Neuron",
  z.object({
    _links: z
      .object({
        hotkey: OptionalHalLinkSchema.meta({ description: "The hotkey's balance" }),
        "coldkey-balance": OptionalHalLinkSchema.meta({ description: "The coldkey's balance" }),
        subnet: HalLinkSchema.meta({ description: "The subnet" }),
        holders: HalLinkSchema.meta({ description: "The subnet's holders; add hotkey= for this UID's nominators" }),
      })
      .meta({ description: "Related resources" }),
    uid: count().meta({ description: "The UID on the subnet (integer)" }),
    hotkey: AccountSchema.nullable().meta({ description: "The hotkey registered at the UID" }),
    coldkey: AccountSchema.nullable().meta({ description: "The hotkey's owner; null when the runtime knows none" }),
    identity,
    alpha_stake_nalpha: baseUnits(
      "Alpha staked on the hotkey on this subnet (`TotalHotkeyAlpha[hotkey, netuid]`), integer nalpha (10^-9 alpha)",
    ),
    root_stake_rao: nullableBaseUnits().meta({
      description:
        "TAO staked on the hotkey on root (`TotalHotkeyAlpha[hotkey, 0]`), integer rao (10^-9 TAO); null when unknown",
    }),
    total_stake_value_rao: baseUnits(
      "alpha_stake_nalpha valued at the pool's spot price at as_of plus root_stake_rao, integer rao (10^-9 TAO)",
    ),
    rank: nullableScore("Rank (`Rank[netuid][uid]`)", "where the runtime keeps no Rank"),
    trust: nullableScore("Trust (`Trust[netuid][uid]`)", "where the runtime keeps no Trust"),
    consensus: score("Consensus (`Consensus[netuid][uid]`)"),
    incentive: score("Incentive, the UID's share of the miners' emission (`Incentive[netuid][uid]`)"),
    dividends: score("Dividends, the UID's share of the validators' emission (`Dividends[netuid][uid]`)"),
    emission_nalpha: baseUnits(
      "Emission to the UID at its subnet's last epoch (`Emission[netuid][uid]`), integer nalpha",
    ),
    validator_permit: z.boolean().meta({ description: "Whether the UID holds a validator permit" }),
    validator_trust: score("Validator trust (`ValidatorTrust[netuid][uid]`)"),
    active: z.boolean().meta({ description: "Whether the UID set weights or was updated within the activity cutoff" }),
    axon: NeuronAxonSchema.nullable().meta({ description: "The served axon; null when the hotkey served none" }),
    registered_at_block: blockNumber()
      .nullable()
      .meta({ description: "Block number of the UID's registration (`BlockAtRegistration`); null when unknown" }),
    immunity: NeuronImmunitySchema.nullable().meta({
      description: "Immunity from deregistration; null when the registration block or immunity period is unknown",
    }),
    pruning_score: nullableScore(
      "Pruning score, the lowest of which is deregistered first (`PruningScores[netuid][uid]`)",
      "where the runtime keeps no PruningScores (newer runtimes prune by emission)",
    ),
    last_update_block: blockNumber().meta({ description: "Block number of the UID's last weights update" }),
  }),
);

export const NeuronsSchema = component(
  "Neurons",
  z.object({
    _links: collectionLinks({
      subnet: HalLinkSchema.meta({ description: "The subnet" }),
      pool: HalLinkSchema.meta({ description: "The subnet's pool" }),
      validators: HalLinkSchema.meta({ description: "The subnet's validators (UIDs with a permit)" }),
    }).meta({ description: "This page, the next while there is more, and the subnet's other views" }),
    as_of: AsOfSchema.nullable().meta({ description: "The block every value of the page is read at" }),
    netuid: netuid().meta({ description: "The subnet (integer netuid)" }),
    page: PageSchema.meta({ description: "This page's size and the cursor of the next" }),
    _embedded: z
      .object({ items: z.array(NeuronSchema).meta({ description: "The UIDs of this page, in the order asked for" }) })
      .meta({ description: "The page's UIDs" }),
  }),
);
