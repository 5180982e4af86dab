import { invalidArgument, unavailable } from "@platform/errors";
import type { AccountId } from "@platform/proto/common/v1/network";
import { HolderGrouping, type GetHoldersTopRequest, type GetHoldersTopResponse, type Holder } from "@platform/proto/data/v1/subnets";
import { HolderPositions, PoolSnapshot, ValidatorSetSnapshot } from "@platform/proto/events/v1/chain_network";
import type { PageInfo } from "@platform/proto/common/v1/common";
import type { Redis } from "@platform/store";
import { decodeCursor, encodeCursor, mulIntByDecimal, pageLimitOf, queryScope, readModel } from "../shared/index.js";
import { asOfOf, notYet } from "../market/asOfRef.js";
import { checkNetuids, toNetuids } from "../market/netuids.js";
import { ratio } from "../market/numbers.js";
import { decodePoint, newestPoints, pointsAtBlock, subnetsKeys, type SeriesPoint } from "../market/readModel.js";

/** Cursors continue the ranking up to this rank. */
const MAX_RANK = 10_000;
const RANK_WIDTH = 24;
const RANK_CEILING = 10n ** BigInt(RANK_WIDTH) - 1n;
const alphaOfMember = (member: string) => RANK_CEILING - BigInt(member.slice(0, RANK_WIDTH));

interface ColdkeyRow {
  coldkey: AccountId;
  alpha: string;
  hotkeys: { hotkey: AccountId; alpha: string }[];
}
interface PositionRow {
  coldkey: AccountId;
  hotkey: AccountId;
  alpha: string;
}

/**
 * `GET /data/v1/subnets/{netuid}/holders/top`: the newest complete holder set of the subnet,
 * ranked by alpha (services/projector/src/subnets/keys.ts). The cursor is the last ranking member
 * served, so a page continues after that holder's position.
 */
export async function getHoldersTop(redis: Redis, request: GetHoldersTopRequest): Promise<GetHoldersTopResponse> {
  // The projector replaces a ranking whole, in one MULTI, once a block: a read that saw the ranking
  // change under it starts again (rarely more than once), so one answer is one holder set.
  for (let attempt = 1; ; attempt++) {
    try {
      return await readHoldersTop(redis, request);
    } catch (error) {
      if (!(error instanceof RankingReplaced)) throw error;
      if (attempt >= READ_ATTEMPTS) throw unavailable("READ_MODEL_UNAVAILABLE", "the holder ranking is being replaced; retry");
    }
  }
}

const READ_ATTEMPTS = 3;

class RankingReplaced extends Error {}

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

