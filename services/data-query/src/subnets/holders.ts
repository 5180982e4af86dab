import { invalidArgument, PlatformError, unavailable } from "@platform/errors";
import type { HistoryDb } from "@platform/history";
import type { ChainRef, PageInfo } from "@platform/proto/common/v1/common";
import type { HolderCoverage } from "@platform/proto/common/v1/network";
import {
  type GetHoldersTopRequest,
  type GetHoldersTopResponse,
  type Holder,
  HolderGrouping,
} from "@platform/proto/data/v1/subnets";
import { HolderPositions, PoolSnapshot, ValidatorSetSnapshot } from "@platform/proto/events/v1/chain_network";
import {
  alphaOfMember,
  type ColdkeyRow,
  type PositionRow,
  RANK_WIDTH,
  rankHolders,
  type SeriesPoint,
  subnetsKeys,
} from "@platform/read-models";
import type { Redis } from "@platform/store";
import { parseAddress } from "../accounts/address.js";
import { readModel } from "../shared/asOf.js";
import { notYet } from "../shared/asOfRef.js";
import { decodeCursor, encodeCursor, queryScope } from "../shared/cursor.js";
import { mulIntByDecimal } from "../shared/decimal.js";
import { checkNetuids, netuidNotFound, toNetuids } from "../shared/netuids.js";
import { SUBNET_POOLS, subnetsAt } from "../shared/netuidsAt.js";
import { ratio } from "../shared/numbers.js";
import { pageLimitOf } from "../shared/page.js";
import { asOfPinned, blockScope, type Pin, pinBlock, wantedOf } from "../shared/pastBlock.js";
import { decodePoint, newestPoints, pointsAtBlock } from "../shared/readModel.js";
import { type SeriesStores, seriesAt } from "../shared/seriesAt.js";

/** Cursors continue the ranking up to this rank. */
const MAX_RANK = 10_000;

/**
 * `GET /data/v1/subnets/{netuid}/holders/top`: the newest complete holder set of the subnet,
 * ranked by alpha (libs/read-models subnets.ts). The cursor is the last ranking member
 * served, so a page continues after that holder's position.
 */
export async function getHoldersTop(
  redis: Redis,
  request: GetHoldersTopRequest,
  history?: HistoryDb,
): Promise<GetHoldersTopResponse> {
  // A past block's holder set never changes under a walk: no ranking to race with.
  if (request.at?.block !== undefined) return readHoldersAt({ redis, history }, request);
  // The projector replaces a ranking whole, in one MULTI, once a block: a read that saw the ranking
  // change under it starts again (rarely more than once), so one answer is one holder set.
  for (let attempt = 1; ; attempt++) {
    try {
      return await readHoldersTop(redis, request);
    } catch (error) {
      if (!(error instanceof RankingReplaced)) throw error;
      if (attempt >= READ_ATTEMPTS)
        throw unavailable("READ_MODEL_UNAVAILABLE", "the holder ranking is being replaced; retry");
    }
  }
}

const READ_ATTEMPTS = 3;

/** The ranking a walk started on was replaced under it: read again (bounded by the caller). */
class RankingReplaced extends PlatformError {
  constructor() {
    super("the holder ranking changed during the read", { code: "RANKING_REPLACED", retryable: true });
  }
}

/** Reads run as one MULTI: no projector transaction lands between them (a pipeline does not promise that). */
async function atomically(redis: Redis, build: (multi: ReturnType<Redis["multi"]>) => void): Promise<unknown[]> {
  return readModel(async () => {
    const multi = redis.multi();
    build(multi);
    const results = (await multi.exec()) ?? [];
    return results.map(([error, value]) => {
      if (error) throw error;
      return value;
    });
  });
}

