import type { HistoryDb } from "@platform/history";
import type {
  GetSubnetEmissionsLatestRequest,
  GetSubnetEmissionsLatestResponse,
  SubnetEmission,
} from "@platform/proto/data/v1/market";
import { EmissionSnapshot, SubnetSnapshot } from "@platform/proto/events/v1/chain_network";
import { EMISSION_SORTS, type SortName } from "@platform/proto/sorts";
import { subnetsKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { queryScope } from "../shared/cursor.js";
import { mulIntByDecimal } from "../shared/decimal.js";
import { MARKET_EMISSIONS } from "../shared/netuidsAt.js";
import { ratio } from "../shared/numbers.js";
import { orderOf, pageLimitOf } from "../shared/page.js";
import { blockScope, wantedOf } from "../shared/pastBlock.js";
import { decodePoint } from "../shared/readModel.js";
import { snapshotsAtHead, snapshotsAtPast } from "../shared/snapshotsAt.js";
import { sortedPage, sortReaderOf } from "../shared/sortedPage.js";

const BLOCKS_PER_DAY = 7_200n;

const taoEmission = (snapshot: EmissionSnapshot) =>
  BigInt(snapshot.taoInEmissionRao) + BigInt(snapshot.excessTaoRao ?? "0");

/**
 * `GET /data/v1/subnet-emissions/latest`: each subnet's emission in the newest block all of them
 * reached, or in the block asked for (the subnets that stood then).
 */
export async function getSubnetEmissionsLatest(
  redis: Redis,
  request: GetSubnetEmissionsLatestRequest,
  history?: HistoryDb,
): Promise<GetSubnetEmissionsLatestResponse> {
  const limit = pageLimitOf(request.page, { defaultLimit: 256, maxLimit: 256 });
  const order = orderOf(request.order, EMISSION_SORTS.defaultOrder);
  const sortValueOf = sortReaderOf(EMISSION_SORTS, EMISSION_SORT_VALUES, request.sort, "an emission sort");
  const wanted = wantedOf(request.at);
  const choice = { requested: request.netuids };
  const { netuids, snapshots, asOf, read } =
    wanted === undefined
      ? await snapshotsAtHead(redis, MARKET_EMISSIONS, EmissionSnapshot, choice, "emission")
      : await snapshotsAtPast(
          { redis, history },
          MARKET_EMISSIONS,
          EmissionSnapshot,
          { ...choice, wanted },
          "emission",
        );
  const block = Number(asOf.blockNumber);
  const subnets = await read(
    snapshots.map((snapshot) => subnetsKeys.subnetPoints(snapshot.netuid)),
    block,
  );
  const emissions = snapshots.map((snapshot, index) =>
    describeEmission(
      snapshot,
      subnets[index] === undefined ? undefined : decodePoint(subnets[index]!, SubnetSnapshot),
      block,
    ),
  );
  const scope = queryScope([
    "subnet-emissions/latest",
    [...netuids].sort((a, b) => a - b),
    request.sort,
    order,
    ...blockScope(request.at),
  ]);
  const page = sortedPage({
    items: emissions,
    valueOf: sortValueOf,
    idOf: (emission) => emission.netuid,
    order,
    limit,
    cursor: request.page?.cursor ?? "",
    scope,
  });
  const first = snapshots[0];
  const response: GetSubnetEmissionsLatestResponse = {
    asOf,
    blockEmissionRao: first?.blockEmissionRao ?? "0",
    totalTaoEmissionRao: snapshots.reduce((sum, snapshot) => sum + taoEmission(snapshot), 0n).toString(),
    subnetsEmitting: snapshots.filter((snapshot) => snapshot.emissionEnabled).length,
    emissions: page.items,
    page: page.page,
  };
  if (first?.ownerCut !== undefined) response.ownerCut = first.ownerCut;
  return response;
}

/** What each emission sort orders by. */
const EMISSION_SORT_VALUES: Record<
  SortName<typeof EMISSION_SORTS>,
  (emission: SubnetEmission) => string | undefined
> = {
  tao_emission: (emission) => (BigInt(emission.taoInEmissionRao) + BigInt(emission.excessTaoRao ?? "0")).toString(),
  netuid: (emission) => String(emission.netuid),
  alpha_out_emission: (emission) => emission.alphaOutEmissionNalpha,
  share: (emission) => emission.taoEmissionShare,
};

/**
 * The API view of one emission snapshot. The alpha-out split follows run_coinbase (research §3.2):
 * owner cut first, the rest half to miners and half to validators, of which root_prop goes to root.
 * It is given only when the snapshot carries owner_cut and root_prop.
 */
export function describeEmission(
  snapshot: EmissionSnapshot,
  subnet: SubnetSnapshot | undefined,
  block: number,
): SubnetEmission {
  const emission: SubnetEmission = {
    netuid: snapshot.netuid,
    emissionEnabled: snapshot.emissionEnabled,
    // `BlockEmission` is storage-only: an ingestor without a StorageQuery reader leaves it empty,
    // and a share of an unknown total is unknown (rendered null), not a server error.
    taoEmissionShare:
      snapshot.blockEmissionRao === "" ? "" : ratio(taoEmission(snapshot).toString(), snapshot.blockEmissionRao),
    taoInEmissionRao: snapshot.taoInEmissionRao,
    tempo: snapshot.tempo,
    perDayEstimate: { taoInRao: (BigInt(snapshot.taoInEmissionRao) * BLOCKS_PER_DAY).toString() },
  };
  // A runtime that keeps no per-block alpha emission (spec 218) leaves them unknown, not zero.
  if (snapshot.alphaInEmissionNalpha !== undefined) emission.alphaInEmissionNalpha = snapshot.alphaInEmissionNalpha;
  if (snapshot.alphaOutEmissionNalpha !== undefined) {
    emission.alphaOutEmissionNalpha = snapshot.alphaOutEmissionNalpha;
    emission.perDayEstimate!.alphaOutNalpha = (BigInt(snapshot.alphaOutEmissionNalpha) * BLOCKS_PER_DAY).toString();
  }
  if (subnet?.name !== undefined) emission.name = subnet.name;
  if (subnet?.symbol !== undefined) emission.symbol = subnet.symbol;
  if (snapshot.excessTaoRao !== undefined) emission.excessTaoRao = snapshot.excessTaoRao;
  if (snapshot.rootSellTaoRao !== undefined) emission.rootSellTaoRao = snapshot.rootSellTaoRao;
  if (snapshot.rootProp !== undefined) emission.rootProp = snapshot.rootProp;
  if (snapshot.lastEpochBlock !== undefined) {
    emission.lastEpochBlock = snapshot.lastEpochBlock;
    emission.blocksSinceLastEpoch = String(Math.max(0, block - Number(snapshot.lastEpochBlock)));
  }
  if (snapshot.nextEpochBlock !== undefined) emission.nextEpochBlock = snapshot.nextEpochBlock;
  if (
    snapshot.ownerCut !== undefined &&
    snapshot.rootProp !== undefined &&
    snapshot.alphaOutEmissionNalpha !== undefined
  ) {
    const alphaOut = BigInt(snapshot.alphaOutEmissionNalpha);
    const owner = mulIntByDecimal(alphaOut, snapshot.ownerCut);
    const rest = alphaOut - owner;
    const miners = rest / 2n;
    const validatorsHalf = rest - miners;
    const root = mulIntByDecimal(validatorsHalf, snapshot.rootProp);
    emission.alphaOutSplit = {
      ownerNalpha: owner.toString(),
      minersNalpha: miners.toString(),
      validatorsNalpha: (validatorsHalf - root).toString(),
      rootNalpha: root.toString(),
    };
  }
  const pending = [
    snapshot.pendingServerNalpha,
    snapshot.pendingValidatorNalpha,
    snapshot.pendingRootAlphaNalpha,
    snapshot.pendingOwnerCutNalpha,
  ];
  if (pending.every((value) => value !== undefined)) {
    emission.pending = {
      serverNalpha: pending[0]!,
      validatorNalpha: pending[1]!,
      rootAlphaNalpha: pending[2]!,
      ownerNalpha: pending[3]!,
    };
  }
  return emission;
}
