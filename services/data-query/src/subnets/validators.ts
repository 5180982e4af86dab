import { invalidArgument } from "@platform/errors";
import {
  type GetValidatorsLatestRequest,
  type GetValidatorsLatestResponse,
  type Validator,
  ValidatorSort,
} from "@platform/proto/data/v1/subnets";
import { type NeuronState, PoolSnapshot, ValidatorSetSnapshot } from "@platform/proto/events/v1/chain_network";
import { subnetsKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { ROOT_NETUID } from "@platform/subtensor";
import { readModel } from "../shared/asOf.js";
import { asOfOf, notYet } from "../shared/asOfRef.js";
import { decodeCursor, queryScope } from "../shared/cursor.js";
import { mulIntByDecimal } from "../shared/decimal.js";
import { checkNetuids, toNetuids } from "../shared/netuids.js";
import { orderOf, pageLimitOf } from "../shared/page.js";
import { decodePoint, newestPoints, pointsAtBlock } from "../shared/readModel.js";
import { sortedPage } from "../shared/sortedPage.js";

/** `GET /data/v1/subnets/{netuid}/validators/latest`: the newest metagraph of the subnet, ranked. */
export async function getValidatorsLatest(
  redis: Redis,
  request: GetValidatorsLatestRequest,
): Promise<GetValidatorsLatestResponse> {
  const limit = pageLimitOf(request.page, { defaultLimit: 64, maxLimit: 256 });
  const order = orderOf(request.order, "desc");
  const sortValueOf = validatorSortValue(request.sort);
  // The subnet list and the newest metagraph in one round trip; the netuid is judged once both are in.
  const scope = queryScope(["validators/latest", request.netuid, request.includeWithoutPermit, request.sort, order]);
  // Every page of a walk answers at the block of its first page, so no UID is served twice or
  // skipped while metagraphs change underneath (the subnet's newest few metagraphs are kept).
  const pinned = request.page?.cursor ? decodeCursor(request.page.cursor, scope, {}, { b: /^\d{1,12}$/ }).b : undefined;
  const [members, [point, newestPool]] = await Promise.all([
    readModel(() => redis.smembers(subnetsKeys.netuids)),
    pinned === undefined
      ? newestPoints(redis, [subnetsKeys.validatorPoints(request.netuid), subnetsKeys.poolPoints(request.netuid)])
      : pointsAtBlock(
          redis,
          [subnetsKeys.validatorPoints(request.netuid), subnetsKeys.poolPoints(request.netuid)],
          Number(pinned),
        ),
  ]);
  const [netuid] = checkNetuids([request.netuid], toNetuids(members), 1);
  if (point === undefined) {
    if (pinned !== undefined)
      throw invalidArgument(
        "INVALID_CURSOR",
        "the metagraph this walk started on is no longer kept; start again without the cursor",
        { parameter: "cursor" },
      );
    throw notYet("metagraph of this subnet");
  }
  const snapshot = decodePoint(point, ValidatorSetSnapshot);
  // A metagraph is published when it changes, a pool at every block (same partition, so never
  // behind it): the newest pool's block is the state the answer describes.
  const poolPoint =
    newestPool !== undefined && newestPool.b >= point.b
      ? newestPool
      : (await pointsAtBlock(redis, [subnetsKeys.poolPoints(netuid!)], point.b))[0];
  const pool = poolPoint === undefined ? undefined : decodePoint(poolPoint, PoolSnapshot);
  const block = poolPoint !== undefined && poolPoint.b >= point.b ? poolPoint.b : point.b;
  const asOf = asOfOf(block === point.b ? snapshot.ref : pool!.ref);
  const price = pool?.priceTao;
  const neurons = snapshot.neurons.filter((neuron) =>
    request.includeWithoutPermit
      ? BigInt(neuron.alphaStakeNalpha) > 0n || BigInt(neuron.rootStakeRao ?? "0") > 0n
      : neuron.validatorPermit,
  );
  const validators = neurons.map((neuron) => describeValidator(neuron, price, block, netuid === ROOT_NETUID));
  const page = sortedPage({
    items: validators,
    valueOf: sortValueOf,
    idOf: (validator) => validator.uid,
    order,
    limit,
    cursor: request.page?.cursor ?? "",
    scope,
    carry: { b: String(block) },
  });
  return { asOf, netuid: netuid!, validators: page.items, page: page.page };
}

function validatorSortValue(sort: ValidatorSort): (validator: Validator) => string | undefined {
  switch (sort) {
    case ValidatorSort.VALIDATOR_SORT_UNSPECIFIED:
    case ValidatorSort.VALIDATOR_SORT_STAKE:
      return (validator) => validator.totalStakeValueRao;
    case ValidatorSort.VALIDATOR_SORT_ALPHA_STAKE:
      return (validator) => validator.alphaStakeNalpha;
    case ValidatorSort.VALIDATOR_SORT_ROOT_STAKE:
      return (validator) => validator.rootStakeRao;
    case ValidatorSort.VALIDATOR_SORT_DIVIDENDS:
      return (validator) => validator.dividends;
    case ValidatorSort.VALIDATOR_SORT_VTRUST:
      return (validator) => validator.vtrust;
    case ValidatorSort.VALIDATOR_SORT_TAKE:
      return (validator) => validator.take;
    case ValidatorSort.VALIDATOR_SORT_UID:
      return (validator) => String(validator.uid);
    case ValidatorSort.VALIDATOR_SORT_EMISSION:
      return (validator) => validator.emissionNalpha;
    default:
      throw invalidArgument("INVALID_PARAMETER", "sort is not a validator sort", { parameter: "sort" });
  }
}

/**
 * Total stake value: alpha stake at the pool's spot price at the same block (0 without a pool), plus
 * root stake. On the root subnet the "alpha" stake is the root stake itself (TAO, 1:1): counted once.
 */
export function describeValidator(
  neuron: NeuronState,
  priceTao: string | undefined,
  block: number,
  onRoot = false,
): Validator {
  const alphaValue = priceTao === undefined ? 0n : mulIntByDecimal(BigInt(neuron.alphaStakeNalpha), priceTao);
  const totalStakeValue = onRoot ? BigInt(neuron.alphaStakeNalpha) : alphaValue + BigInt(neuron.rootStakeRao ?? "0");
  const validator: Validator = {
    uid: neuron.uid,
    hotkey: neuron.hotkey,
    coldkey: neuron.coldkey,
    validatorPermit: neuron.validatorPermit,
    active: neuron.active,
    alphaStakeNalpha: neuron.alphaStakeNalpha,
    totalStakeValueRao: totalStakeValue.toString(),
    dividends: neuron.dividends,
    vtrust: neuron.vtrust,
    incentive: neuron.incentive,
    consensus: neuron.consensus,
    emissionNalpha: neuron.emissionNalpha,
    lastUpdateBlock: neuron.lastUpdateBlock,
    blocksSinceUpdate: String(Math.max(0, block - Number(neuron.lastUpdateBlock))),
  };
  if (neuron.identity !== undefined) validator.identity = neuron.identity;
  if (neuron.registeredAtBlock !== undefined) validator.registeredAtBlock = neuron.registeredAtBlock;
  if (neuron.take !== undefined) validator.take = neuron.take;
  if (neuron.childkeyTake !== undefined) validator.childkeyTake = neuron.childkeyTake;
  if (neuron.rootStakeRao !== undefined) validator.rootStakeRao = neuron.rootStakeRao;
  if (neuron.stakeWeight !== undefined) validator.stakeWeight = neuron.stakeWeight;
  if (neuron.alphaDividendsNalpha !== undefined) validator.alphaDividendsNalpha = neuron.alphaDividendsNalpha;
  if (neuron.rootAlphaDividendsNalpha !== undefined)
    validator.rootAlphaDividendsNalpha = neuron.rootAlphaDividendsNalpha;
  if (neuron.nominatorsCount !== undefined) validator.nominatorsCount = neuron.nominatorsCount;
  return validator;
}