async function readHoldersTop(redis: Redis, request: GetHoldersTopRequest): Promise<GetHoldersTopResponse> {
  const limit = pageLimitOf(request.page, { defaultLimit: 100, maxLimit: 500 });
  const grouping = request.groupBy === HolderGrouping.HOLDER_GROUPING_POSITION ? "position" : "coldkey";
  if (![HolderGrouping.HOLDER_GROUPING_UNSPECIFIED, HolderGrouping.HOLDER_GROUPING_COLDKEY, HolderGrouping.HOLDER_GROUPING_POSITION].includes(request.groupBy)) {
    throw invalidArgument("INVALID_PARAMETER", "group_by must be coldkey or position", { parameter: "group_by" });
  }
  const minAlpha = request.minAlphaNalpha ?? "1";
  if (!/^\d{1,24}$/.test(minAlpha)) throw invalidArgument("INVALID_PARAMETER", "min_alpha_nalpha must be an integer amount", { parameter: "min_alpha_nalpha" });
  const known = toNetuids(await readModel(() => redis.smembers(subnetsKeys.netuids)));
  const [netuid] = checkNetuids([request.netuid], known, 1) as [number];
  const scope = queryScope(["holders/top", netuid, grouping, minAlpha]);
  let after: string | undefined;
  if (request.page?.cursor) after = decodeCursor(request.page.cursor, scope, { m: /^\d{24}:0x[0-9a-f]{64}(:0x[0-9a-f]{64})?$/, r: /^\d{1,6}$/ }).m;

  const rankingKey = grouping === "coldkey" ? subnetsKeys.holderColdkeys(netuid) : subnetsKeys.holderPositions(netuid);
  const rowsKey = grouping === "coldkey" ? subnetsKeys.holderColdkeyRows(netuid) : subnetsKeys.holderPositionRows(netuid);
  const [ranked, setPoint, members, startRank, holdersCount, newestPoolText] = await atomically(redis, (multi) => {
    multi
      .get(subnetsKeys.holderRanked(netuid))
      .zrange(subnetsKeys.holderPoints(netuid), "-1", "-1")
      .zrangebylex(rankingKey, after === undefined ? "-" : `(${after}`, "+", "LIMIT", 0, limit + 1)
      .zrank(rankingKey, after ?? "")
      .zcard(subnetsKeys.holderColdkeys(netuid))
      .zrange(subnetsKeys.poolPoints(netuid), "-1", "-1");
  });
  const newestText = (setPoint as string[])[0];
  if (newestText === undefined || ranked === null) throw notYet("holder set of this subnet");
  const newest = JSON.parse(newestText) as { o: number; h: string; b: number; p: string };
  // The ranking and the set are written in one transaction and read in one: they always agree.
  if (ranked !== `${newest.o}:${newest.h}`) throw new RankingReplaced();
  const set = HolderPositions.decode(Buffer.from(newest.p, "base64"));
  // A holder set is published when it changes, a pool at every block (same partition and
  // transaction, so never behind it): the set stands until the newest pool's block, which the
  // answer describes, valued at that pool.
  const newestPool = (newestPoolText as string[])[0] === undefined ? undefined : (JSON.parse((newestPoolText as string[])[0]!) as SeriesPoint);
  const poolAhead = newestPool !== undefined && newestPool.b >= newest.b ? decodePoint(newestPool, PoolSnapshot) : undefined;
  const asOf = asOfOf(poolAhead?.ref ?? set.ref);
  if (after !== undefined && startRank === null) throw invalidArgumentCursor();
  const firstRank = after === undefined ? 1 : (startRank as number) + 2;

  const [poolPoint, validatorPoint] = await Promise.all([
    poolAhead === undefined ? pointsAtBlock(redis, [subnetsKeys.poolPoints(netuid)], newest.b).then((points) => points[0]) : undefined,
    newestPoints(redis, [subnetsKeys.validatorPoints(netuid)]).then((points) => points[0]),
  ]);
  if (poolAhead === undefined && poolPoint === undefined) throw notYet("pool of this subnet");
  const pool = poolAhead ?? decodePoint(poolPoint!, PoolSnapshot);
  const identities = new Map<string, string>();
  if (validatorPoint !== undefined) {
    for (const neuron of decodePoint(validatorPoint, ValidatorSetSnapshot).neurons) {
      if (neuron.coldkey !== undefined && neuron.identity?.name) identities.set(neuron.coldkey.publicKey.toLowerCase(), neuron.identity.name);
    }
  }

  const minimum = BigInt(minAlpha);
  let candidates = (members as string[]).filter((member) => alphaOfMember(member) >= minimum);
  const roomLeft = Math.max(0, MAX_RANK - firstRank + 1);
  const hasMore = candidates.length > limit && firstRank + limit <= MAX_RANK;
  candidates = candidates.slice(0, Math.min(limit, roomLeft));
  const fields = candidates.map((member) => member.slice(RANK_WIDTH + 1));
  // The rows come in a second round trip: the same ranking must still stand, or they may be a newer
  // set's amounts under this set's as_of.
  const [rowTexts, rankedNow] = fields.length === 0 ? [[], ranked] : await atomically(redis, (multi) => multi.hmget(rowsKey, ...fields).get(subnetsKeys.holderRanked(netuid)));
  if (rankedNow !== ranked) throw new RankingReplaced();
  const rows = rowTexts as (string | null)[];
  const holders = rows.map((text, index): Holder => {
    if (text === null) throw new RankingReplaced();
    const row = JSON.parse(text) as ColdkeyRow | PositionRow;
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
  const page: PageInfo = { limit, hasMore };
  const last = candidates.at(-1);
  if (hasMore && last !== undefined) page.nextCursor = encodeCursor(scope, { m: last, r: String(firstRank + candidates.length - 1) });
  return {
    asOf,
    netuid,
    holdersCount: holdersCount as number,
    alphaOutNalpha: pool.alphaOutNalpha,
    priceTao: pool.priceTao,
    coverage: set.coverage,
    holders,
    page,
  };
}

function invalidArgumentCursor() {
  return invalidArgument("INVALID_CURSOR", "the holder this cursor points at left the ranking; start again without it", { parameter: "cursor" });
}