/** The walk a request asks for, its page scope and its smallest holding; the subnet is judged against `known`. */
function walkOf(request: GetHoldersTopRequest, known: ReadonlySet<number>) {
  const limit = pageLimitOf(request.page, { defaultLimit: 100, maxLimit: 500 });
  const filter: HolderFilter = {
    ...(request.hotkey === undefined ? {} : { hotkey: parseAddress(request.hotkey, "hotkey").publicKey }),
    ...(request.coldkey === undefined ? {} : { coldkey: parseAddress(request.coldkey, "coldkey").publicKey }),
  };
  // A hotkey's nominators are positions on it: one row per (coldkey, that hotkey), whatever group_by says.
  const grouping =
    request.groupBy === HolderGrouping.HOLDER_GROUPING_POSITION || filter.hotkey !== undefined ? "position" : "coldkey";
  if (
    ![
      HolderGrouping.HOLDER_GROUPING_UNSPECIFIED,
      HolderGrouping.HOLDER_GROUPING_COLDKEY,
      HolderGrouping.HOLDER_GROUPING_POSITION,
    ].includes(request.groupBy)
  ) {
    throw invalidArgument("INVALID_PARAMETER", "group_by must be coldkey or position", { parameter: "group_by" });
  }
  const minAlpha = request.minAlphaNalpha ?? "1";
  if (!/^\d{1,24}$/.test(minAlpha))
    throw invalidArgument("INVALID_PARAMETER", "min_alpha_nalpha must be an integer amount", {
      parameter: "min_alpha_nalpha",
    });
  const [netuid] = checkNetuids([request.netuid], known, 1) as [number];
  const scope = queryScope([
    "holders/top",
    netuid,
    grouping,
    minAlpha,
    ...blockScope(request.at),
    ...(isFiltered(filter) ? [filter.hotkey ?? "", filter.coldkey ?? ""] : []),
  ]);
  const cursor = request.page?.cursor
    ? decodeCursor(
        request.page.cursor,
        scope,
        { m: /^\d{24}:0x[0-9a-f]{64}(:0x[0-9a-f]{64})?$/, r: /^\d{1,6}$/ },
        { s: /^\d{1,20}:0x[0-9a-f]{64}$/, a: /^\d{1,12}$/ },
      )
    : undefined;
  const walk: Walk = {
    netuid,
    grouping,
    filter,
    limit,
    after: cursor?.m,
    ...(cursor?.s === undefined || cursor.a === undefined
      ? {}
      : { pinned: { set: cursor.s, poolBlock: Number(cursor.a) } }),
  };
  return { walk, scope, minAlpha };
}

async function readHoldersTop(redis: Redis, request: GetHoldersTopRequest): Promise<GetHoldersTopResponse> {
  const known = toNetuids(await readModel(() => redis.smembers(subnetsKeys.netuids)));
  const { walk, scope, minAlpha } = walkOf(request, known);
  const { netuid } = walk;

  // A walk stays on the holder set (and pool block) of its first page while the projector
  // replaces the ranking: the zsets serve it while they show that set, the stored set after.
  // A filtered walk reads the stored set: the rankings order every holder, not those of one key.
  // The newest pool is read before the set: a commit landing between the two reads then leaves the
  // set newer than the pool (valued at the set's own block below), never older than the block the
  // answer names. Read the other way round, the set of block N-1 went out as block N's.
  const [newestPool] = walk.pinned === undefined ? await newestPoints(redis, [subnetsKeys.poolPoints(netuid)]) : [];
  const ranked = isFiltered(walk.filter) ? undefined : await fromRanking(redis, walk);
  const page =
    ranked ?? (walk.pinned === undefined ? await fromNewestStoredSet(redis, walk) : await fromStoredSet(redis, walk));
  const { set } = page;

  const poolAt = (block: number) =>
    pointsAtBlock(redis, [subnetsKeys.poolPoints(netuid)], block).then((points) => points[0]);
  const setBlock = Number(set.ref!.blockNumber);
  // A holder set is published when it changes, a pool at every block (same partition and
  // transaction, so never behind it): the set stands until the newest pool's block, which the
  // answer describes, valued at that pool; a set newer than that pool is valued at its own block.
  const poolRead =
    walk.pinned !== undefined
      ? poolAt(walk.pinned.poolBlock)
      : newestPool !== undefined && newestPool.b >= setBlock
        ? Promise.resolve(newestPool)
        : poolAt(setBlock);
  const [poolPoint, validatorPoint] = await Promise.all([
    poolRead,
    // Names come from the metagraph's flags (coldkey and identity name of the neurons that have
    // one); a read model projected before the flags existed gives the whole metagraph.
    newestPoints(redis, [subnetsKeys.validatorFlagPoints(netuid)]).then(
      async ([flags]) => flags ?? (await newestPoints(redis, [subnetsKeys.validatorPoints(netuid)]))[0],
    ),
  ]);
  if (poolPoint === undefined) throw notYet("pool of this subnet");
  return renderPage({ walk, scope, minAlpha, page, poolPoint, validatorPoint, pin: undefined });
}

