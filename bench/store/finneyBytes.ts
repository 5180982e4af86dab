/**
 * chain.network.v1's bytes per block at Finney's shape, by record kind: the Finney soak's stream
 * (finneyStream.ts with finneyNetwork.ts) as the ingestor publishes it now (holder sets as deltas,
 * root stake moves as ValidatorRootStakes), against the baseline of the same blocks published as
 * before (whole holder sets, whole metagraphs), both generated in this run from the same seed. No
 * store and no broker: the bytes are the records' values as the soak sends them (Kafka adds its
 * batch framing, a few percent).
 *
 *   pnpm --silent build && (cd bench && pnpm finney-bytes)
 *   BENCH_BYTES_BLOCKS=720 (a tenth of a Finney day; 7,200 for the day)
 */
import { finneyNetwork } from "./finneyNetwork.js";
import { finneyStream } from "./finneyStream.js";

const BLOCKS = Number(process.env.BENCH_BYTES_BLOCKS ?? 720);
const SEED = Number(process.env.BENCH_BYTES_SEED ?? 41);
const FIRST_BLOCK = Number(process.env.BENCH_BYTES_FIRST_BLOCK ?? 4_999_850);

interface Tally {
  bytes: number;
  epochBytes: number;
  epochBlocks: number;
  byKind: Map<string, number>;
}

function measure(deltas: boolean): Tally {
  const stream = finneyStream({
    seed: SEED,
    firstBlock: FIRST_BLOCK,
    activityMin: 20,
    activityMax: 60,
    extend: (world, record) => finneyNetwork(world, record, { deltas }),
  });
  stream.snapshot();
  const tally: Tally = { bytes: 0, epochBytes: 0, epochBlocks: 0, byKind: new Map() };
  for (let index = 0; index < BLOCKS; index++) {
    const block = stream.next();
    let bytes = 0;
    for (const record of block.records) {
      const size = record.value.length + record.key.length;
      bytes += size;
      tally.byKind.set(record.eventType, (tally.byKind.get(record.eventType) ?? 0) + size);
    }
    tally.bytes += bytes;
    if (block.epoch !== undefined) {
      tally.epochBytes += bytes;
      tally.epochBlocks += 1;
    }
  }
  return tally;
}

const mb = (bytes: number) => (bytes / 1_048_576).toFixed(2);
const baseline = measure(false);
const now = measure(true);
console.log(
  `chain.network.v1 over ${BLOCKS} blocks (seed ${SEED}), MB per block: now ÷ baseline (whole sets and metagraphs)`,
);
console.log(
  `  every block   ${mb(now.bytes / BLOCKS)} ÷ ${mb(baseline.bytes / BLOCKS)} = ${(now.bytes / baseline.bytes).toFixed(3)}`,
);
if (now.epochBlocks > 0)
  console.log(
    `  epoch blocks  ${mb(now.epochBytes / now.epochBlocks)} ÷ ${mb(baseline.epochBytes / baseline.epochBlocks)} = ${(now.epochBytes / now.epochBlocks / (baseline.epochBytes / baseline.epochBlocks)).toFixed(3)} (${now.epochBlocks} epoch blocks)`,
  );
console.log(
  `  per Finney day (7,200 blocks): ${(((now.bytes / BLOCKS) * 7_200) / 1e9).toFixed(2)} GB now, ${(((baseline.bytes / BLOCKS) * 7_200) / 1e9).toFixed(2)} GB baseline`,
);
console.log("  by kind, MB per block (now / baseline):");
const kinds = [...new Set([...baseline.byKind.keys(), ...now.byKind.keys()])].sort(
  (a, b) => (baseline.byKind.get(b) ?? 0) - (baseline.byKind.get(a) ?? 0),
);
for (const kind of kinds)
  console.log(
    `    ${kind.padEnd(24)} ${mb((now.byKind.get(kind) ?? 0) / BLOCKS).padStart(7)} / ${mb((baseline.byKind.get(kind) ?? 0) / BLOCKS).padStart(7)}`,
  );
