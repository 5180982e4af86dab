/**
 * bench/native/scale: the chain-ingestor's native source and the projections on a mainnet-sized
 * state, at Finney's epoch cadence (Tempo 360, subnets staggered by netuid).
 *
 *   cd bench && pnpm bench:native-scale     (or: node --import tsx --conditions=@platform/source native/scale/scale.ts)
 *
 * 1. Starts chopsticks (the real Subtensor runtime, spec 218, the epoch-by-tempo build) on its own
 *    port and temp folder, writes the state of scaleState.ts into it with `dev_setStorage` (raw
 *    pairs, in chunks), then builds one block on it.
 * 2. Baselines, same run: the node answering raw reads of that state (baseline A: a
 *    `state_getKeysPaged` walk of the whole `Alpha` map with its values by `state_queryStorageAt`;
 *    baseline B: one `state_queryStorageAt` of 1,000 keys).
 * 3. Full snapshot: the source in a process of its own (sourceProcess.ts: `connectNativeChain`,
 *    `nativeBlockSource`, the follower as the service runs them) reads the head block; its records
 *    (protobuf-encoded as for Kafka) come over IPC and every projection of chain.network.v1
 *    (accounts, market, subnets), each in a process of its own as in its Deployment, folds them
 *    into a real Redis (readModels.ts, projectionProcess.ts).
 * 4. Backlog: BENCH_SCALE_BACKLOG blocks (1,000) built while the source is not following, each with
 *    signed extrinsics from funded dev accounts (transfers to holders and to a new account, two
 *    `addStake`) and the block's own emission and epochs.
 * 5. Catch-up: the same source follows the backlog as fast as it can (the follower's ranges, up to
 *    100 blocks, read ahead during commits), the projections committing behind it: blocks per second.
 * 6. Incremental: BENCH_SCALE_BLOCKS blocks (200), each built with the same extrinsics, then timed
 *    from built to every read model committed (the source's read of the block, its records to the
 *    projections, their commits). p50 / p95 / max, for epoch and non-epoch blocks apart as well.
 * 7. The heavy reads of data-query on the final read models: subnets/latest and holders/top, computed
 *    and kept, against a GET of the same bytes.
 * Memory: the source process's heap and RSS every second (and after a GC at the marks: after the
 * snapshot, after warm-up, at the end of the catch-up and of the incremental blocks), Redis
 * `used_memory` and chopsticks' RSS at each phase. Prints a table and writes
 * bench/results/native-scale-<time>.json.
 *
 * Knobs: BENCH_SCALE_BLOCKS (200), BENCH_SCALE_BACKLOG (1,000), BENCH_SCALE_SEED (42),
 * BENCH_SCALE_FIRST_BLOCK (the first block on the state gets this number, e.g. 225: just before
 * 129 epoch blocks; 0, the default: the next number),
 * BENCH_SCALE_NOMINATORS (26,000), BENCH_SCALE_ACCOUNTS (100,000), BENCH_SCALE_TEMPO (360),
 * BENCH_SCALE_CHOPSTICKS (`indexed`, or `stock`: chopsticks' own linear next-key lookup, see
 * README), BENCH_SCALE_SOURCE_HEAP_MB (256: the source process's --max-old-space-size, what Node
 * sized it at in the Deployment's former 512Mi container; 0 for Node's default), BENCH_SCALE_READS=0 skips the heavy reads, BENCH_SCALE_PROFILE=1 writes CPU profiles of
 * each phase (the source process and this one, bench/results), BENCH_SCALE_KEEP=1 keeps the temp
 * folder (chopsticks, Redis, source and projection logs).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { subtensorChainSpec } from "@platform/devnet";
import { tempDir } from "@platform/testing";
import { ApiPromise, Keyring, WsProvider } from "@polkadot/api";
import { type ScaleNode, startScaleNode } from "./node.js";
import { type ReadFigures, startReadModels } from "./readModels.js";
import {
  generateScaleState,
  type Hex,
  MAINNET_SIZES,
  rawKeys,
  systemAccountKey,
  TEMPO,
  u8aHex,
  writeScaleState,
} from "./scaleState.js";
import { type MemorySample, type SourceCommit, startSourceProcess } from "./sourceClient.js";

const numberFromEnv = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number`);
  return value;
};
const BLOCKS = numberFromEnv("BENCH_SCALE_BLOCKS", 200);
const BACKLOG = numberFromEnv("BENCH_SCALE_BACKLOG", 1_000);
const SEED = numberFromEnv("BENCH_SCALE_SEED", 42);
/** BENCH_SCALE_FIRST_BLOCK: the number of the first block built on the state (0: the next one), e.g. 225 to start just before a run of epoch blocks (231–359). */
const FIRST_BLOCK = numberFromEnv("BENCH_SCALE_FIRST_BLOCK", 0);
/** Blocks of the catch-up after which the source counts as warm (its kept states filled). */
const WARM_UP_BLOCKS = 100;
const SIZES = {
  ...MAINNET_SIZES,
  nominators: numberFromEnv("BENCH_SCALE_NOMINATORS", MAINNET_SIZES.nominators),
  accounts: numberFromEnv("BENCH_SCALE_ACCOUNTS", MAINNET_SIZES.accounts),
};
const INDEXED = (process.env.BENCH_SCALE_CHOPSTICKS ?? "indexed") !== "stock";
/**
 * The source process's old space (`--max-old-space-size`), 256 MB by default: what Node gave itself
 * in the chain-ingestor-native Deployment's former 512Mi container (it sizes the heap from the
 * cgroup limit, about half of it; the Deployment sets no NODE_OPTIONS, so under today's 768Mi it
 * allows itself more, which only makes collection lazier). 0: Node's default on this machine.
 */
const SOURCE_HEAP_MB = numberFromEnv("BENCH_SCALE_SOURCE_HEAP_MB", 256);
const PROFILE = process.env.BENCH_SCALE_PROFILE === "1";
const STAMP = new Date().toISOString().replace(/[:.]/g, "-");
/**
 * The chain-ingestor-native Deployment's memory limit (deploy/k8s/src/deployables.ts: 768Mi, raised
 * from 512Mi on 29 Nov after the run of 10:39 measured ~515 MB steady and 595 MB peak RSS).
 */