/**
 * The holders at the block asked for: the subnet's holder set standing then (Redis keeps the
 * newest few, the history database every one), ranked here the way the projector ranks, valued at
 * the pool of the same block and named from the metagraph standing then.
 */
async function readHoldersAt(stores: SeriesStores, request: GetHoldersTopRequest): Promise<GetHoldersTopResponse> {
  const [head] = await newestPoints(stores.redis, [subnetsKeys.poolPoints(request.netuid)]);
  if (head === undefined) throw netuidNotFound([request.netuid]);
  const pin = await pinBlock(stores, wantedOf(request.at)!, head.b);
  const { netuids } = await subnetsAt(stores, SUBNET_POOLS, pin.block, [request.netuid], 1);
  const { walk, scope, minAlpha } = walkOf(request, new Set(netuids));
  const { netuid } = walk;
  const [setPoint, flags, whole] = await seriesAt(
    stores,
    [subnetsKeys.holderPoints(netuid), subnetsKeys.validatorFlagPoints(netuid), subnetsKeys.validatorPoints(netuid)],
    pin.block,
  );
  if (setPoint === undefined) throw netuidNotFound([netuid]);
  const tag = `${setPoint.o}:${setPoint.h}`;
  if (walk.pinned !== undefined && walk.pinned.set !== tag) throw invalidArgumentCursor();
  const [poolPoint] = await seriesAt(stores, [subnetsKeys.poolPoints(netuid)], walk.pinned?.poolBlock ?? pin.block);
  if (poolPoint === undefined) throw netuidNotFound([netuid]);
  const page = pageOfSet(setPoint, tag, walk);
  return renderPage({ walk, scope, minAlpha, page, poolPoint, validatorPoint: flags ?? whole, pin });
}

/** A page's answer from its rows, the pool valuing them and the metagraph naming them. */
function renderPage(input: {
  walk: Walk;
  scope: string;
  minAlpha: string;
  page: SetPage;
  poolPoint: SeriesPoint;
  validatorPoint: SeriesPoint | undefined;
  pin: Pin | undefined;
}): GetHoldersTopResponse {
  const { walk, scope, page, poolPoint, validatorPoint } = input;
  const { limit } = walk;
  const pool = decodePoint(poolPoint, PoolSnapshot);
  const identities = new Map<string, string>();
  if (validatorPoint !== undefined) {
    for (const neuron of decodePoint(validatorPoint, ValidatorSetSnapshot).neurons) {
      if (neuron.coldkey !== undefined && neuron.identity?.name)
        identities.set(neuron.coldkey.publicKey.toLowerCase(), neuron.identity.name);
    }
  }

  const minimum = BigInt(input.minAlpha);
  let entries = page.entries.filter((entry) => alphaOfMember(entry.member) >= minimum);
  const firstRank = page.firstRank;
  const roomLeft = Math.max(0, MAX_RANK - firstRank + 1);
  const hasMore = entries.length > limit && firstRank + limit <= MAX_RANK;
  entries = entries.slice(0, Math.min(limit, roomLeft));
  const holders = entries.map(({ row }, index): Holder => {
    const holder: Holder = {
      rank: firstRank + index,
      coldkey: row.coldkey,
      alphaNalpha: row.alpha,
      shareOfAlphaOut: ratio(row.alpha, pool.alphaOutNalpha),
      valueRao: mulIntByDecimal(BigInt(row.alpha), pool.priceTao).toString(),
      positionsCount: "hotkeys" in row ? row.hotkeys.length : 1,
      hotkeys: "hotkeys" in row ? row.hotkeys.map((held) => ({ hotkey: held.hotkey, alphaNalpha: held.alpha })) : [],
    };
    if ("hotkey" in row) holder.hotkey = row.hotkey;
    const name = identities.get(row.coldkey.publicKey.toLowerCase());
    if (name !== undefined) holder.identityName = name;
    return holder;
  });
  const pageInfo: PageInfo = { limit, hasMore };
  const last = entries.at(-1);
  if (hasMore && last !== undefined) {
    pageInfo.nextCursor = encodeCursor(scope, {
      m: last.member,
      r: String(firstRank + entries.length - 1),
      s: page.tag,
      a: String(poolPoint.b),
    });
  }
  return {
    asOf: asOfPinned(pool.ref, input.pin),
    netuid: walk.netuid,
    holdersCount: page.holdersCount,
    alphaOutNalpha: pool.alphaOutNalpha,
    priceTao: pool.priceTao,
    coverage: page.set.coverage,
    holders,
    page: pageInfo,
  };
}

