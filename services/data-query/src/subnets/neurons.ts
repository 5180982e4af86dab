import type { HistoryDb } from "@platform/history";
import type {
  GetNeuronsLatestRequest,
  GetNeuronsLatestResponse,
  Neuron,
  NeuronImmunity,
} from "@platform/proto/data/v1/subnets";
import { type NeuronState, SubnetSnapshot } from "@platform/proto/events/v1/chain_network";
import { NEURON_SORTS, type SortName } from "@platform/proto/sorts";
import { subnetsKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { ROOT_NETUID } from "@platform/subtensor";
import { parseAddress } from "../accounts/address.js";
import { queryScope } from "../shared/cursor.js";
import { orderOf, pageLimitOf } from "../shared/page.js";
import { blockScope } from "../shared/pastBlock.js";
import { decodePoint } from "../shared/readModel.js";
import { sortedPage, sortReaderOf } from "../shared/sortedPage.js";
import { describeValidator, standingMetagraph } from "./validators.js";

/**
 * `GET /data/v1/subnets/{netuid}/neurons/latest`: every UID of the subnet's metagraph, miners
 * (no stake, no permit) included, filtered and ranked; the same metagraph, pool and walk pinning as
 * validators/latest, with the subnet's immunity period read at the answer's block.
 */
export async function getNeuronsLatest(
  redis: Redis,
  request: GetNeuronsLatestRequest,
  history?: HistoryDb,
): Promise<GetNeuronsLatestResponse> {
  const limit = pageLimitOf(request.page, { defaultLimit: 256, maxLimit: 256 });
  const order = orderOf(request.order, NEURON_SORTS.defaultOrder);
  const sortValueOf = sortReaderOf(NEURON_SORTS, NEURON_SORT_VALUES, request.sort, "a neuron sort");
  const hotkey = request.hotkey === undefined ? undefined : parseAddress(request.hotkey, "hotkey").publicKey;
  const coldkey = request.coldkey === undefined ? undefined : parseAddress(request.coldkey, "coldkey").publicKey;
  const scope = queryScope([
    "neurons/latest",
    request.netuid,
    hotkey ?? "",
    coldkey ?? "",
    flagScope(request.validatorPermit),
    flagScope(request.active),
    request.sort,
    order,
    ...blockScope(request.at),
  ]);
  const { netuid, snapshot, pool, block, asOf, read } = await standingMetagraph(
    { redis, history },
    request.netuid,
    request.at,
    request.page?.cursor ? request.page.cursor : undefined,
    scope,
  );
  const [subnetPoint] = await read([subnetsKeys.subnetPoints(netuid)], block);
  const immunityPeriod =
    subnetPoint === undefined ? undefined : decodePoint(subnetPoint, SubnetSnapshot).hyperparameters?.immunityPeriod;
  const wanted = (neuron: NeuronState) =>
    (hotkey === undefined || neuron.hotkey?.publicKey.toLowerCase() === hotkey) &&
    (coldkey === undefined || neuron.coldkey?.publicKey.toLowerCase() === coldkey) &&
    (request.validatorPermit === undefined || neuron.validatorPermit === request.validatorPermit) &&
    (request.active === undefined || neuron.active === request.active);
  const neurons = snapshot.neurons
    .filter(wanted)
    .map((neuron) => describeNeuron(neuron, pool?.priceTao, block, immunityPeriod, netuid === ROOT_NETUID));
  const page = sortedPage({
    items: neurons,
    valueOf: sortValueOf,
    idOf: (neuron) => neuron.uid,
    order,
    limit,
    cursor: request.page?.cursor ?? "",
    scope,
    carry: { b: String(block) },
  });
  return { asOf, netuid, neurons: page.items, page: page.page };
}

const flagScope = (flag: boolean | undefined) => (flag === undefined ? "" : String(flag));

/** What each neuron sort orders by. */
const NEURON_SORT_VALUES: Record<SortName<typeof NEURON_SORTS>, (neuron: Neuron) => string | undefined> = {
  incentive: (neuron) => neuron.incentive,
  emission: (neuron) => neuron.emissionNalpha,
  stake: (neuron) => neuron.totalStakeValueRao,
  dividends: (neuron) => neuron.dividends,
  uid: (neuron) => String(neuron.uid),
};

/**
 * A UID as the API gives it: the metagraph's values, its stake valued as validators/latest values
 * it, and its immunity at `block` as the runtime judges it (`get_neuron_is_immune`:
 * `block - registered_at < ImmunityPeriod`, saturating).
 */
export function describeNeuron(
  neuron: NeuronState,
  priceTao: string | undefined,
  block: number,
  immunityPeriod: number | undefined,
  onRoot = false,
): Neuron {
  const valued = describeValidator(neuron, priceTao, block, onRoot);
  const described: Neuron = {
    uid: neuron.uid,
    alphaStakeNalpha: neuron.alphaStakeNalpha,
    totalStakeValueRao: valued.totalStakeValueRao,
    consensus: neuron.consensus,
    incentive: neuron.incentive,
    dividends: neuron.dividends,
    emissionNalpha: neuron.emissionNalpha,
    validatorPermit: neuron.validatorPermit,
    validatorTrust: neuron.vtrust,
    active: neuron.active,
    lastUpdateBlock: neuron.lastUpdateBlock,
  };
  if (neuron.hotkey !== undefined) described.hotkey = neuron.hotkey;
  if (neuron.coldkey !== undefined) described.coldkey = neuron.coldkey;
  if (neuron.identity !== undefined) described.identity = neuron.identity;
  if (neuron.rootStakeRao !== undefined) described.rootStakeRao = neuron.rootStakeRao;
  if (neuron.rank !== undefined) described.rank = neuron.rank;
  if (neuron.trust !== undefined) described.trust = neuron.trust;
  if (neuron.pruningScore !== undefined) described.pruningScore = neuron.pruningScore;
  if (neuron.axon !== undefined) described.axon = neuron.axon;
  if (neuron.registeredAtBlock !== undefined) {
    described.registeredAtBlock = neuron.registeredAtBlock;
    if (immunityPeriod !== undefined)
      described.immunity = immunityAt(Number(neuron.registeredAtBlock), immunityPeriod, block);
  }
  return described;
}

/** The runtime's `get_neuron_is_immune` at `block`, and the blocks until it no longer holds. */
export function immunityAt(registeredAt: number, immunityPeriod: number, block: number): NeuronImmunity {
  const age = Math.max(0, block - registeredAt);
  return {
    inPeriod: age < immunityPeriod,
    blocksLeft: String(Math.max(0, immunityPeriod - age)),
    immunityPeriod,
  };
}
