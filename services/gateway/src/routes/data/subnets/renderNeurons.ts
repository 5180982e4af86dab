import { halCollection } from "@platform/http";
import type { GetNeuronsLatestResponse, Neuron } from "@platform/proto/data/v1/subnets";
import type { z } from "zod";
import { holdersHref, neuronsHref, poolsHref, subnetsHref, validatorsHref } from "../shared/links.js";
import {
  accountLink,
  integer,
  optionalInteger,
  orNull,
  type PageView,
  pageOf,
  renderAccount,
  renderAsOf,
} from "../shared/render.js";
import type { NeuronSchema, NeuronsSchema } from "./neuronSchemas.js";

function renderNeuron(neuron: Neuron, netuid: number): z.output<typeof NeuronSchema> {
  const coldkey = accountLink(neuron.coldkey);
  const hotkey = accountLink(neuron.hotkey);
  const { identity, axon, immunity } = neuron;
  return {
    _links: {
      ...(hotkey === undefined ? {} : { hotkey }),
      ...(coldkey === undefined ? {} : { "coldkey-balance": coldkey }),
      subnet: { href: subnetsHref(netuid) },
      holders: { href: holdersHref(netuid) },
    },
    uid: neuron.uid,
    hotkey: renderAccount(neuron.hotkey),
    coldkey: renderAccount(neuron.coldkey),
    identity:
      identity === undefined
        ? null
        : {
            name: identity.name,
            url: identity.url,
            github_repo: identity.githubRepo,
            image: identity.image,
            discord: identity.discord,
            description: identity.description,
            additional: identity.additional,
          },
    alpha_stake_nalpha: neuron.alphaStakeNalpha,
    root_stake_rao: orNull(neuron.rootStakeRao),
    total_stake_value_rao: neuron.totalStakeValueRao,
    rank: orNull(neuron.rank),
    trust: orNull(neuron.trust),
    consensus: neuron.consensus,
    incentive: neuron.incentive,
    dividends: neuron.dividends,
    emission_nalpha: neuron.emissionNalpha,
    validator_permit: neuron.validatorPermit,
    validator_trust: neuron.validatorTrust,
    active: neuron.active,
    axon:
      axon === undefined
        ? null
        : {
            ip: axon.ip,
            port: axon.port,
            ip_type: axon.ipType,
            protocol: axon.protocol,
            version: axon.version,
            block: integer(axon.block),
          },
    registered_at_block: optionalInteger(neuron.registeredAtBlock),
    immunity:
      immunity === undefined
        ? null
        : {
            in_period: immunity.inPeriod,
            blocks_left: integer(immunity.blocksLeft),
            immunity_period: immunity.immunityPeriod,
          },
    pruning_score: orNull(neuron.pruningScore),
    last_update_block: integer(neuron.lastUpdateBlock),
  };
}

export function renderNeuronsLatest(
  answer: GetNeuronsLatestResponse,
  request: PageView & { netuid: number },
): z.output<typeof NeuronsSchema> {
  return halCollection({
    path: neuronsHref(request.netuid),
    query: request.query,
    cursor: request.cursor,
    page: pageOf(answer.page, request.limit),
    links: {
      subnet: { href: subnetsHref(request.netuid) },
      pool: { href: poolsHref(request.netuid) },
      validators: { href: validatorsHref(request.netuid) },
    },
    state: { as_of: renderAsOf(answer.asOf), netuid: answer.netuid },
    items: answer.neurons.map((neuron) => renderNeuron(neuron, request.netuid)),
  });
}