/** Which holdings a filtered answer keeps (0x public keys, lowercase). */
interface HolderFilter {
  hotkey?: string;
  coldkey?: string;
}

const isFiltered = (filter: HolderFilter) => filter.hotkey !== undefined || filter.coldkey !== undefined;

/** Whether a ranked row is the filter's: its coldkey, and for a hotkey filter a position on that hotkey. */
function matches(filter: HolderFilter, row: ColdkeyRow | PositionRow): boolean {
  if (filter.coldkey !== undefined && row.coldkey.publicKey.toLowerCase() !== filter.coldkey) return false;
  if (filter.hotkey !== undefined && !("hotkey" in row && row.hotkey.publicKey.toLowerCase() === filter.hotkey))
    return false;
  return true;
}

/** What a page asks for. */
interface Walk {
  netuid: number;
  grouping: "coldkey" | "position";
  filter: HolderFilter;
  limit: number;
  /** The last member served. */
  after: string | undefined;
  /** The holder set (`<ordinal>:<hash>`) and pool block of the walk's first page. */
  pinned?: { set: string; poolBlock: number };
}

/** What a page needs of its holder set besides the rows. */
interface SetHead {
  ref: ChainRef | undefined;
  coverage: HolderCoverage;
}

/** A page's rows from one holder set: up to limit + 1 entries after the cursor, with the rank of the first. */
interface SetPage {
  set: SetHead;
  tag: string;
  entries: { member: string; row: ColdkeyRow | PositionRow }[];
  firstRank: number;
  holdersCount: number;
}

/**
 * The page from the ranking zsets, when they show the walk's set (or any set, for a first page);
 * undefined when the projector has replaced the set a pinned walk is on.
 */
async function fromRanking(redis: Redis, walk: Walk): Promise<SetPage | undefined> {
  const { netuid, after } = walk;
  const rankingKey =
    walk.grouping === "coldkey" ? subnetsKeys.holderColdkeys(netuid) : subnetsKeys.holderPositions(netuid);
  const rowsKey =
    walk.grouping === "coldkey" ? subnetsKeys.holderColdkeyRows(netuid) : subnetsKeys.holderPositionRows(netuid);
  const [ranked, headText, members, startRank, holdersCount] = await atomically(redis, (multi) => {
    multi
      .get(subnetsKeys.holderRanked(netuid))
      .get(subnetsKeys.holderRankedHead(netuid))
      .zrangebylex(rankingKey, after === undefined ? "-" : `(${after}`, "+", "LIMIT", 0, walk.limit + 1)
      .zrank(rankingKey, after ?? "")
      .zcard(subnetsKeys.holderColdkeys(netuid));
  });
  if (ranked === null) {
    if (walk.pinned === undefined) throw notYet("holder set of this subnet");
    return undefined;
  }
  if (walk.pinned !== undefined && ranked !== walk.pinned.set) return undefined;
  // The ranking and its head are written in one transaction and read in one: they always agree.
  // A ranking written before heads existed: the newest stored set is its head.
  const head =
    headText === null
      ? await headOfNewestSet(redis, netuid)
      : (JSON.parse(headText as string) as SetHead & { tag: string });
  if (ranked !== head.tag) throw new RankingReplaced();
  if (after !== undefined && startRank === null) throw invalidArgumentCursor();
  const fields = (members as string[]).map((member) => member.slice(RANK_WIDTH + 1));
  // The rows come in a second round trip: the same ranking must still stand, or they may be a newer
  // set's amounts under this set's as_of.
  const [rowTexts, rankedNow] =
    fields.length === 0
      ? [[], ranked]
      : await atomically(redis, (multi) => multi.hmget(rowsKey, ...fields).get(subnetsKeys.holderRanked(netuid)));
  if (rankedNow !== ranked) {
    if (walk.pinned === undefined) throw new RankingReplaced();
    return undefined;
  }
  const entries = (rowTexts as (string | null)[]).map((text, index) => {
    if (text === null) throw new RankingReplaced();
    return { member: (members as string[])[index]!, row: JSON.parse(text) as ColdkeyRow | PositionRow };
  });
  return {
    set: { ref: head.ref, coverage: head.coverage },
    tag: ranked as string,
    entries,
    firstRank: after === undefined ? 1 : (startRank as number) + 2,
    holdersCount: holdersCount as number,
  };
}