const MEMORY_LIMIT_MB = 768 * 1.048576;
const TARGETS = {
  fullSnapshotMs: 30_000,
  incrementalP95Ms: 1_000,
  catchUpBlocksPerSecond: 5,
  heavyReadRatio: 0.6,
  sourceMemoryLimitMb: MEMORY_LIMIT_MB,
};
const RAO = 1_000_000_000n;
const DEV_FUNDS_RAO = 10_000n * RAO;
const DEV_NAMES = ["Alice", "Bob", "Charlie", "Dave", "Eve", "Ferdie"] as const;

const say = (line: string) => process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
function processRss(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8")
      .split("\n")
      .find((entry) => entry.startsWith("VmRSS:"));
    return Number(line?.split(/\s+/)[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}
const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1))]!;
};
const median = (values: readonly number[]) => percentile(values, 0.5);
const spread = (values: readonly number[]) => ({
  count: values.length,
  p50Ms: percentile(values, 0.5),
  p95Ms: percentile(values, 0.95),
  maxMs: values.length === 0 ? Number.NaN : Math.max(...values),
});
const sourceMemory = (sample: MemorySample) => ({
  heapUsedMb: mb(sample.heapUsed),
  heapTotalMb: mb(sample.heapTotal),
  externalMb: mb(sample.external),
  rssMb: mb(sample.rss),
  rssPeakMb: mb(sample.rssPeak),
});
/** The netuids whose epoch a block runs on the epoch-by-tempo runtime: `(block + netuid + 1) % (tempo + 1) == tempo`. */
const epochsOf = (block: number, netuids: number) =>
  Array.from({ length: netuids }, (_, netuid) => netuid).filter(
    (netuid) => (block + netuid + 1) % (TEMPO + 1) === TEMPO,
  );

