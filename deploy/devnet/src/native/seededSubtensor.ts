import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ChainBlock, type RunningChopsticks, startChopsticks } from "@platform/testing";
import { SUBTENSOR_CHAIN_SPEC_SHA256, subtensorChainSpec } from "./chainSpec.js";
import { DEMO_TEMPO, seedNativeNetwork } from "./seedNativeNetwork.js";
import type { SeededNativeNetwork } from "./seedTypes.js";

export interface StartSeededSubtensorOptions {
  logFile: string;
  /** Omit to take a free port. */
  port?: number;
  /** A block every this many ms once the timer runs; 0 or absent: only when asked. */
  blockTimeMs?: number;
  /** The timer waits for `node.startTimer()`. */
  timerPaused?: boolean;
  detached?: boolean;
  /** Every subnet's tempo. Default DEMO_TEMPO. */
  tempo?: number;
  /** Where seeded chains are kept between starts. Default `.local/cache/native-seed` of the repository. */
  cacheDir?: string;
}

export interface SeededSubtensor {
  node: RunningChopsticks;
  seeded: SeededNativeNetwork;
  /** True when the seeded blocks came from the cache rather than from running the seed. */
  replayed: boolean;
}

/**
 * The real Subtensor runtime under chopsticks with the seed's blocks as its chain. The first start
 * for a chain spec and seed runs the seed (seedNativeNetwork: real signed extrinsics, the runtime
 * executing them) and keeps its blocks (chainBlocks.ts in @platform/testing); later starts put those
 * very blocks on a fresh node, in about a second instead of the seed's 35-90 s of interpreted wasm,
 * and build on them as usual. The cache is keyed by the chain spec's hash, this folder's code (the
 * seed's) and the tempo, so a changed seed is run again; `seedNativeNetwork`'s own test always runs it.
 */
export async function startSeededSubtensor(options: StartSeededSubtensorOptions): Promise<SeededSubtensor> {
  const tempo = options.tempo ?? DEMO_TEMPO;
  const cacheFile = seededSubtensorCacheFile(options);
  const cached = readCache(cacheFile);
  const node = await startChopsticks({
    genesis: subtensorChainSpec(),
    logFile: options.logFile,
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.blockTimeMs === undefined ? {} : { blockTimeMs: options.blockTimeMs }),
    ...(options.timerPaused === undefined ? {} : { timerPaused: options.timerPaused }),
    ...(options.detached === undefined ? {} : { detached: options.detached }),
    ...(cached === undefined ? {} : { replayFile: cacheFile }),
  });
  if (cached !== undefined) return { node, seeded: cached.seeded, replayed: true };
  try {
    const seeded = await seedNativeNetwork({ rpcUrl: node.rpcUrl, buildBlock: () => node.newBlocks(1), tempo });
    writeCache(cacheFile, { seeded, blocks: await node.exportBlocks() });
    return { node, seeded, replayed: false };
  } catch (error) {
    await node.stop();
    throw error;
  }
}

/** What a start keeps: the seed's description and its blocks. */
export interface CachedSeed {
  seeded: SeededNativeNetwork;
  blocks: ChainBlock[];
}

/** Where a start with these options keeps its seeded chain (a JSON `CachedSeed`). */
export function seededSubtensorCacheFile(options: Pick<StartSeededSubtensorOptions, "cacheDir" | "tempo">): string {
  return join(options.cacheDir ?? defaultCacheDir(), `seeded-${seedKey(options.tempo ?? DEMO_TEMPO)}.json`);
}

function readCache(file: string): CachedSeed | undefined {
  try {
    const cached = JSON.parse(readFileSync(file, "utf8")) as Partial<CachedSeed>;
    return Array.isArray(cached.blocks) && cached.seeded !== undefined ? (cached as CachedSeed) : undefined;
  } catch {
    // Absent or unreadable: the seed runs and writes it anew.
    return undefined;
  }
}

/** Written whole under another name, then renamed: a concurrent start reads the old file or the new, never half. */
function writeCache(file: string, value: CachedSeed): void {
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, JSON.stringify(value));
  renameSync(partial, file);
}

const here = dirname(fileURLToPath(import.meta.url));

/** deploy/devnet/{src,dist}/native → the repository's `.local/cache/native-seed`. */
function defaultCacheDir(): string {
  return join(here, "..", "..", "..", "..", ".local", "cache", "native-seed");
}

/** The chain spec, the seed's code (this folder, as it runs: sources or build) and the tempo. */
function seedKey(tempo: number): string {
  const hash = createHash("sha256").update(SUBTENSOR_CHAIN_SPEC_SHA256).update(`tempo ${tempo}`);
  const code = readdirSync(here)
    .filter((name) => /\.(ts|js)$/.test(name) && !/\.test\.|\.d\.ts$/.test(name))
    .sort();
  for (const name of code) hash.update(name).update(readFileSync(join(here, name)));
  return hash.digest("hex").slice(0, 16);
}
