import { invalidArgument } from "@platform/errors";
import type { HistoryDb } from "@platform/history";
import type { AsOf, BlockSelector } from "@platform/proto/common/v1/common";
import type {
  GetValidatorsLatestRequest,
  GetValidatorsLatestResponse,
  Validator,
} from "@platform/proto/data/v1/subnets";
import { type NeuronState, PoolSnapshot, ValidatorSetSnapshot } from "@platform/proto/events/v1/chain_network";
import { type SortName, VALIDATOR_SORTS } from "@platform/proto/sorts";
import { subnetsKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { ROOT_NETUID } from "@platform/subtensor";
import { readModel } from "../shared/asOf.js";
import { notYet } from "../shared/asOfRef.js";
import { decodeCursor, queryScope } from "../shared/cursor.js";
import { mulIntByDecimal } from "../shared/decimal.js";
import { checkNetuids, netuidNotFound, toNetuids } from "../shared/netuids.js";
import { SUBNET_POOLS, subnetsAt } from "../shared/netuidsAt.js";
import { orderOf, pageLimitOf } from "../shared/page.js";
import { asOfPinned, blockScope, pinBlock, type Wanted, wantedOf } from "../shared/pastBlock.js";
import { decodePoint, newestPoints, pointsAtBlock } from "../shared/readModel.js";
import { type SeriesStores, seriesAt } from "../shared/seriesAt.js";
import type { ReadAt } from "../shared/snapshotsAt.js";
import { sortedPage, sortReaderOf } from "../shared/sortedPage.js";
import { rootStakeMovesAfter, withRootStakes } from "./rootStakes.js";
import { readYieldPoints, yieldOf } from "./yield.js";

/**
 * `GET /data/v1/subnets/{netuid}/validators/latest`: the newest metagraph of the subnet, ranked, or
 * the one standing at the block asked for.
 */
export async function getValidatorsLatest(
  redis: Redis,
  request: GetValidatorsLatestRequest,
  history?: HistoryDb,
): Promise<GetValidatorsLatestResponse> {
  const limit = pageLimitOf(request.page, { defaultLimit: 64, maxLimit: 256 });
  const order = orderOf(request.order, VALIDATOR_SORTS.defaultOrder);
  const sortValueOf = sortReaderOf(VALIDATOR_SORTS, VALIDATOR_SORT_VALUES, request.sort, "a validator sort");
  const scope = queryScope([
    "validators/latest",
    request.netuid,
    request.includeWithoutPermit,
    request.sort,
    order,
    ...blockScope(request.at),
  ]);
  const { netuid, snapshot, pool, block, asOf } = await standingMetagraph(
    { redis, history },
    request.netuid,
    request.at,
    request.page?.cursor ? request.page.cursor : undefined,
    scope,
  );
  const price = pool?.priceTao;
  const neurons = snapshot.neurons.filter((neuron) =>
    request.includeWithoutPermit
      ? BigInt(neuron.alphaStakeNalpha) > 0n || BigInt(neuron.rootStakeRao ?? "0") > 0n
      : neuron.validatorPermit,
  );
  const yields = await readYieldPoints({ redis, history }, netuid, block, Date.parse(asOf.timestamp));
  const validators = neurons.map((neuron) => {
    const validator = describeValidator(neuron, price, block, netuid === ROOT_NETUID);
    const earned = neuron.hotkey === undefined ? undefined : yieldOf(yields, neuron.hotkey.publicKey);
    if (earned !== undefined) validator.yield = earned;
    return validator;
  });
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
  return { asOf, netuid, validators: page.items, page: page.page };
}

/** The metagraph a page describes: its subnet, the snapshot with root stakes moved since, the pool valuing it, its block. */
export interface StandingMetagraph {
  netuid: number;
  snapshot: ValidatorSetSnapshot;
  pool: PoolSnapshot | undefined;
  block: number;
  asOf: AsOf;
  read: ReadAt;
}

/**
 * The subnet's metagraph standing at the newest block (or at the block asked for), valued at the
 * pool of that block. Every page of a walk answers at the block of its first page (the cursor's
 * `b`), so no UID is served twice or skipped while metagraphs change underneath (the subnet's
 * newest few metagraphs are kept).
 */
export async function standingMetagraph(
  stores: SeriesStores,
  requested: number,
  at: BlockSelector | undefined,
  cursor: string | undefined,
  scope: string,
): Promise<StandingMetagraph> {
  const { redis } = stores;
  const pinned = cursor === undefined ? undefined : decodeCursor(cursor, scope, {}, { b: /^\d{1,12}$/ }).b;
  const wanted = wantedOf(at);
  const { netuid, point, newestPool, pin, read } =
    wanted === undefined
      ? await metagraphAtHead(redis, requested, pinned)
      : await metagraphAtPast(stores, requested, wanted, pinned);
  if (point === undefined) {
    if (pinned !== undefined)
      throw invalidArgument(
        "INVALID_CURSOR",
        "the metagraph this walk started on is no longer kept; start again without the cursor",
        { parameter: "cursor" },
      );
    if (pin !== undefined) throw netuidNotFound([netuid]);
    throw notYet("metagraph of this subnet");
  }
  // A metagraph is published when it changes, a pool at every block (same partition, so never
  // behind it): the newest pool's block is the state the answer describes.
  const poolPoint =
    newestPool !== undefined && newestPool.b >= point.b
      ? newestPool
      : (await read([subnetsKeys.poolPoints(netuid)], point.b))[0];
  const pool = poolPoint === undefined ? undefined : decodePoint(poolPoint, PoolSnapshot);
  const block = poolPoint !== undefined && poolPoint.b >= point.b ? poolPoint.b : point.b;
  // Root stakes that moved since the snapshot come as moves of their own (ValidatorRootStakes).
  const snapshot = withRootStakes(
    decodePoint(point, ValidatorSetSnapshot),
    await rootStakeMovesAfter(stores, netuid, point, block),
  );
  const asOf = asOfPinned(block === point.b ? snapshot.ref : pool!.ref, pin);
  return { netuid, snapshot, pool, block, asOf, read };
}

/** The subnet's newest metagraph and pool (or those at a walk's block), with the subnet list judged. */
async function metagraphAtHead(redis: Redis, requested: number, pinned: string | undefined) {
  // The pool before the metagraph: a pipeline is not atomic, and a commit landing between the two
  // reads must leave the metagraph newer than the pool (then valued at its own block), never older
  // than the block the answer names (holders.ts: CI served block N-1's holder set as block N's).
  const keys = [subnetsKeys.poolPoints(requested), subnetsKeys.validatorPoints(requested)];
  // The subnet list and the newest metagraph in one round trip; the netuid is judged once both are in.
  const [members, [newestPool, point]] = await Promise.all([
    readModel(() => redis.smembers(subnetsKeys.netuids)),
    pinned === undefined ? newestPoints(redis, keys) : pointsAtBlock(redis, keys, Number(pinned)),
  ]);
  const [netuid] = checkNetuids([requested], toNetuids(members), 1) as [number];
  const read: ReadAt = (at, block) => pointsAtBlock(redis, at, block);
  return { netuid, point, newestPool, pin: undefined, read };
}

/**
 * The metagraph and pool standing at the block asked for (or at a walk's block), below the subnet's
 * newest pool; a subnet that did not stand then is NETUID_NOT_FOUND.
 */
async function metagraphAtPast(stores: SeriesStores, requested: number, wanted: Wanted, pinned: string | undefined) {
  const [head] = await newestPoints(stores.redis, [subnetsKeys.poolPoints(requested)]);
  if (head === undefined) throw netuidNotFound([requested]);
  const pin = await pinBlock(stores, wanted, head.b);
  const block = pinned === undefined ? pin.block : Number(pinned);
  const [{ netuids }, [point, newestPool]] = await Promise.all([
    subnetsAt(stores, SUBNET_POOLS, pin.block, [requested], 1),
    seriesAt(stores, [subnetsKeys.validatorPoints(requested), subnetsKeys.poolPoints(requested)], block),
  ]);
  const read: ReadAt = (at, from) => seriesAt(stores, at, from);
  return { netuid: netuids[0]!, point, newestPool, pin, read };
}

/** What each validator sort orders by. */
const VALIDATOR_SORT_VALUES: Record<SortName<typeof VALIDATOR_SORTS>, (validator: Validator) => string | undefined> = {
  stake: (validator) => validator.totalStakeValueRao,
  alpha_stake: (validator) => validator.alphaStakeNalpha,
  root_stake: (validator) => validator.rootStakeRao,
  dividends: (validator) => validator.dividends,
  vtrust: (validator) => validator.vtrust,
  take: (validator) => validator.take,
  uid: (validator) => String(validator.uid),
  emission: (validator) => validator.emissionNalpha,
  yield_1h: (validator) => validator.yield?.yield1h,
  yield_1d: (validator) => validator.yield?.yield1d,
  yield_7d: (validator) => validator.yield?.yield7d,
  yield_30d: (validator) => validator.yield?.yield30d,
};

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
  if (neuron.hotkeyDividendsNalpha !== undefined) validator.hotkeyDividendsNalpha = neuron.hotkeyDividendsNalpha;
  return validator;
}