const dir = tempDir("bench-native-scale");
const figures: Record<string, unknown> = {
  machine: "2 cores",
  loadBefore: readFileSync("/proc/loadavg", "utf8").trim(),
  chopsticks: INDEXED ? "indexed next-key lookup (indexedKeys.mjs)" : "stock",
  runtime: "spec 218, raonet-epoch-by-tempo.json",
  seed: SEED,
  sizes: SIZES,
  tempo: TEMPO,
  backlog: BACKLOG,
  blocks: BLOCKS,
  targets: TARGETS,
  sourceMaxOldSpaceMb: SOURCE_HEAP_MB > 0 ? SOURCE_HEAP_MB : "node default",
};
const writeFigures = () => {
  const resultsDir = new URL("../../results/", import.meta.url);
  mkdirSync(resultsDir, { recursive: true });
  const file = new URL(`native-scale-${STAMP}.json`, resultsDir);
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
  return file.pathname;
};
say(`starting chopsticks (spec 218${INDEXED ? ", indexed next-key lookup" : ", stock"}) in ${dir.path}…`);
const node = await startScaleNode({
  genesis: subtensorChainSpec(),
  logFile: join(dir.path, "chopsticks.log"),
  indexedKeys: INDEXED,
});
let api: ApiPromise | undefined;
let stopSource: (() => Promise<void>) | undefined;
let stopReadModels: (() => Promise<void>) | undefined;
let failureMemory: (() => unknown) | undefined;
try {
  api = await ApiPromise.create({ provider: new WsProvider(node.rpcUrl, 1_000, {}, 600_000), noInitWarn: true });
  const keyring = new Keyring({ type: "sr25519", ss58Format: 42 });
  const dev = Object.fromEntries(DEV_NAMES.map((name) => [name, keyring.addFromUri(`//${name}`)])) as Record<
    (typeof DEV_NAMES)[number],
    ReturnType<Keyring["addFromUri"]>
  >;

  // ---- 1. the state ----
  const genesisIssuance = readLe(
    await node.request<Hex>("state_getStorage", [rawKeys.plain("Balances", "TotalIssuance")]),
  );
  const devAccounts = await Promise.all(
    DEV_NAMES.map(async (name) => {
      const stored =
        (await node.request<Hex | null>("state_getStorage", [systemAccountKey(dev[name].publicKey)])) ?? undefined;
      // Genesis gives the dev accounts nothing; a stored free balance would be counted twice.
      if (stored !== undefined && readLe(`0x${stored.slice(2 + 32, 2 + 64)}`) !== 0n)
        throw new Error(`//${name} already holds TAO at genesis`);
      return { publicKey: dev[name].publicKey, freeRao: DEV_FUNDS_RAO, nonce: 0 };
    }),
  );
  // The epoch-by-tempo build of spec 218 has no `TokenSymbol`: write it only where the metadata has it.
  const tokenSymbol = api.query.subtensorModule?.tokenSymbol !== undefined;
  const state = generateScaleState({
    seed: SEED,
    sizes: SIZES,
    genesisIssuance,
    extraAccounts: devAccounts,
    tokenSymbol,
  });
  const counts = state.counts;
  say(
    `generated ${state.pairs.length.toLocaleString("en")} storage pairs in ${seconds(state.generateMs)}: ${counts["Alpha"]!.toLocaleString("en")} Alpha positions (${counts["Alpha on a hotkey not registered on the subnet"]!.toLocaleString("en")} on hotkeys not registered on the subnet), ${counts["System.Account"]!.toLocaleString("en")} accounts, ${counts["NetworksAdded"]} netuids, ${counts["Keys"]!.toLocaleString("en")} uids, ${counts["(hotkey, netuid) pools"]!.toLocaleString("en")} hotkey pools; issuance ${(state.totalIssuanceRao / RAO).toLocaleString("en")} TAO, of it staked ${(state.totalStakeRao / RAO).toLocaleString("en")} TAO; Tempo ${TEMPO}${tokenSymbol ? "" : "; no TokenSymbol (not in this runtime's metadata)"}`,
  );
  const written = await writeScaleState(node.request, state.pairs, FIRST_BLOCK > 0 ? { blockNumber: FIRST_BLOCK } : {});
  say(
    `written: ${written.pairs.toLocaleString("en")} pairs, ${mb(written.bytes)} MB of JSON in ${written.chunks} dev_setStorage calls, ${seconds(written.writeMs)}; first block on it built in ${seconds(written.blockMs)}`,
  );
  figures["state"] = {
    pairs: written.pairs,
    counts,
    tokenSymbol,
    generateMs: state.generateMs,
    writeMs: written.writeMs,
    writeMb: mb(written.bytes),
    chunks: written.chunks,
    firstBlockMs: written.blockMs,
  };
  await checkState(node, state);
  const netuidCount = counts["NetworksAdded"]!;
  const activity = activityPlan(state, dev);
  state.pairs.length = 0; // the bench's own copy of the state is not needed past here

  // ---- 2. baselines ----
  const alphaWalk = await walkPrefix(node, rawKeys.prefix("SubtensorModule", "Alpha"), true);
  const accountWalk = await walkPrefix(node, rawKeys.prefix("System", "Account"), false);
  const queryMs: number[] = [];
  for (let round = 0; round < 5; round++) {
    const keys = alphaWalk.sample.slice(round * 1_000, (round + 1) * 1_000);
    const started = performance.now();
    await node.request("state_queryStorageAt", [keys]);
    queryMs.push(performance.now() - started);
  }
  const queryBaseline = median(queryMs);
  say(
    `baseline A: the Alpha map walked raw (${alphaWalk.keys.toLocaleString("en")} keys, pages of 1,000, values by state_queryStorageAt) in ${seconds(alphaWalk.ms)}; System.Account's keys (${accountWalk.keys.toLocaleString("en")}) in ${seconds(accountWalk.ms)}; baseline B: one state_queryStorageAt of 1,000 keys ${queryBaseline.toFixed(0)} ms`,
  );
  figures["baseline"] = {
    alphaWalkMs: alphaWalk.ms,
    alphaKeys: alphaWalk.keys,
    accountKeysWalkMs: accountWalk.ms,
    accountKeys: accountWalk.keys,
    queryStorageAt1000Ms: queryBaseline,
  };

  // ---- 3. full snapshot: the source process reads the head, the projections fold it ----
  const readModels = await startReadModels(dir.path);
  stopReadModels = () => readModels.stop();
  const snapshotBlock = Number((await node.request<{ number: string }>("chain_getHeader")).number);
  const source = await startSourceProcess({
    rpcUrl: node.rpcUrl,
    startBlock: snapshotBlock,
    maxBlocksPerStep: 100,
    logFile: join(dir.path, "source.log"),
    ...(SOURCE_HEAP_MB > 0 ? { maxOldSpaceMb: SOURCE_HEAP_MB } : {}),
  });
  stopSource = () => source.stop();
  failureMemory = () =>
    source.samples.map((sample) => ({
      t: Math.round((sample.at - source.samples[0]!.at) / 1000),
      heapUsedMb: mb(sample.heapUsed),
      rssMb: mb(sample.rss),
    }));
  const sourceStarted = source.samples[0]!;
  say(
    `source process ${source.pid} connected (heap ${mb(sourceStarted.heapUsed)} MB, RSS ${mb(sourceStarted.rss)} MB)`,
  );
  const redisSamples: { at: number; phase: string; usedMemoryMb: number; chopsticksRssMb: number }[] = [];
  let phase = "snapshot";
  const sampleRedis = async () =>
    redisSamples.push({
      at: Date.now(),
      phase,
      usedMemoryMb: await readModels.usedMemoryMb(),
      chopsticksRssMb: mb(processRss(node.process.pid)),
    });
  const redisSampler = setInterval(() => void sampleRedis().catch(() => undefined), 10_000);

  /** What the follow of one phase saw: per step, the source's read and the way to the read models. */
  interface StepFigures {
    blocks: number[];
    readMs: number;
    encodeMs: number;
    transferMs: number;
    records: number;
    bytes: number;
    committedAt: number;
    receivedAt: number;
    reads: SourceCommit["reads"];
    byType: Record<string, number>;
  }
  const follow = async (until: number, options: { gcAt?: number; profile?: string } = {}) => {
    const steps: StepFigures[] = [];
    const started = performance.now();
    const result = await source.follow(until, {
      ...options,
      onCommit(commit, receivedAt) {
        const step: StepFigures = {
          blocks: commit.blocks,
          readMs: commit.readMs,
          encodeMs: commit.encodeMs,
          transferMs: receivedAt - commit.sentAt,
          records: commit.records.length,
          bytes: commit.records.reduce((sum, record) => sum + record.value.byteLength, 0),
          committedAt: Number.NaN,
          receivedAt: performance.now(),
          reads: commit.reads,
          byType: countByType(commit.records),
        };
        steps.push(step);
        readModels.enqueue(commit.records, commit.blocks, (at) => (step.committedAt = at));
      },
    });
    const sourceDoneAt = performance.now();
    await readModels.idle();
    const committedAt = performance.now();
    const { steps: stepCount, ...rest } = result;
    return { ...rest, stepCount, steps, started, sourceMs: sourceDoneAt - started, totalMs: committedAt - started };
  };

  say(`full snapshot: the source reads block ${snapshotBlock}, the projections fold it…`);
  if (PROFILE) await readModels.profile();
  const snapshot = await follow(snapshotBlock, PROFILE ? { profile: `native-scale-${STAMP}-source-snapshot` } : {});
  const snapshotStep = snapshot.steps[0]!;
  const afterSnapshot = await source.memory("after snapshot", true);
  await sampleRedis();
  const redisAfterSnapshot = redisSamples.at(-1)!.usedMemoryMb;
  say(
    `full snapshot: read ${seconds(snapshotStep.readMs)} (${(snapshotStep.readMs / alphaWalk.ms).toFixed(2)} × A), ${snapshotStep.records.toLocaleString("en")} records, ${mb(snapshotStep.bytes)} MB of payloads; encoded ${seconds(snapshotStep.encodeMs)}, to the projections ${seconds(snapshotStep.transferMs)}, committed by every projection ${seconds(snapshotStep.committedAt - snapshotStep.receivedAt)}; built → committed ${seconds(snapshot.totalMs)}`,
  );
  say(
    `  slowest reads (overlapping): ${snapshotStep.reads
      .slice(0, 6)
      .map(
        (row) =>
          `${row.read} ${row.calls}× ${seconds(row.ms)}${row.items > 0 ? ` (${row.items.toLocaleString("en")} items)` : ""}`,
      )
      .join("; ")}`,
  );
  say(
    `  source process after a GC: heap ${mb(afterSnapshot.heapUsed)} MB, RSS ${mb(afterSnapshot.rss)} MB (peak so far ${mb(afterSnapshot.rssPeak)} MB); Redis used_memory ${redisAfterSnapshot.toFixed(0)} MB`,
  );
  if (snapshot.profile) say(`  source profile: ${snapshot.profile}`);
  if (PROFILE)
    for (const line of await readModels.profile(`native-scale-${STAMP}-snapshot`)) say(`  projection profile, ${line}`);
  figures["fullSnapshot"] = {
    block: snapshotBlock,
    readMs: snapshotStep.readMs,
    ratioToAlphaWalk: snapshotStep.readMs / alphaWalk.ms,
    encodeMs: snapshotStep.encodeMs,
    transferMs: snapshotStep.transferMs,
    projectMs: snapshotStep.committedAt - snapshotStep.receivedAt,
    totalMs: snapshot.totalMs,
    records: snapshotStep.records,
    payloadMb: mb(snapshotStep.bytes),
    reads: snapshotStep.reads,
    sourceMemoryAfterGc: sourceMemory(afterSnapshot),
    redisUsedMemoryMb: redisAfterSnapshot,
  };
  writeFigures();

  // ---- 4. backlog: blocks built while the source does not follow ----
  phase = "backlog";
  const nonces = new Map<string, number>();
  let activityIndex = 0;
  const buildBlock = async (expected: number) => {
    const calls = activity(activityIndex++);
    for (const { tx, signer } of calls) {
      const nonce = nonces.get(signer.address) ?? (await api!.rpc.system.accountNextIndex(signer.address)).toNumber();
      nonces.set(signer.address, nonce + 1);
      await api!.rpc.author.submitExtrinsic(await tx.signAsync(signer, { nonce }));
    }
    const started = performance.now();
    const hash = (await node.newBlocks(1)) as Hex;
    const buildMs = performance.now() - started;
    const head = await node.request<{ number: string }>("chain_getHeader");
    if (Number(head.number) !== expected)
      throw new Error(
        `block ${expected} was not built (head ${Number(head.number)}): the runtime refused it; see the chopsticks log`,
      );
    return { hash, buildMs, extrinsics: calls.length };
  };
  const backlogBuilds: number[] = [];
  const backlogStarted = performance.now();
  if (BACKLOG > 0) say(`backlog: building ${BACKLOG.toLocaleString("en")} blocks while the source does not follow…`);
  for (let index = 0; index < BACKLOG; index++) {
    const { buildMs } = await buildBlock(snapshotBlock + index + 1);
    backlogBuilds.push(buildMs);
    if ((index + 1) % 100 === 0)
      say(
        `  ${index + 1} blocks built (${seconds(performance.now() - backlogStarted)}; builds of the last 100: p50 ${median(backlogBuilds.slice(-100)).toFixed(0)} ms, max ${Math.max(...backlogBuilds.slice(-100)).toFixed(0)} ms)`,
      );
  }
  const backlogEnd = snapshotBlock + BACKLOG;
  const backlogEpochBlocks = Array.from({ length: BACKLOG }, (_, index) => snapshotBlock + index + 1).filter(
    (block) => epochsOf(block, netuidCount).length > 0,
  );
  const backlogBuild = {
    blocks: BACKLOG,
    ms: performance.now() - backlogStarted,
    buildP50Ms: percentile(backlogBuilds, 0.5),
    buildP95Ms: percentile(backlogBuilds, 0.95),
    buildMaxMs: Math.max(...backlogBuilds, 0),
    epochBuildP50Ms: percentile(
      backlogBuilds.filter((_, index) => epochsOf(snapshotBlock + index + 1, netuidCount).length > 0),
      0.5,
    ),
    nonEpochBuildP50Ms: percentile(
      backlogBuilds.filter((_, index) => epochsOf(snapshotBlock + index + 1, netuidCount).length === 0),
      0.5,
    ),
    epochBlocks: backlogEpochBlocks.length,
  };
  figures["backlogBuild"] = backlogBuild;
  if (BACKLOG > 0)
    say(
      `backlog: blocks ${snapshotBlock + 1}–${backlogEnd} built in ${seconds(backlogBuild.ms)} (a block p50 ${backlogBuild.buildP50Ms.toFixed(0)} ms: with an epoch ${backlogBuild.epochBuildP50Ms.toFixed(0)} ms, without ${backlogBuild.nonEpochBuildP50Ms.toFixed(0)} ms; ${backlogEpochBlocks.length} blocks with an epoch)`,
    );

  // ---- 5. catch-up ----
  phase = "catch-up";
  let catchUp: Record<string, unknown> | undefined;
  const catchUpSamplesFrom = source.samples.length;
  if (BACKLOG > 0) {
    say(`catch-up: the source follows blocks ${snapshotBlock + 1}–${backlogEnd} as fast as it can…`);
    if (PROFILE) await readModels.profile();
    const followed = await follow(backlogEnd, {
      gcAt: snapshotBlock + Math.min(WARM_UP_BLOCKS, BACKLOG),
      ...(PROFILE ? { profile: `native-scale-${STAMP}-source-catchup` } : {}),
    });
    const endOfCatchUp = await source.memory("end of catch-up", true);
    // BENCH_SCALE_HEAP_SNAPSHOT=<dir>: the source process's heap at the end of the catch-up (diagnosis).
    if (process.env.BENCH_SCALE_HEAP_SNAPSHOT)
      say(`  heap snapshot of the source process: ${await source.heapSnapshot(process.env.BENCH_SCALE_HEAP_SNAPSHOT)}`);
    await sampleRedis();
    const during = source.samples.slice(catchUpSamplesFrom);
    const blocks = followed.steps.reduce((sum, step) => sum + step.blocks.length, 0);
    const warm = followed.warm;
    // Blocks per second after warm-up: from the commit of the warm-up's last block to the end.
    const warmStep = followed.steps.find((step) => step.blocks.at(-1)! >= snapshotBlock + WARM_UP_BLOCKS);
    const afterWarm = warmStep === undefined ? undefined : backlogEnd - warmStep.blocks.at(-1)!;
    const afterWarmMs = warmStep === undefined ? undefined : performance.now() - warmStep.committedAt;
    catchUp = {
      blocks,
      steps: followed.steps.length,
      ms: followed.totalMs,
      blocksPerSecond: blocks / (followed.totalMs / 1000),
      sourceMs: followed.sourceMs,
      sourceBlocksPerSecond: blocks / (followed.sourceMs / 1000),
      afterWarmUpBlocksPerSecond:
        afterWarm === undefined || afterWarmMs === undefined ? undefined : afterWarm / (afterWarmMs / 1000),
      readMsSum: followed.steps.reduce((sum, step) => sum + step.readMs, 0),
      records: followed.steps.reduce((sum, step) => sum + step.records, 0),
      recordsByType: sumByType(followed.steps.map((step) => step.byType)),
      payloadMb: mb(followed.steps.reduce((sum, step) => sum + step.bytes, 0)),
      projectMs: { ...readModels.projectMs },
      epochBlocks: backlogEpochBlocks.length,
      memory: {
        warmAfterGc: warm === undefined ? undefined : sourceMemory(warm),
        endAfterGc: sourceMemory(endOfCatchUp),
        maxHeapUsedMb: mb(Math.max(...during.map((sample) => sample.heapUsed))),
        maxRssMb: mb(Math.max(...during.map((sample) => sample.rss))),
        rssPeakMb: mb(endOfCatchUp.rssPeak),
      },
      redisUsedMemoryMb: redisSamples.at(-1)!.usedMemoryMb,
      slowestSteps: [...followed.steps]
        .sort((a, b) => b.readMs - a.readMs)
        .slice(0, 5)
        .map((step) => ({
          blocks: `${step.blocks[0]}–${step.blocks.at(-1)}`,
          readMs: step.readMs,
          reads: step.reads.slice(0, 5),
        })),
    };
    figures["catchUp"] = catchUp;
    say(
      `catch-up: ${blocks.toLocaleString("en")} blocks in ${seconds(followed.totalMs)} = ${(catchUp["blocksPerSecond"] as number).toFixed(2)} blocks/s built → committed (the source alone: ${(catchUp["sourceBlocksPerSecond"] as number).toFixed(2)} blocks/s; after warm-up ${((catchUp["afterWarmUpBlocksPerSecond"] as number | undefined) ?? Number.NaN).toFixed(2)} blocks/s), ${followed.steps.length} steps, ${(catchUp["records"] as number).toLocaleString("en")} records`,
    );
    say(
      `  source memory after a GC: after ${WARM_UP_BLOCKS} blocks heap ${warm === undefined ? "?" : mb(warm.heapUsed)} MB / RSS ${warm === undefined ? "?" : mb(warm.rss)} MB; at the end heap ${mb(endOfCatchUp.heapUsed)} MB / RSS ${mb(endOfCatchUp.rss)} MB; during: max heap ${mb(Math.max(...during.map((sample) => sample.heapUsed)))} MB, max RSS ${mb(Math.max(...during.map((sample) => sample.rss)))} MB; Redis used_memory ${redisSamples.at(-1)!.usedMemoryMb.toFixed(0)} MB`,
    );
    if (followed.profile) say(`  source profile: ${followed.profile}`);
    if (PROFILE)
      for (const line of await readModels.profile(`native-scale-${STAMP}-catchup`))
        say(`  projection profile, ${line}`);
    writeFigures();
  }

  // ---- 6. incremental: each block from built to every read model committed ----
  phase = "incremental";
  for (const name of Object.keys(readModels.projectMs)) readModels.projectMs[name] = 0;
  const incrementalSamplesFrom = source.samples.length;
  const perBlock: {
    block: number;
    buildMs: number;
    committedMs: number;
    readMs: number;
    transferMs: number;
    projectMs: number;
    extrinsics: number;
    failed: number;
    records: number;
    bytes: number;
    epochs: number[];
    steppedNetuids: number;
    reads: SourceCommit["reads"];
    byType: Record<string, number>;
  }[] = [];
  if (PROFILE) await Promise.all([source.profile(), readModels.profile()]);
  const firstIncremental = backlogEnd + 1;
  say(`incremental: ${BLOCKS} blocks from ${firstIncremental}, each timed from built to every read model committed…`);
  for (let index = 0; index < BLOCKS; index++) {
    const number = firstIncremental + index;
    const built = await buildBlock(number);
    const started = performance.now();
    const followed = await follow(number);
    const committedMs = performance.now() - started;
    const step = followed.steps.at(-1)!;
    const at = await api.at(built.hash);
    const events = (await at.query.system!.events!()) as unknown as { event: { section: string; method: string } }[];
    const failed = events.filter(
      ({ event }) => event.section === "system" && event.method === "ExtrinsicFailed",
    ).length;
    // Spec 218 emits no epoch event: the subnets whose `LastMechansimStepBlock` is this block stepped.
    const steps = (await at.query.subtensorModule!.lastMechansimStepBlock!.entries()) as unknown as [
      unknown,
      { toString(): string },
    ][];
    const steppedNetuids = steps.filter(([, value]) => value.toString() === String(number)).length;
    const epochs = epochsOf(number, netuidCount);
    perBlock.push({
      block: number,
      buildMs: built.buildMs,
      committedMs,
      readMs: step.readMs,
      transferMs: step.transferMs,
      projectMs: step.committedAt - step.receivedAt,
      extrinsics: built.extrinsics,
      failed,
      records: step.records,
      bytes: step.bytes,
      epochs,
      steppedNetuids,
      reads: step.reads.slice(0, 5),
      byType: step.byType,
    });
    if (index < 3 || (index + 1) % 25 === 0 || committedMs > TARGETS.incrementalP95Ms)
      say(
        `  block ${number}: built in ${built.buildMs.toFixed(0)} ms${epochs.length > 0 ? ` (epoch of subnet ${epochs.join(", ")}; ${steppedNetuids} stepped)` : ` (${steppedNetuids} stepped)`}${failed > 0 ? `, ${failed} extrinsics failed` : ""}; committed ${committedMs.toFixed(0)} ms after: read ${step.readMs.toFixed(0)} ms, to the projections ${step.transferMs.toFixed(0)} ms, projected ${(step.committedAt - step.receivedAt).toFixed(0)} ms; ${step.records} records (${describeTypes(step.byType)}); slowest reads: ${step.reads
          .slice(0, 3)
          .map((row) => `${row.read} ${row.calls}× ${row.ms.toFixed(0)} ms`)
          .join(", ")}`,
      );
  }
  const incrementalProjectionProfiles = PROFILE ? await readModels.profile(`native-scale-${STAMP}-incremental`) : [];
  const incrementalSourceProfile = PROFILE
    ? await source.profile(`native-scale-${STAMP}-source-incremental`)
    : undefined;
  const endOfIncremental = await source.memory("end of incremental", true);
  await sampleRedis();
  clearInterval(redisSampler);
  const epochBlocks = perBlock.filter((block) => block.epochs.length > 0);
  const quietBlocks = perBlock.filter((block) => block.epochs.length === 0);
  const incremental = {
    blocks: perBlock.length,
    all: spread(perBlock.map((block) => block.committedMs)),
    epochBlocks: spread(epochBlocks.map((block) => block.committedMs)),
    nonEpochBlocks: spread(quietBlocks.map((block) => block.committedMs)),
    read: spread(perBlock.map((block) => block.readMs)),
    transfer: spread(perBlock.map((block) => block.transferMs)),
    project: spread(perBlock.map((block) => block.projectMs)),
    build: spread(perBlock.map((block) => block.buildMs)),
    epochBuild: spread(epochBlocks.map((block) => block.buildMs)),
    nonEpochBuild: spread(quietBlocks.map((block) => block.buildMs)),
    projectMsByProjection: { ...readModels.projectMs },
    epochsMatchingStorage: perBlock.filter((block) => block.epochs.length === block.steppedNetuids).length,
    failedExtrinsics: perBlock.reduce((sum, block) => sum + block.failed, 0),
    extrinsics: perBlock.reduce((sum, block) => sum + block.extrinsics, 0),
    recordsP50: percentile(
      perBlock.map((block) => block.records),
      0.5,
    ),
    sourceMemory: {
      endAfterGc: sourceMemory(endOfIncremental),
      maxHeapUsedMb: mb(Math.max(...source.samples.slice(incrementalSamplesFrom).map((sample) => sample.heapUsed))),
      maxRssMb: mb(Math.max(...source.samples.slice(incrementalSamplesFrom).map((sample) => sample.rss))),
    },
    redisUsedMemoryMb: redisSamples.at(-1)!.usedMemoryMb,
    perBlock,
  };
  figures["incremental"] = incremental;
  if (incrementalSourceProfile) say(`  source profile: ${incrementalSourceProfile}`);
  for (const line of incrementalProjectionProfiles) say(`  projection profile, ${line}`);
  writeFigures();

  // ---- 7. heavy reads on the final read models ----
  let reads: ReadFigures[] = [];
  if (process.env.BENCH_SCALE_READS !== "0" && BLOCKS + BACKLOG >= 0) {
    reads = await readModels.measureReads();
    figures["reads"] = reads;
    for (const read of reads) {
      say(
        `${read.name}, ${(read.bytes / 1e3).toFixed(0)} KB; baseline: a GET of the same size, ${read.baselinePerSecond.toFixed(0)}/s`,
      );
      say(
        `  computed on every call: ${read.computed.perSecond.toFixed(0)} reads/s, p95 ${read.computed.p95Ms.toFixed(1)} ms, ${read.computed.ratio.toFixed(2)} × baseline; kept while the version stands: ${read.kept.perSecond.toFixed(0)} reads/s, p95 ${read.kept.p95Ms.toFixed(1)} ms, ${read.kept.ratio.toFixed(2)} × baseline`,
      );
    }
  }

  const redisFamilies = await readModels.memoryByFamily();
  figures["redisByKeyFamily"] = redisFamilies;
  say(
    `Redis used_memory ${(await readModels.usedMemoryMb()).toFixed(0)} MB; largest key families: ${redisFamilies
      .slice(0, 6)
      .map((entry) => `${entry.family} ${entry.mb} MB (${entry.keys.toLocaleString("en")} keys)`)
      .join("; ")}`,
  );

  // ---- memory series and summary ----
  const allSamples = source.samples;
  const every = Math.max(1, Math.ceil(allSamples.length / 400));
  figures["memory"] = {
    sourceStarted: sourceMemory(sourceStarted),
    sourceSamples: allSamples
      .filter((_, index) => index % every === 0)
      .map((sample) => ({
        t: Math.round((sample.at - sourceStarted.at) / 1000),
        heapUsedMb: mb(sample.heapUsed),
        rssMb: mb(sample.rss),
      })),
    sourceRssPeakMb: mb(endOfIncremental.rssPeak),
    redis: redisSamples,
    chopsticksRssMb: mb(processRss(node.process.pid)),
  };
  figures["loadAfter"] = readFileSync("/proc/loadavg", "utf8").trim();
  const met = (ok: boolean) => (ok ? "met" : "**not met**");
  const catchUpRate = (catchUp?.["blocksPerSecond"] as number | undefined) ?? Number.NaN;
  const catchUpMemory = catchUp?.["memory"] as
    | { warmAfterGc?: ReturnType<typeof sourceMemory>; endAfterGc: ReturnType<typeof sourceMemory>; maxRssMb: number }
    | undefined;
  const peak = mb(endOfIncremental.rssPeak);
  const lines = [
    "| measure | value | against |",
    "|---|---|---|",
    `| baseline A: raw walk of the Alpha map (${alphaWalk.keys.toLocaleString("en")} keys + values) | ${seconds(alphaWalk.ms)} | 1.00 |`,
    `| baseline B: one state_queryStorageAt of 1,000 keys | ${queryBaseline.toFixed(0)} ms | 1.00 |`,
    `| **full snapshot**, the source's read of block ${snapshotBlock} | **${seconds(snapshotStep.readMs)}** | ${(snapshotStep.readMs / alphaWalk.ms).toFixed(2)} × A; target < 30 s: ${met(snapshotStep.readMs < TARGETS.fullSnapshotMs)} |`,
    `| … built → every read model committed (${snapshotStep.records.toLocaleString("en")} records, ${mb(snapshotStep.bytes)} MB) | ${seconds(snapshot.totalMs)} | ${(snapshot.totalMs / alphaWalk.ms).toFixed(2)} × A |`,
    `| backlog build by chopsticks, a block p50 (with / without an epoch) | ${backlogBuild.buildP50Ms.toFixed(0)} ms (${backlogBuild.epochBuildP50Ms.toFixed(0)} / ${backlogBuild.nonEpochBuildP50Ms.toFixed(0)} ms) | ${BACKLOG.toLocaleString("en")} blocks in ${seconds(backlogBuild.ms)} |`,
    `| **catch-up**, ${BACKLOG.toLocaleString("en")} blocks (${backlogEpochBlocks.length} with an epoch), built → committed | **${catchUpRate.toFixed(2)} blocks/s** | target ≥ 5: ${met(catchUpRate >= TARGETS.catchUpBlocksPerSecond)} |`,
    `| … the source alone | ${((catchUp?.["sourceBlocksPerSecond"] as number | undefined) ?? Number.NaN).toFixed(2)} blocks/s | |`,
    `| **incremental**, built → every read model committed, ${incremental.blocks} blocks: p50 / **p95** / max | ${incremental.all.p50Ms.toFixed(0)} / **${incremental.all.p95Ms.toFixed(0)}** / ${incremental.all.maxMs.toFixed(0)} ms | p95 ${(incremental.all.p95Ms / queryBaseline).toFixed(1)} × B; target p95 < 1 s: ${met(incremental.all.p95Ms < TARGETS.incrementalP95Ms)} |`,
    `| … ${epochBlocks.length} blocks with an epoch: p50 / p95 / max | ${incremental.epochBlocks.p50Ms.toFixed(0)} / ${incremental.epochBlocks.p95Ms.toFixed(0)} / ${incremental.epochBlocks.maxMs.toFixed(0)} ms | |`,
    `| … ${quietBlocks.length} blocks without: p50 / p95 / max | ${incremental.nonEpochBlocks.p50Ms.toFixed(0)} / ${incremental.nonEpochBlocks.p95Ms.toFixed(0)} / ${incremental.nonEpochBlocks.maxMs.toFixed(0)} ms | |`,
    `| … of it the source's read / to the projections / projected, p95 | ${incremental.read.p95Ms.toFixed(0)} / ${incremental.transfer.p95Ms.toFixed(0)} / ${incremental.project.p95Ms.toFixed(0)} ms | |`,
    `| block build by chopsticks, p50 (with / without an epoch) | ${incremental.build.p50Ms.toFixed(0)} ms (${incremental.epochBuild.p50Ms.toFixed(0)} / ${incremental.nonEpochBuild.p50Ms.toFixed(0)} ms) | |`,
    `| source process heap / RSS after a GC: after the snapshot | ${mb(afterSnapshot.heapUsed)} / ${mb(afterSnapshot.rss)} MB | |`,
    `| … after ${WARM_UP_BLOCKS} blocks of catch-up (warm) | ${catchUpMemory?.warmAfterGc?.heapUsedMb ?? "?"} / ${catchUpMemory?.warmAfterGc?.rssMb ?? "?"} MB | |`,
    `| … at the end of the catch-up | ${catchUpMemory?.endAfterGc.heapUsedMb ?? "?"} / ${catchUpMemory?.endAfterGc.rssMb ?? "?"} MB | |`,
    `| … after the incremental blocks | ${mb(endOfIncremental.heapUsed)} / ${mb(endOfIncremental.rss)} MB | |`,
    `| **source process peak RSS** (VmHWM, whole run) | **${peak} MB** | limit 768 MiB = ${MEMORY_LIMIT_MB.toFixed(0)} MB: ${met(peak < MEMORY_LIMIT_MB)} |`,
    `| Redis used_memory: after the snapshot / catch-up / incremental | ${redisAfterSnapshot.toFixed(0)} / ${((catchUp?.["redisUsedMemoryMb"] as number | undefined) ?? Number.NaN).toFixed(0)} / ${incremental.redisUsedMemoryMb.toFixed(0)} MB | |`,
    `| chopsticks RSS at the end | ${mb(processRss(node.process.pid))} MB | |`,
    ...reads.flatMap((read) => [
      `| ${read.name}, computed | ${read.computed.perSecond.toFixed(0)} reads/s (p95 ${read.computed.p95Ms.toFixed(1)} ms) | ${read.computed.ratio.toFixed(2)} × a GET of the same ${(read.bytes / 1e3).toFixed(0)} KB (${read.baselinePerSecond.toFixed(0)}/s) |`,
      `| ${read.name}, **kept** | **${read.kept.perSecond.toFixed(0)} reads/s** (p95 ${read.kept.p95Ms.toFixed(1)} ms) | ${read.kept.ratio.toFixed(2)} × the GET; target ≥ 0.6: ${met(read.kept.ratio >= TARGETS.heavyReadRatio)} |`,
    ]),
  ];
  say("");
  for (const line of lines) process.stdout.write(`${line}\n`);
  process.stdout.write(
    `(${incremental.extrinsics} extrinsics in ${incremental.blocks} incremental blocks, ${incremental.failedExtrinsics} failed; epochs by the formula matched LastMechansimStepBlock in ${incremental.epochsMatchingStorage} of ${incremental.blocks} blocks; load ${figures["loadBefore"]} → ${figures["loadAfter"]})\n`,
  );
  figures["table"] = lines;
  say(`figures: ${writeFigures()}`);
} catch (error) {
  figures["error"] = (error as Error).stack ?? String(error);
  figures["memoryAtFailure"] = failureMemory?.();
  say(`FAILED: ${(error as Error).message}`);
  try {
    const log = readFileSync(join(dir.path, "source.log"), "utf8").split("\n").slice(-40).join("\n");
    say(`the source process's log, last lines:\n${log}`);
    figures["sourceLogTail"] = log;
  } catch {
    // no source process yet
  }
  say(`figures so far: ${writeFigures()}`);
  process.exitCode = 1;
} finally {
  await stopSource?.().catch(() => undefined);
  await stopReadModels?.().catch(() => undefined);
  await api?.disconnect().catch(() => undefined);
  await node.stop();
  if (process.env.BENCH_SCALE_KEEP === "1") say(`kept ${dir.path}`);
  else dir.remove();
}