/**
 * The page of a pinned walk whose set the ranking no longer shows: the set as the projector stored
 * it (the subnet's newest few sets are kept), ranked here the way the projector ranks
 * (@platform/read-models). A set no longer kept ends the walk: INVALID_CURSOR, start again.
 */
async function fromStoredSet(redis: Redis, walk: Walk): Promise<SetPage> {
  const tag = walk.pinned!.set;
  const ordinal = tag.slice(0, tag.indexOf(":"));
  const stored = (await readModel(() => redis.zrangebyscore(subnetsKeys.holderPoints(walk.netuid), ordinal, ordinal)))
    .map((text) => JSON.parse(text) as SeriesPoint)
    .find((point) => `${point.o}:${point.h}` === tag);
  if (stored === undefined) {
    throw invalidArgument(
      "INVALID_CURSOR",
      "the holder set this walk started on is no longer kept; start again without the cursor",
      { parameter: "cursor" },
    );
  }
  return pageOfSet(stored, tag, walk);
}

/** The page of a stored holder set (tagged `tag`), ranked here the way the projector ranks (@platform/read-models). */
function pageOfSet(stored: SeriesPoint, tag: string, walk: Walk): SetPage {
  const set = HolderPositions.decode(Buffer.from(stored.p, "base64"));
  const ranking = rankHolders(set);
  const ranked = (walk.grouping === "coldkey" ? ranking.coldkeys : ranking.positions)
    .filter((entry: { row: ColdkeyRow | PositionRow }) => matches(walk.filter, entry.row))
    .sort((left, right) => (left.member < right.member ? -1 : left.member > right.member ? 1 : 0));
  const start = walk.after === undefined ? 0 : ranked.findIndex((entry) => entry.member === walk.after);
  if (start < 0) throw invalidArgumentCursor();
  const from = walk.after === undefined ? 0 : start + 1;
  return {
    set: { ref: set.ref, coverage: set.coverage },
    tag,
    entries: ranked.slice(from, from + walk.limit + 1).map((entry) => ({ member: entry.member, row: entry.row })),
    firstRank: from + 1,
    holdersCount: ranking.coldkeys.length,
  };
}

/** The first page of a filtered walk: the newest stored holder set (the one the rankings show once a batch commits). */
async function fromNewestStoredSet(redis: Redis, walk: Walk): Promise<SetPage> {
  const [text] = await readModel(() => redis.zrange(subnetsKeys.holderPoints(walk.netuid), "-1", "-1"));
  if (text === undefined) throw notYet("holder set of this subnet");
  const newest = JSON.parse(text) as SeriesPoint;
  return pageOfSet(newest, `${newest.o}:${newest.h}`, walk);
}

/** The head of the newest stored holder set (a read model whose rankings were written without one). */
async function headOfNewestSet(redis: Redis, netuid: number): Promise<SetHead & { tag: string }> {
  const [text] = await readModel(() => redis.zrange(subnetsKeys.holderPoints(netuid), "-1", "-1"));
  if (text === undefined) throw new RankingReplaced();
  const newest = JSON.parse(text) as SeriesPoint;
  const set = HolderPositions.decode(Buffer.from(newest.p, "base64"));
  return { tag: `${newest.o}:${newest.h}`, ref: set.ref, coverage: set.coverage };
}

function invalidArgumentCursor() {
  return invalidArgument(
    "INVALID_CURSOR",
    "the holder this cursor points at left the ranking; start again without it",
    { parameter: "cursor" },
  );
}
