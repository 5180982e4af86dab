import { invalidArgument } from "@platform/errors";
import {
  type GetSubnetsLatestRequest,
  type GetSubnetsLatestResponse,
  type Subnet,
  SubnetSort,
} from "@platform/proto/data/v1/subnets";
import {
  EmissionSnapshot,
  PoolSnapshot,
  SubnetSnapshot,
  ValidatorSetSnapshot,
} from "@platform/proto/events/v1/chain_network";
import { subnetsKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { readModel } from "../shared/asOf.js";
import { asOfOf, notYet } from "../shared/asOfRef.js";
import { queryScope } from "../shared/cursor.js";
import { mulIntByDecimal } from "../shared/decimal.js";
import { checkNetuids, toNetuids } from "../shared/netuids.js";
import { orderOf, pageLimitOf } from "../shared/page.js";
import { consistentPoints, decodePoint, pointsAtBlock } from "../shared/readModel.js";
import { sortedPage } from "../shared/sortedPage.js";

/** `GET /data/v1/subnets/latest`: every subnet at the newest block all of their snapshots reached. */
export async function getSubnetsLatest(
  redis: Redis,
  request: GetSubnetsLatestRequest,
): Promise<GetSubnetsLatestResponse> {
  const limit = pageLimitOf(request.page, { defaultLimit: 256, maxLimit: 256 });
  const order = orderOf(request.order, "asc");
  const sortValueOf = subnetSortValue(request.sort);
  const known = toNetuids(await readModel(() => redis.smembers(subnetsKeys.netuids)));
  const requested = request.netuids.length > 0 ? checkNetuids(request.netuids, known, 256) : [...known];
  // Pools are published at every block, subnet snapshots and metagraphs when they change: the
  // answer is the state at the newest block every requested subnet's pool reached, each subnet as
  // its newest snapshot at or before it stands.
  const { block, points: poolPoints } = await consistentPoints(redis, requested.map(subnetsKeys.poolPoints));
  if (block === undefined) throw notYet("subnet");
  const points = await pointsAtBlock(redis, requested.map(subnetsKeys.subnetPoints), block);
  const netuids = requested.filter((_netuid, index) => points[index] !== undefined);
  const snapshots = points.filter((point) => point !== undefined).map((point) => decodePoint(point!, SubnetSnapshot));
  if (snapshots.length === 0) throw notYet("subnet");
  const atBlock = poolPoints.find((point) => point?.b === block);
  const asOf = asOfOf(decodePoint(atBlock!, PoolSnapshot).ref);
  const [flags, pools, emissions] = await Promise.all([
    pointsAtBlock(redis, netuids.map(subnetsKeys.validatorFlagPoints), block),
    pointsAtBlock(redis, netuids.map(subnetsKeys.poolPoints), block),
    pointsAtBlock(redis, netuids.map(subnetsKeys.emissionPoints), block),
  ]);
  // The counts come from the metagraphs' flags (a thirtieth of a whole metagraph); a subnet whose
  // metagraph was projected before the flags existed is read whole.
  const missing = netuids.filter((_netuid, index) => flags[index] === undefined);
  const whole = missing.length === 0 ? [] : await pointsAtBlock(redis, missing.map(subnetsKeys.validatorPoints), block);
  const validators = flags.map((point, index) => point ?? whole[missing.indexOf(netuids[index]!)]);
  const subnets = snapshots.map((snapshot, index) =>
    describeSubnet(
      snapshot,
      validators[index] === undefined ? undefined : decodePoint(validators[index]!, ValidatorSetSnapshot),
      pools[index] === undefined ? undefined : decodePoint(pools[index]!, PoolSnapshot),
      emissions[index] === undefined ? undefined : decodePoint(emissions[index]!, EmissionSnapshot),
    ),
  );
  const scope = queryScope(["subnets/latest", [...requested].sort((a, b) => a - b), request.sort, order]);
  const page = sortedPage({
    items: subnets,
    valueOf: sortValueOf,
    idOf: (subnet) => subnet.netuid,
    order,
    limit,
    cursor: request.page?.cursor ?? "",
    scope,
  });
  return { asOf, subnets: page.items, page: page.page };
}

function subnetSortValue(sort: SubnetSort): (subnet: Subnet) => string | undefined {
  switch (sort) {
    case SubnetSort.SUBNET_SORT_UNSPECIFIED:
    case SubnetSort.SUBNET_SORT_NETUID:
      return (subnet) => String(subnet.netuid);
    case SubnetSort.SUBNET_SORT_REGISTERED_AT:
      return (subnet) => subnet.registeredAtBlock;
    case SubnetSort.SUBNET_SORT_MARKET_CAP:
      return (subnet) => subnet.pool?.marketCapRao;
    case SubnetSort.SUBNET_SORT_UID_COUNT:
      return (subnet) => String(subnet.uidCount);
    case SubnetSort.SUBNET_SORT_TAO_EMISSION:
      return (subnet) => taoEmissions.get(subnet);
    default:
      throw invalidArgument("INVALID_PARAMETER", "sort is not a subnet sort", { parameter: "sort" });
  }
}

/** Each described subnet's TAO emission in the block (not a field of Subnet, only a sort key). */
const taoEmissions = new WeakMap<Subnet, string>();

export function describeSubnet(
  snapshot: SubnetSnapshot,
  validators: ValidatorSetSnapshot | undefined,
  pool: PoolSnapshot | undefined,
  emission: EmissionSnapshot | undefined,
): Subnet {
  const subnet: Subnet = {
    netuid: snapshot.netuid,
    owner: { coldkey: snapshot.ownerColdkey, hotkey: snapshot.ownerHotkey },
    registeredAtBlock: snapshot.registeredAtBlock,
    mechanism: snapshot.mechanism,
    tempo: snapshot.tempo,
    lastEpochBlock: emission?.lastEpochBlock ?? "0",
    nextEpochBlock: emission?.nextEpochBlock ?? "0",
    uidCount: snapshot.uidCount,
    validatorsWithPermit: validators?.neurons.filter((neuron) => neuron.validatorPermit).length ?? 0,
    activeUids: validators?.neurons.filter((neuron) => neuron.active).length ?? 0,
    emissionEnabled: snapshot.emissionEnabled,
    yuma3Enabled: snapshot.yuma3Enabled,
  };
  if (snapshot.name !== undefined) subnet.name = snapshot.name;
  if (snapshot.symbol !== undefined) subnet.symbol = snapshot.symbol;
  if (snapshot.identity !== undefined) subnet.identity = snapshot.identity;
  if (snapshot.maxUids !== undefined) subnet.maxUids = snapshot.maxUids;
  if (snapshot.maxValidators !== undefined) subnet.maxValidators = snapshot.maxValidators;
  if (snapshot.registration !== undefined) subnet.registration = snapshot.registration;
  if (snapshot.transfersEnabled !== undefined) subnet.transfersEnabled = snapshot.transfersEnabled;
  if (snapshot.commitReveal !== undefined) subnet.commitReveal = snapshot.commitReveal;
  if (snapshot.liquidAlpha !== undefined) subnet.liquidAlpha = snapshot.liquidAlpha;
  if (snapshot.hyperparameters !== undefined) subnet.hyperparameters = snapshot.hyperparameters;
  if (pool !== undefined) {
    subnet.pool = {
      priceTao: pool.priceTao,
      taoInRao: pool.taoInRao,
      marketCapRao: mulIntByDecimal(BigInt(pool.alphaIssuanceNalpha), pool.priceTao).toString(),
    };
  }
  if (emission !== undefined)
    taoEmissions.set(subnet, (BigInt(emission.taoInEmissionRao) + BigInt(emission.excessTaoRao ?? "0")).toString());
  return subnet;
}
