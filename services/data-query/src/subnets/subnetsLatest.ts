import type { HistoryDb } from "@platform/history";
import type { GetSubnetsLatestRequest, GetSubnetsLatestResponse, Subnet } from "@platform/proto/data/v1/subnets";
import {
  EmissionSnapshot,
  NetworkStatsSnapshot,
  PoolSnapshot,
  SubnetSnapshot,
  ValidatorSetSnapshot,
} from "@platform/proto/events/v1/chain_network";
import { type SortName, SUBNET_SORTS } from "@platform/proto/sorts";
import { type SeriesPoint, subnetsKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { readModel } from "../shared/asOf.js";
import { asOfOf, notYet } from "../shared/asOfRef.js";
import { queryScope } from "../shared/cursor.js";
import { mulIntByDecimal } from "../shared/decimal.js";
import { checkNetuids, toNetuids } from "../shared/netuids.js";
import { SUBNET_POOLS, subnetsAt } from "../shared/netuidsAt.js";
import { orderOf, pageLimitOf } from "../shared/page.js";
import { asOfPinned, blockScope, lowestBlock, pinBlock, type Wanted, wantedOf } from "../shared/pastBlock.js";
import { consistentPoints, decodePoint, newestPoints, pointsAtBlock } from "../shared/readModel.js";
import { type SeriesStores, seriesAt } from "../shared/seriesAt.js";
import type { ReadAt } from "../shared/snapshotsAt.js";
import { sortedPage, sortReaderOf } from "../shared/sortedPage.js";

/**
 * `GET /data/v1/subnets/latest`: every subnet at the newest block all of their snapshots reached,
 * or at the block asked for (the subnets that stood then).
 */
export async function getSubnetsLatest(
  redis: Redis,
  request: GetSubnetsLatestRequest,
  history?: HistoryDb,
): Promise<GetSubnetsLatestResponse> {
  const limit = pageLimitOf(request.page, { defaultLimit: 256, maxLimit: 256 });
  const order = orderOf(request.order, SUBNET_SORTS.defaultOrder);
  const sortValueOf = sortReaderOf(SUBNET_SORTS, SUBNET_SORT_VALUES, request.sort, "a subnet sort");
  const wanted = wantedOf(request.at);
  const { requested, netuids, snapshots, asOf, read } =
    wanted === undefined
      ? await subnetsAtHead(redis, request)
      : await subnetsAtPast({ redis, history }, request, wanted);
  const block = Number(asOf.blockNumber);
  const [flags, pools, emissions] = await Promise.all([
    read(netuids.map(subnetsKeys.validatorFlagPoints), block),
    read(netuids.map(subnetsKeys.poolPoints), block),
    read(netuids.map(subnetsKeys.emissionPoints), block),
  ]);
  // The counts come from the metagraphs' flags (a thirtieth of a whole metagraph); a subnet whose
  // metagraph was projected before the flags existed is read whole.
  const missing = netuids.filter((_netuid, index) => flags[index] === undefined);
  const whole = missing.length === 0 ? [] : await read(missing.map(subnetsKeys.validatorPoints), block);
  const validators = flags.map((point, index) => point ?? whole[missing.indexOf(netuids[index]!)]);
  const subnets = snapshots.map((snapshot, index) =>
    describeSubnet(
      snapshot,
      validators[index] === undefined ? undefined : decodePoint(validators[index]!, ValidatorSetSnapshot),
      pools[index] === undefined ? undefined : decodePoint(pools[index]!, PoolSnapshot),
      emissions[index] === undefined ? undefined : decodePoint(emissions[index]!, EmissionSnapshot),
    ),
  );
  const scope = queryScope([
    "subnets/latest",
    [...requested].sort((a, b) => a - b),
    request.sort,
    order,
    ...blockScope(request.at),
  ]);
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

async function subnetsAtHead(redis: Redis, request: GetSubnetsLatestRequest) {
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
  const read: ReadAt = (keys, at) => pointsAtBlock(redis, keys, at);
  return { requested, netuids, snapshots, asOf, read };
}

/**
 * The subnets that stood at the block asked for (by their pools, published at every snapshot
 * block), below the newest block every subnet's pool listed now reached; as_of is the newest of
 * those pools, or the network's at that block when no subnet stood.
 */
async function subnetsAtPast(stores: SeriesStores, request: GetSubnetsLatestRequest, wanted: Wanted) {
  const known = toNetuids(await readModel(() => stores.redis.smembers(subnetsKeys.netuids)));
  const head = lowestBlock(await newestPoints(stores.redis, [...known].map(subnetsKeys.poolPoints)));
  if (head === undefined) throw notYet("subnet");
  const pin = await pinBlock(stores, wanted, head);
  const standing = await subnetsAt(stores, SUBNET_POOLS, pin.block, request.netuids, 256);
  const read: ReadAt = (keys, at) => seriesAt(stores, keys, at);
  const points = await read(standing.netuids.map(subnetsKeys.subnetPoints), pin.block);
  const netuids = standing.netuids.filter((_netuid, index) => points[index] !== undefined);
  const snapshots = points.filter((point) => point !== undefined).map((point) => decodePoint(point!, SubnetSnapshot));
  const newestPool = standing.points.reduce<SeriesPoint | undefined>(
    (top, point) => (top === undefined || point.b > top.b ? point : top),
    undefined,
  );
  const ref =
    newestPool === undefined
      ? decodePoint(pin.stats, NetworkStatsSnapshot).ref
      : decodePoint(newestPool, PoolSnapshot).ref;
  return { requested: standing.netuids, netuids, snapshots, asOf: asOfPinned(ref, pin), read };
}

/** What each subnet sort orders by. */
const SUBNET_SORT_VALUES: Record<SortName<typeof SUBNET_SORTS>, (subnet: Subnet) => string | undefined> = {
  netuid: (subnet) => String(subnet.netuid),
  registered_at: (subnet) => subnet.registeredAtBlock,
  market_cap: (subnet) => subnet.pool?.marketCapRao,
  tao_emission: (subnet) => taoEmissions.get(subnet),
  uid_count: (subnet) => String(subnet.uidCount),
};

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