function countByType(records: readonly { eventType: string }[]): Record<string, number> {
  const byType: Record<string, number> = {};
  for (const record of records) byType[record.eventType] = (byType[record.eventType] ?? 0) + 1;
  return byType;
}

function sumByType(counts: readonly Record<string, number>[]): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const count of counts) for (const [type, n] of Object.entries(count)) sum[type] = (sum[type] ?? 0) + n;
  return sum;
}

function describeTypes(byType: Record<string, number>): string {
  return Object.entries(byType)
    .sort((a, b) => b[1] - a[1])
    .map(([type, count]) => `${type} ${count.toLocaleString("en")}`)
    .join(", ");
}

function readLe(hex: string): bigint {
  const bytes = Buffer.from(hex.slice(2), "hex");
  let value = 0n;
  for (let index = bytes.length - 1; index >= 0; index--) value = (value << 8n) | BigInt(bytes[index]!);
  return value;
}

/** A few values read back at the head, so a wrong key layout fails here and not as odd figures. */
async function checkState(scaleNode: ScaleNode, state: ReturnType<typeof generateScaleState>): Promise<void> {
  const limit = readLe(
    (await scaleNode.request<Hex>("state_getStorage", [rawKeys.plain("SubtensorModule", "SubnetLimit")])) ?? "0x",
  );
  const networks = readLe(
    (await scaleNode.request<Hex>("state_getStorage", [rawKeys.plain("SubtensorModule", "TotalNetworks")])) ?? "0x",
  );
  if (limit !== 128n || networks !== 129n)
    throw new Error(`state not in place: SubnetLimit ${limit}, TotalNetworks ${networks}`);
  const sample = state.pairs[Math.floor(state.pairs.length / 2)]!;
  const value = await scaleNode.request<Hex | null>("state_getStorage", [sample[0]]);
  if (value === null) throw new Error(`state not in place: ${sample[0]} is empty at the head`);
}

