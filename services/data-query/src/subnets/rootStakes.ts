import type { ValidatorRootStakes, ValidatorSetSnapshot } from "@platform/proto/events/v1/chain_network";

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
