/**
 * bench/native/scale: the chain-ingestor's native source on a mainnet-sized state.
 *
 *   cd bench && pnpm bench:native-scale     (or: node --import tsx --conditions=@platform/source native/scale/scale.ts)
 *
 * 1. Starts chopsticks (the real Subtensor runtime, spec 218) on its own port and temp folder, and
 *    writes the state of scaleState.ts into it with `dev_setStorage` (raw pairs, in chunks), then
 *    builds one block on it.
 * 2. Baselines, same run: the node answering raw reads of that state (a `state_getKeysPaged` walk of
 *    the whole `Alpha` map with its values by `state_queryStorageAt`; one `state_queryStorageAt` of
 *    1,000 keys).
 * 3. Full snapshot: a fresh `nativeBlockSource` (services/chain-ingestor, the real code, on its own
 *    `connectNativeChain` connection) reads the head block: `readBlocks([header], best)`. Timed,
 *    with the records and bytes (protobuf payloads) it produced.
 * 4. Incremental: BENCH_SCALE_BLOCKS blocks (default 30), each with signed extrinsics from funded
 *    dev accounts (transfers to holders and a new account, an `addStake` on a validator) and the
 *    block's own emission and one subnet epoch; each block read by the same, warm, source. p50 / p95 / max.
 * 3b. The read models: the snapshot's records folded by the projector's market and subnets
 *    projections into a real Redis (used_memory), and data-query's subnets/latest and holders/top
 *    (page of 100, the subnet with most positions) read closed-loop against a GET of the same size
 *    (readModels.ts; BENCH_SCALE_READS=0 skips it).
 * 5. Memory: heapUsed / RSS of this process before and after the snapshot and after the blocks,
 *    and the node's RSS.
 * Prints a table and writes bench/results/native-scale-<time>.json.
 *
 * Knobs: BENCH_SCALE_BLOCKS (30), BENCH_SCALE_SEED (42), BENCH_SCALE_NOMINATORS (26,000),
 * BENCH_SCALE_ACCOUNTS (100,000), BENCH_SCALE_CHOPSTICKS (`indexed`, or `stock`: chopsticks'
 * own linear next-key lookup; see README: a block then takes ~20 s and a 1,000-key page ~50 s),
 * BENCH_SCALE_TEMPO (99; the raonet runtime runs every subnet's epoch every block whatever it is, see README),
 * BENCH_SCALE_KEEP=1 keeps the temp folder (chopsticks log).
 */
import { readFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { substrateNetworkSchema } from "@platform/chain";
import { subtensorChainSpec } from "@platform/devnet";
import { NetworkChainEvent } from "@platform/proto/events/v1/chain_network";
import { tempDir } from "@platform/testing";
import { ApiPromise, Keyring, WsProvider } from "@polkadot/api";
import { nativeBlockSource } from "../../../services/chain-ingestor/src/native/nativeBlockSource.js";
import { connectNativeChain } from "../../../services/chain-ingestor/src/native/nativeChainReader.js";
import { startScaleNode, type ScaleNode } from "./node.js";
import { ReadTimes, timedReader } from "./timedReader.js";
import { measureReadModels } from "./readModels.js";
import {
  generateScaleState,
  MAINNET_SIZES,
  rawKeys,
  systemAccountKey,
  TEMPO,
  u8aHex,
  writeScaleState,
  type Hex,
} from "./scaleState.js";

const numberFromEnv = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive whole number`);
  return value;
};
const BLOCKS = numberFromEnv("BENCH_SCALE_BLOCKS", 30);
const SEED = numberFromEnv("BENCH_SCALE_SEED", 42);
const SIZES = {
  ...MAINNET_SIZES,
  nominators: numberFromEnv("BENCH_SCALE_NOMINATORS", MAINNET_SIZES.nominators),
  accounts: numberFromEnv("BENCH_SCALE_ACCOUNTS", MAINNET_SIZES.accounts),
};
const INDEXED = (process.env.BENCH_SCALE_CHOPSTICKS ?? "indexed") !== "stock";
/** BENCH_SCALE_PROFILE=1: a CPU profile of each incremental block's read, in bench/results (open in Chrome DevTools). */
const PROFILE = process.env.BENCH_SCALE_PROFILE === "1";
const RESULTS_DIR = fileURLToPath(new URL("../../results/", import.meta.url));
const TARGETS = { fullSnapshotMs: 60_000, incrementalP95Ms: 1_000, heavyReadRatio: 0.6 };
const RAO = 1_000_000_000n;
const DEV_FUNDS_RAO = 10_000n * RAO;
const DEV_NAMES = ["Alice", "Bob", "Charlie", "Dave", "Eve", "Ferdie"] as const;

const say = (line: string) => process.stdout.write(`${line}\n`);
const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
const memory = (node: ScaleNode) => {
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsedMb: mb(heapUsed), rssMb: mb(rss), nodeRssMb: mb(processRss(node.process.pid)) };
};
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
const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1))]!;
const median = (values: readonly number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

const dir = tempDir("bench-native-scale");
const figures: Record<string, unknown> = {
  machine: "2 cores",
  chopsticks: INDEXED ? "indexed next-key lookup (indexedKeys.mjs)" : "stock",
  seed: SEED,
  sizes: SIZES,
  tempo: TEMPO,
  targets: TARGETS,
};
say(`starting chopsticks (spec 218${INDEXED ? ", indexed next-key lookup" : ", stock"}) in ${dir.path}…`);
const node = await startScaleNode({
  genesis: subtensorChainSpec(),
  logFile: join(dir.path, "chopsticks.log"),
  indexedKeys: INDEXED,
});
let api: ApiPromise | undefined;
let stopReader: (() => Promise<void>) | undefined;
try {
  api = await ApiPromise.create({ provider: new WsProvider(node.rpcUrl), noInitWarn: true });
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
  const state = generateScaleState({ seed: SEED, sizes: SIZES, genesisIssuance, extraAccounts: devAccounts });
  const counts = state.counts;
  say(
    `generated ${state.pairs.length.toLocaleString("en")} storage pairs in ${(state.generateMs / 1000).toFixed(1)} s: ${counts["Alpha"]!.toLocaleString("en")} Alpha positions (${counts["Alpha on a hotkey not registered on the subnet"]!.toLocaleString("en")} on hotkeys not registered on the subnet), ${counts["System.Account"]!.toLocaleString("en")} accounts, ${counts["NetworksAdded"]} netuids, ${counts["Keys"]!.toLocaleString("en")} uids, ${counts["(hotkey, netuid) pools"]!.toLocaleString("en")} hotkey pools; issuance ${(state.totalIssuanceRao / RAO).toLocaleString("en")} TAO, of it staked ${(state.totalStakeRao / RAO).toLocaleString("en")} TAO`,
  );
  const written = await writeScaleState(node.request, state.pairs, { log: say });
  say(
    `written: ${written.pairs.toLocaleString("en")} pairs, ${mb(written.bytes)} MB of JSON in ${written.chunks} dev_setStorage calls, ${(written.writeMs / 1000).toFixed(1)} s; first block on it built in ${(written.blockMs / 1000).toFixed(2)} s`,
  );
  figures["state"] = {
    pairs: written.pairs,
    counts,
    generateMs: state.generateMs,
    writeMs: written.writeMs,
    writeMb: mb(written.bytes),
    chunks: written.chunks,
    firstBlockMs: written.blockMs,
  };
  await checkState(node, state);

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
    `baseline: the Alpha map walked raw (${alphaWalk.keys.toLocaleString("en")} keys, pages of 1,000, values by state_queryStorageAt) in ${(alphaWalk.ms / 1000).toFixed(2)} s; System.Account's keys (${accountWalk.keys.toLocaleString("en")}) in ${(accountWalk.ms / 1000).toFixed(2)} s; one state_queryStorageAt of 1,000 keys ${queryBaseline.toFixed(0)} ms`,
  );
  figures["baseline"] = {
    alphaWalkMs: alphaWalk.ms,
    alphaKeys: alphaWalk.keys,
    accountKeysWalkMs: accountWalk.ms,
    accountKeys: accountWalk.keys,
    queryStorageAt1000Ms: queryBaseline,
  };

  // ---- 3. full snapshot ----
  const network = substrateNetworkSchema.parse({
    name: "bench-scale",
    chainId: 945,
    rpcUrl: node.rpcUrl,
    blockTimeMs: 12_000,
    finality: { safeDepth: 1, finalizedDepth: 3 },
    rpc: { timeoutMs: 300_000, retryCount: 1, retryDelayMs: 100 },
  });
  const reader = await connectNativeChain(network);
  stopReader = () => reader.close();
  // Every read the source makes is timed (timedReader.ts), so the snapshot's time can be placed.
  const readTimes = new ReadTimes();
  const source = nativeBlockSource({ reader: timedReader(reader, readTimes), network, finalizedHead: () => undefined });
  // The reads in flight, every 30 s while the snapshot runs (a slow one shows before it ends).
  const progress = setInterval(
    () =>
      say(
        `  … ${((performance.now() - fullStarted) / 1000).toFixed(0)} s: ${readTimes
          .table()
          .slice(0, 4)
          .map(
            (row) =>
              `${row.read} ${row.calls}× ${(row.ms / 1000).toFixed(1)} s${row.items > 0 ? ` (${row.items.toLocaleString("en")} items)` : ""}`,
          )
          .join("; ")} (reads finished so far; no line for a while = the event loop is blocked)`,
      ),
    30_000,
  );
  const memoryBefore = memory(node);
  const head = await reader.heads();
  const [headHeader] = await reader.headersAt([head.best]);
  say(`full snapshot: a fresh nativeBlockSource reads block ${head.best}…`);
  const fullStarted = performance.now();
  const full = await source.readBlocks([headHeader!], head.best).finally(() => clearInterval(progress));
  const fullMs = performance.now() - fullStarted;
  const fullReads = readTimes.table();
  say(
    `  the snapshot's reads by time (overlapping): ${fullReads
      .slice(0, 8)
      .map(
        (row) =>
          `${row.read} ${row.calls}× ${(row.ms / 1000).toFixed(2)} s${row.items > 0 ? ` (${row.items.toLocaleString("en")} items)` : ""}`,
      )
      .join("; ")}`,
  );
  readTimes.reset();
  const fullRecords = summarize(full.get(headHeader!.hash) ?? []);
  const memoryAfterFull = memory(node);
  say(
    `full snapshot: ${(fullMs / 1000).toFixed(2)} s, ${fullRecords.records.toLocaleString("en")} records, ${mb(fullRecords.bytes)} MB of payloads (${describeTypes(fullRecords.byType)})`,
  );
  figures["fullSnapshot"] = {
    ms: fullMs,
    block: Number(head.best),
    ...fullRecords,
    ratioToAlphaWalk: fullMs / alphaWalk.ms,
    reads: fullReads,
  };

  // ---- 3b. the read models of that snapshot ----
  if (process.env.BENCH_SCALE_READS !== "0") {
    const models = await measureReadModels(full.get(headHeader!.hash) ?? [], dir.path);
    figures["readModels"] = models;
    say(
      `read models: ${models.records.toLocaleString("en")} records projected in ${(models.projectMs / 1000).toFixed(1)} s; Redis used_memory ${models.usedMemoryMb.toFixed(0)} MB`,
    );
    for (const read of models.reads) {
      say(
        `  ${read.name}, ${(read.bytes / 1e3).toFixed(0)} KB; baseline: a GET of the same size, ${read.baselinePerSecond.toFixed(0)}/s`,
      );
      say(
        `    computed on every call (the first call after each commit): ${read.computed.perSecond.toFixed(0)} reads/s, p95 ${read.computed.p95Ms.toFixed(1)} ms, ${read.computed.ratio.toFixed(2)} × baseline`,
      );
      say(
        `    as served, kept while the version stands: ${read.kept.perSecond.toFixed(0)} reads/s, p95 ${read.kept.p95Ms.toFixed(1)} ms, ${read.kept.ratio.toFixed(2)} × baseline (target ≥ 0.6: ${read.kept.ratio >= TARGETS.heavyReadRatio ? "met" : "not met"})`,
      );
    }
  }

  // ---- 4. incremental ----
  const activity = activityPlan(state, dev);
  const nonces = new Map<string, number>();
  const perBlock: {
    block: number;
    readMs: number;
    buildMs: number;
    extrinsics: number;
    failed: number;
    records: number;
    bytes: number;
    epochs: number;
    reads: ReturnType<ReadTimes["table"]>;
  }[] = [];
  for (let index = 0; index < BLOCKS; index++) {
    const calls = activity(index);
    for (const { tx, signer } of calls) {
      const nonce = nonces.get(signer.address) ?? (await api.rpc.system.accountNextIndex(signer.address)).toNumber();
      nonces.set(signer.address, nonce + 1);
      await api.rpc.author.submitExtrinsic(await tx.signAsync(signer, { nonce }));
    }
    const buildStarted = performance.now();
    const hash = (await node.newBlocks(1)) as Hex;
    const buildMs = performance.now() - buildStarted;
    const built = await reader.headerOf(hash);
    if (built === undefined || Number(built.number) !== Number(head.best) + index + 1)
      throw new Error(
        `block ${Number(head.best) + index + 1} was not built (the runtime refused it); see the chopsticks log`,
      );
    const header = (await reader.headerOf(hash))!;
    const profiler = PROFILE ? await startProfiler() : undefined;
    const readStarted = performance.now();
    const read = await source.readBlocks([header], header.number);
    const readMs = performance.now() - readStarted;
    if (profiler)
      say(
        `  CPU profile of block ${header.number}'s read: ${await profiler.stop(`native-scale-block-${header.number}`)}`,
      );
    const records = summarize(read.get(header.hash) ?? []);
    const blockReads = readTimes.table();
    readTimes.reset();
    const events = (await (
      await api.at(hash)
    ).query.system!.events!()) as unknown as { event: { section: string; method: string } }[];
    const failed = events.filter(
      ({ event }) => event.section === "system" && event.method === "ExtrinsicFailed",
    ).length;
    // Spec 218 emits no epoch event: the subnets whose `LastMechansimStepBlock` is this block had one
    // (on this runtime every subnet, every block, whatever its tempo).
    const steps = (await (await api.at(hash)).query.subtensorModule!.lastMechansimStepBlock!.entries()) as unknown as [
      unknown,
      { toString(): string },
    ][];
    const epochs = steps.filter(([, value]) => value.toString() === String(header.number)).length;
    perBlock.push({
      block: Number(header.number),
      readMs,
      buildMs,
      extrinsics: calls.length,
      failed,
      records: records.records,
      bytes: records.bytes,
      epochs,
      reads: blockReads,
    });
    say(
      `  block ${header.number}: built in ${buildMs.toFixed(0)} ms (${calls.length} extrinsics${failed > 0 ? `, ${failed} failed` : ""}${epochs > 0 ? `, ${epochs} subnet epochs` : ""}); read in ${readMs.toFixed(0)} ms, ${records.records} records (${describeTypes(records.byType)}); slowest reads: ${blockReads
        .slice(0, 3)
        .map((row) => `${row.read} ${row.calls}× ${row.ms.toFixed(0)} ms`)
        .join(", ")}`,
    );
  }
  const reads = perBlock.map((block) => block.readMs).sort((a, b) => a - b);
  const builds = perBlock.map((block) => block.buildMs).sort((a, b) => a - b);
  const incremental = {
    blocks: perBlock.length,
    p50Ms: percentile(reads, 0.5),
    p95Ms: percentile(reads, 0.95),
    maxMs: reads.at(-1)!,
    buildP50Ms: percentile(builds, 0.5),
    buildP95Ms: percentile(builds, 0.95),
    failedExtrinsics: perBlock.reduce((sum, block) => sum + block.failed, 0),
    extrinsics: perBlock.reduce((sum, block) => sum + block.extrinsics, 0),
    recordsP50: percentile(
      perBlock.map((block) => block.records).sort((a, b) => a - b),
      0.5,
    ),
    perBlock,
  };
  const memoryAfterBlocks = memory(node);
  figures["incremental"] = incremental;
  figures["memory"] = {
    beforeSnapshot: memoryBefore,
    afterSnapshot: memoryAfterFull,
    afterIncremental: memoryAfterBlocks,
  };

  // ---- 5. summary ----
  const met = (ok: boolean) => (ok ? "met" : "not met");
  say("");
  say("| measure | value | ratio to baseline |");
  say("|---|---|---|");
  say(
    `| baseline A: raw walk of the Alpha map (${alphaWalk.keys.toLocaleString("en")} keys + values) | ${(alphaWalk.ms / 1000).toFixed(2)} s | 1.00 |`,
  );
  say(`| baseline B: one state_queryStorageAt of 1,000 keys | ${queryBaseline.toFixed(0)} ms | 1.00 |`);
  say(
    `| **full snapshot** (fresh source, head block) | **${(fullMs / 1000).toFixed(2)} s** | ${(fullMs / alphaWalk.ms).toFixed(2)} × A (target < 60 s: ${met(fullMs < TARGETS.fullSnapshotMs)}) |`,
  );
  say(
    `| records / payload bytes of the snapshot | ${fullRecords.records.toLocaleString("en")} / ${mb(fullRecords.bytes)} MB | |`,
  );
  say(
    `| incremental read per block, p50 | ${incremental.p50Ms.toFixed(0)} ms | ${(incremental.p50Ms / queryBaseline).toFixed(1)} × B |`,
  );
  say(
    `| **incremental read per block, p95** | **${incremental.p95Ms.toFixed(0)} ms** | ${(incremental.p95Ms / queryBaseline).toFixed(1)} × B (target < 1 s: ${met(incremental.p95Ms < TARGETS.incrementalP95Ms)}) |`,
  );
  say(
    `| incremental read per block, max | ${incremental.maxMs.toFixed(0)} ms | ${(incremental.maxMs / queryBaseline).toFixed(1)} × B |`,
  );
  say(
    `| block build by chopsticks, p50 / p95 | ${incremental.buildP50Ms.toFixed(0)} / ${incremental.buildP95Ms.toFixed(0)} ms | |`,
  );
  say(`| this process heapUsed / RSS: before snapshot | ${memoryBefore.heapUsedMb} / ${memoryBefore.rssMb} MB | |`);
  say(`| … after snapshot | ${memoryAfterFull.heapUsedMb} / ${memoryAfterFull.rssMb} MB | |`);
  say(`| … after ${incremental.blocks} blocks | ${memoryAfterBlocks.heapUsedMb} / ${memoryAfterBlocks.rssMb} MB | |`);
  say(`| chopsticks RSS before / after | ${memoryBefore.nodeRssMb} / ${memoryAfterBlocks.nodeRssMb} MB | |`);
  say(
    `(${incremental.extrinsics} extrinsics in ${incremental.blocks} blocks, ${incremental.failedExtrinsics} failed; ${perBlock.filter((block) => block.epochs > 0).length} blocks carried a subnet epoch)`,
  );
  const resultsDir = new URL("../../results/", import.meta.url);
  mkdirSync(resultsDir, { recursive: true });
  const file = new URL(`native-scale-${new Date().toISOString().replace(/[:.]/g, "-")}.json`, resultsDir);
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
  say(`figures: ${file.pathname}`);
} finally {
  await stopReader?.().catch(() => undefined);
  await api?.disconnect().catch(() => undefined);
  await node.stop();
  if (process.env.BENCH_SCALE_KEEP === "1") say(`kept ${dir.path}`);
  else dir.remove();
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

function summarize(records: readonly { eventType: string; payload: NetworkChainEvent }[]): {
  records: number;
  bytes: number;
  byType: Record<string, number>;
} {
  const byType: Record<string, number> = {};
  let bytes = 0;
  for (const record of records) {
    byType[record.eventType] = (byType[record.eventType] ?? 0) + 1;
    bytes += NetworkChainEvent.encode(record.payload).finish().length;
  }
  return { records: records.length, bytes, byType };
}

function describeTypes(byType: Record<string, number>): string {
  return Object.entries(byType)
    .sort((a, b) => b[1] - a[1])
    .map(([type, count]) => `${type} ${count.toLocaleString("en")}`)
    .join(", ");
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
  return (index: number) => {
    const holder = (offset: number) => u8aHex(state.holders[(index * 7 + offset) % state.holders.length]!);
    const validator = state.validators[index % state.validators.length]!;
    const netuid = validator.netuids[index % validator.netuids.length]!;
    const elsewhere = ((netuid + 17) % 128) + 1;
    const fresh = new Uint8Array(32).fill(0).map((_, byte) => (index * 31 + byte * 7 + 1) % 256);
    return [
      { signer: dev.Alice, tx: apiNow.tx.balances!.transferKeepAlive!(holder(0), 3n * RAO) },
      { signer: dev.Charlie, tx: apiNow.tx.balances!.transferKeepAlive!(holder(3), RAO / 2n) },
      { signer: dev.Dave, tx: apiNow.tx.balances!.transferKeepAlive!(u8aHex(fresh), 2n * RAO) },
      { signer: dev.Bob, tx: apiNow.tx.subtensorModule!.addStake!(u8aHex(validator.hotkey), netuid, RAO) },
      { signer: dev.Eve, tx: apiNow.tx.subtensorModule!.addStake!(u8aHex(validator.hotkey), elsewhere, RAO) },
    ];
  };
}

/** The V8 CPU profiler of this process, from now until `stop`, which writes the profile and a top-10 by self time. */
async function startProfiler(): Promise<{ stop(name: string): Promise<string> }> {
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  return {
    async stop(name) {
      const { profile } = (await session.post("Profiler.stop")) as { profile: CpuProfile };
      session.disconnect();
      const path = join(RESULTS_DIR, `${name}.cpuprofile`);
      mkdirSync(RESULTS_DIR, { recursive: true });
      writeFileSync(path, JSON.stringify(profile));
      return `${path}; by self time: ${topSelfTime(profile, 10)}`;
    },
  };
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

function topSelfTime(profile: CpuProfile, count: number): string {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const frame = byNode.get(id)!.callFrame;
    const name = `${frame.functionName || "(anonymous)"} ${frame.url.split("/").slice(-2).join("/")}:${frame.lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  const total = [...self.values()].reduce((sum, value) => sum + value, 0);
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, micros]) => `${name} ${((micros / total) * 100).toFixed(1)} %`)
    .join("; ");
}
