import { historyTables } from "@platform/history";
import { ValidatorRootStakes, type ValidatorSetSnapshot } from "@platform/proto/events/v1/chain_network";
import { ORDINAL_SPAN, type SeriesPoint, subnetsKeys } from "@platform/read-models";
import { historyRead } from "../shared/historyRead.js";
import { decodePoint, parse, run } from "../shared/readModel.js";
import type { SeriesStores } from "../shared/seriesAt.js";

/**
 * The root-stake moves of a subnet's metagraph published after its snapshot point `after`, through
 * `throughBlock`, oldest first. Redis keeps the newest moves; when it holds one at or below the
 * snapshot, every move after it is there too. Otherwise older moves may have been trimmed, and the
 * history database (when configured) is asked for the range instead.
 */
export async function rootStakeMovesAfter(
  stores: SeriesStores,
  netuid: number,
  after: SeriesPoint,
  throughBlock: number,
): Promise<ValidatorRootStakes[]> {
  const key = subnetsKeys.validatorRootStakePoints(netuid);
  const top = throughBlock * ORDINAL_SPAN + (ORDINAL_SPAN - 1);
  if (top <= after.o) return [];
  const [inRange, reachesBack] = (await run(stores.redis, (pipeline) => {
    pipeline.zrangebyscore(key, `(${after.o}`, top);
    pipeline.zrevrangebyscore(key, after.o, "-inf", "LIMIT", 0, 1);
  })) as [string[], string[]];
  const points = inRange.map((text) => parse(text)!);
  if (reachesBack.length > 0 || stores.history === undefined) return points.map(decodeMoves);
  // Redis may have trimmed moves between the snapshot and its oldest kept one: those come from the
  // history database, the rest (which a lagging replica may not hold yet) from Redis.
  const oldest = points[0];
  const rows = await historyRead(() =>
    stores.history!.unsafe(
      `select point from ${historyTables.seriesPoints}
       where series = $1 and (block, ordinal) > ($2, $3) and (block, ordinal) < ($4, $5) order by block, ordinal`,
      [key, after.b, after.o, oldest?.b ?? throughBlock + 1, oldest?.o ?? top + 1],
    ),
  );
  return [...rows.map((row) => parse(row.point as string)!), ...points].map(decodeMoves);
}

const decodeMoves = (point: SeriesPoint): ValidatorRootStakes => decodePoint(point, ValidatorRootStakes);

/**
 * A metagraph as it stands after the root-stake moves published since its snapshot
 * (ValidatorRootStakes: the ingestor publishes only the neurons whose root stake moved when nothing
 * else of the metagraph did). `moves` are the points after the snapshot's, oldest first; each names
 * a neuron by uid and hotkey, and a move whose uid no longer names that hotkey is left out (a
 * registration publishes a whole metagraph, so it cannot happen between two snapshots). The answer
 * carries the newest move's ChainRef: the metagraph as of that block.
 */
export function withRootStakes(
  snapshot: ValidatorSetSnapshot,
  moves: readonly ValidatorRootStakes[],
): ValidatorSetSnapshot {
  if (moves.length === 0) return snapshot;
  const rootStakes = new Map<number, { hotkey: string; rootStakeRao: string | undefined }>();
  for (const move of moves)
    for (const stake of move.stakes)
      rootStakes.set(stake.uid, { hotkey: stake.hotkey, rootStakeRao: stake.rootStakeRao });
  const neurons = snapshot.neurons.map((neuron) => {
    const moved = rootStakes.get(neuron.uid);
    if (moved === undefined || moved.hotkey !== neuron.hotkey?.publicKey) return neuron;
    const { rootStakeRao: _before, ...rest } = neuron;
    return moved.rootStakeRao === undefined ? rest : { ...rest, rootStakeRao: moved.rootStakeRao };
  });
  return { ...snapshot, ref: moves.at(-1)!.ref ?? snapshot.ref, neurons };
}