/** Walks every key under `prefix` (pages of 1,000), and with `values` reads each page's values too. */
async function walkPrefix(
  scaleNode: ScaleNode,
  prefix: Hex,
  values: boolean,
): Promise<{ keys: number; ms: number; sample: Hex[] }> {
  const head = await scaleNode.request<Hex>("chain_getBlockHash", []);
  const started = performance.now();
  let keys = 0;
  let start: Hex | null = null;
  const sample: Hex[] = [];
  for (;;) {
    const page: Hex[] = await scaleNode.request<Hex[]>("state_getKeysPaged", [prefix, 1_000, start, head]);
    keys += page.length;
    if (sample.length < 5_000) sample.push(...page);
    if (values && page.length > 0) await scaleNode.request("state_queryStorageAt", [page, head]);
    if (page.length < 1_000) break;
    start = page.at(-1)!;
  }
  return { keys, ms: performance.now() - started, sample };
}

/**
 * The signed extrinsics of the i-th block: Alice and Charlie send TAO to existing holders, Dave to
 * a new account, Bob stakes 1 TAO on a validator hotkey on one of its subnets, Eve stakes on a
 * validator where it holds no uid.
 */
function activityPlan(
  state: ReturnType<typeof generateScaleState>,
  dev: Record<(typeof DEV_NAMES)[number], ReturnType<Keyring["addFromUri"]>>,
) {
  const apiNow = api!;
  const holders = state.holders;
  const validators = state.validators;
  return (index: number) => {
    const holder = (offset: number) => u8aHex(holders[(index * 7 + offset) % holders.length]!);
    const validator = validators[index % validators.length]!;
    const netuid = validator.netuids[index % validator.netuids.length]!;
    const elsewhere = ((netuid + 17) % 128) + 1;
    // A new account every block: the index in its first bytes.
    const fresh = new Uint8Array(32).map((_, byte) =>
      byte < 4 ? (index >>> (byte * 8)) & 0xff : (byte * 7 + 1) % 256,
    );
    return [
      { signer: dev.Alice, tx: apiNow.tx.balances!.transferKeepAlive!(holder(0), 3n * RAO) },
      { signer: dev.Charlie, tx: apiNow.tx.balances!.transferKeepAlive!(holder(3), RAO / 2n) },
      { signer: dev.Dave, tx: apiNow.tx.balances!.transferKeepAlive!(u8aHex(fresh), 2n * RAO) },
      { signer: dev.Bob, tx: apiNow.tx.subtensorModule!.addStake!(u8aHex(validator.hotkey), netuid, RAO) },
      { signer: dev.Eve, tx: apiNow.tx.subtensorModule!.addStake!(u8aHex(validator.hotkey), elsewhere, RAO) },
    ];
  };
}
