/**
 * Which Substrate client should the chain-ingestor use? polkadot-api, @polkadot/api and dedot,
 * measured on the real Subtensor runtime under chopsticks (README.md in this folder).
 *
 *   pnpm bench:native-clients                      # builds first
 *   cd bench && pnpm native-clients
 *
 * Knobs: BENCH_BLOCKS (30), BENCH_TRANSFERS (20 a block), BENCH_ROUNDS (3), BENCH_DECODE_MS (1000),
 * BENCH_INSTALL_SIZE=0 (skip the npm installs), BENCH_SECOND_RUNTIME (a `:code` file or raw chain
 * spec; "0" for none; default the spec-204 fixture of deploy/devnet), BENCH_KEEP_STATE=1 (keep the chopsticks log).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { buildBacklog, SYSTEM_EVENTS_KEY } from "./chain.js";
import { dedotClient } from "./clients/dedot.js";
import { papiClient } from "./clients/papi.js";
import { pjsClient } from "./clients/pjs.js";
import type { ClientUnderTest, OfflineDecoder } from "./clients/types.js";
import { compareOutputs, type DecodedOutput } from "./compare.js";
import { fetchRaw, type RawBlock } from "./fetchRaw.js";
import { type RuntimeFootprint, runtimeFootprint } from "./footprint.js";
import { installSize } from "./installSize.js";
import { BASELINE, measureLive, requestSummary } from "./live.js";
import { interleaved, median } from "./measure.js";
import { accountsThroughput, buildAll, checkKeys, eventsThroughput, measureBuilds, offlineOutput } from "./offline.js";
import { RawRpc } from "./rawRpc.js";
import { type BaselineFigures, type ClientFigures, markdownReport } from "./report.js";

const numberFromEnv = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};
const config = {
  blocks: numberFromEnv("BENCH_BLOCKS", 30),
  transfers: numberFromEnv("BENCH_TRANSFERS", 20),
  rounds: numberFromEnv("BENCH_ROUNDS", 3),
  decodeMs: numberFromEnv("BENCH_DECODE_MS", 1000),
  installSize: process.env.BENCH_INSTALL_SIZE !== "0",
};
const started = performance.now();
const log = (message: string) =>
  console.log(`[native-clients ${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${message}`);

/** Filled from the raw fetch: see papiClient. */
const codeHashes = new Map<string, string>();
// The clients' own warnings (polkadot-api prints each archive failure with its stack; @polkadot/api
// its unknown signed extensions on every registry): one line per distinct message.
const warned = new Set<string>();
console.warn = (...args: unknown[]) => {
  const text = args.map((arg) => (arg instanceof Error ? `${arg.name}: ${arg.message}` : String(arg))).join(" ");
  const line = (text.split("\n")[0] as string).replace(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+/, "");
  if (!warned.has(line)) process.stderr.write(`[warning, shown once] ${line}\n`);
  warned.add(line);
};

const clients = [await papiClient(codeHashes), await pjsClient(), dedotClient()];
/** polkadot-api on chopsticks' faulty `:code` hashes: in the unmeasured request count only (events), for the record. */
const papiAsServed = await papiClient();
// npm installs run while the backlog is built (network and disk against a CPU-bound node); awaited before anything is timed.
const sizes = config.installSize
  ? Promise.all(clients.map((client) => installSize(`${client.packageName}@${client.version}`)))
  : Promise.resolve(undefined);

log(`building a backlog of ${config.blocks} blocks (${config.transfers} transfers + 1 sudo call each)`);
const backlog = await buildBacklog({ blocks: config.blocks, transfersPerBlock: config.transfers, log });
const rpc = await RawRpc.connect(backlog.node.rpcUrl);
try {
  log(
    `backlog built in ${(backlog.buildMs / 1000).toFixed(1)} s: blocks #${backlog.blocks[0]?.number}–#${backlog.blocks.at(-1)?.number}, runtimes ${backlog.runtimes.join(" → ")}`,
  );
  const readyBlocks = [backlog.headHash, ...(backlog.primerHash === undefined ? [] : [backlog.primerHash])];
  const raw = await fetchRaw(rpc, backlog.blocks, readyBlocks, backlog.accounts);
  for (const [block, codeHash] of raw.codeHashes) codeHashes.set(block, codeHash);
  const headRuntime = raw.blocks.at(-1)?.runtime ?? 0;
  const totalEvents = raw.blocks.reduce((sum, block) => sum + block.events, 0);
  log(
    `fetched ${raw.blocks.length} blocks' events (${totalEvents}) and ${raw.accountKeys.length} accounts each; metadata of runtimes ${[...raw.metadata.keys()].join(", ")}`,
  );
  const installs = await sizes;

  const builds = await measureBuilds(clients, raw, headRuntime, config.rounds);
  log(
    `decoder builds (ms, first / later): ${clients.map((client) => `${client.name} ${builds.get(client)?.cold.toFixed(0)} / ${median(builds.get(client)?.warm ?? []).toFixed(0)}`).join(", ")}`,
  );
  const decoders = new Map(clients.map((client) => [client, buildAll(client, raw)]));
  const keyProblems = checkKeys(decoders, raw, backlog.accounts);

  log("offline decoding: System.Events");
  const decoderOf = (client: ClientUnderTest) => decoders.get(client) as Map<number, OfflineDecoder>;
  const decodeRates = await interleaved(clients, config.rounds, async (client) =>
    eventsThroughput(decoderOf(client), raw, config.decodeMs),
  );
  log("offline decoding: System.Account keys, then values");
  const keyRates = await interleaved(clients, config.rounds, async (client) =>
    accountsThroughput(decoderOf(client), raw, backlog.accounts, "key", config.decodeMs),
  );
  const valueRates = await interleaved(clients, config.rounds, async (client) =>
    accountsThroughput(decoderOf(client), raw, backlog.accounts, "value", config.decodeMs),
  );

  log("end to end through each client's API (and the raw baseline)");
  const live = await measureLive({
    clients,
    profiledOnly: [papiAsServed],
    raw,
    wsUrl: backlog.node.rpcUrl,
    readBlocks: readyBlocks,
    accounts: backlog.accounts,
    rounds: config.rounds,
    log,
  });

  log("run-time footprint: the files a fresh node loads to import each client");
  const footprints: RuntimeFootprint[] = [];
  for (const client of clients) footprints.push(await runtimeFootprint(client.imports));

  const outputs: DecodedOutput[] = [
    ...clients.map((client) => offlineOutput(client, decoders.get(client) as Map<number, OfflineDecoder>, raw)),
    ...live.outputs,
  ];
  const mismatches = [...keyProblems, ...compareOutputs(raw.blocks, outputs, config.transfers)];

  const figures: ClientFigures[] = clients.map((client, i) => ({
    name: client.name,
    version: client.version,
    buildColdMs: builds.get(client)?.cold ?? Number.NaN,
    buildWarmMs: median(builds.get(client)?.warm ?? []),
    decodeBlocksPerSec: median(decodeRates.get(client) ?? []),
    decodeEventsPerSec: (median(decodeRates.get(client) ?? []) * totalEvents) / raw.blocks.length,
    accountKeysPerSec: median(keyRates.get(client) ?? []),
    accountValuesPerSec: median(valueRates.get(client) ?? []),
    liveEventsMs: median(live.eventsMs.get(client.name) ?? []),
    liveAccountsMs: median(live.accountsMs.get(client.name) ?? []),
    liveFailed: {
      events: live.failed.get(`${client.name}/events`) ?? 0,
      accounts: live.failed.get(`${client.name}/accounts`) ?? 0,
    },
    readyMs: median(live.readyMs.get(client.name) ?? []),
    install: installs?.[i],
    footprint: footprints[i],
  }));
  const baseline: BaselineFigures = {
    eventsMs: median(live.eventsMs.get(BASELINE) ?? []),
    accountsMs: median(live.accountsMs.get(BASELINE) ?? []),
  };
  const asServedMs = live.requests.get(papiAsServed.name)?.msPerBlock.events;
  const liveNotes = [
    `polkadot-api reads old blocks through archive_v1_*, keyed by the hash of \`:code\`, which chopsticks 1.5.1 answers wrongly (the block hash): the figures above correct that answer in its transport (clients/papi.ts); as served, it downloads the metadata again for every block: ${asServedMs?.toFixed(0)} ms/block (events, unmeasured pass).`,
    ...(backlog.primerHash === undefined
      ? []
      : [
          "Ready: connected, and the head's and the primer block's events read, so each client holds both runtimes' metadata before the pass.",
        ]),
  ];
  const table = markdownReport(
    figures,
    baseline,
    raw.blocks.length,
    totalEvents / raw.blocks.length,
    backlog.accounts.length,
    liveNotes,
  );

  console.log(`\n${table}\n`);
  for (const client of clients) console.log(`- ${client.name} ${client.version}: ${client.via}`);
  console.log(
    `\nJSON-RPC requests per block (unmeasured pass through a counting relay; count × method, mean wait):\n${requestSummary(live.requests)}`,
  );
  console.log(`\nRuntime upgrade: ${upgradeSummary(raw.blocks)}`);
  const disagreeing = new Set(mismatches.map((mismatch) => mismatch.source));
  const agreeing = outputs
    .map((output) => output.source)
    .filter((source) => !disagreeing.has(source) && !disagreeing.has(source.replace(/ (offline|live)$/, "")));
  console.log(
    `Correctness: ${agreeing.length} of ${outputs.length} outputs (${agreeing.join(", ")}) agree on every block: events (names, phases; values of transfers, withdrawals, deposits, fees, NetworkMaxStakeSet) and all ${backlog.accounts.length} accounts (nonce, free).`,
  );
  if (mismatches.length > 0) {
    console.log(`\n${"!".repeat(100)}\nMISMATCH: ${mismatches.length} disagreement(s) between the clients' decodings:`);
    for (const mismatch of mismatches.slice(0, 40))
      console.log(`  block #${mismatch.block} ${mismatch.source} ${mismatch.what}: ${mismatch.detail}`);
    console.log("!".repeat(100));
  }

  const file = writeResults({
    config,
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      memoryGB: Math.round(totalmem() / 1e9),
      node: process.version,
      platform: process.platform,
    },
    backlog: {
      buildMs: backlog.buildMs,
      runtimes: backlog.runtimes,
      secondRuntime: backlog.secondRuntimeSource,
      blocks: raw.blocks.map(({ eventsHex: _e, accountsHex: _a, ...block }) => block),
    },
    eventsKey: SYSTEM_EVENTS_KEY,
    clients: figures.map((figure, i) => ({
      ...figure,
      via: clients[i]?.via,
      rounds: {
        decode: decodeRates.get(clients[i] as ClientUnderTest),
        accountKeys: keyRates.get(clients[i] as ClientUnderTest),
        accountValues: valueRates.get(clients[i] as ClientUnderTest),
        liveEventsMs: live.eventsMs.get(figure.name),
        liveAccountsMs: live.accountsMs.get(figure.name),
        builds: builds.get(clients[i] as ClientUnderTest),
      },
    })),
    baseline: {
      ...baseline,
      rounds: { eventsMs: live.eventsMs.get(BASELINE), accountsMs: live.accountsMs.get(BASELINE) },
    },
    requestsPerBlock: Object.fromEntries(live.requests),
    // What the comparison compares: the first block's first events as polkadot-api decoded them offline.
    sample: { block: raw.blocks[0]?.number, events: outputs[0]?.events.get(raw.blocks[0]?.hash ?? "")?.slice(0, 8) },
    mismatches,
    table,
    totalSeconds: (performance.now() - started) / 1000,
  });
  log(`results written to ${file}`);
} finally {
  rpc.close();
  await backlog.stop();
}
// A client that decodes wrongly is a result of this benchmark, printed above and kept in the JSON: exit 0.
process.exit(0);

function upgradeSummary(blocks: RawBlock[]): string {
  const upgrade = blocks.find((block) => block.upgrade);
  const runtimes = [...new Set(blocks.map((block) => block.runtime))];
  if (upgrade === undefined)
    return `none in the backlog (all blocks run spec ${runtimes.join(", ")}); no second runtime found (BENCH_SECOND_RUNTIME)`;
  const before = blocks.filter((block) => block.number < upgrade.number).length;
  return `blocks #${blocks[0]?.number}–#${upgrade.number} executed by spec ${upgrade.runtime} (${before} + the upgrade block #${upgrade.number}, whose state already holds spec ${upgrade.specVersion}'s code), the ${blocks.length - before - 1} after by spec ${blocks.at(-1)?.runtime}; every block carries SubtensorModule.NetworkMaxStakeSet, event index 70 in 204 and 69 in 218`;
}

function writeResults(results: Record<string, unknown>): string {
  const dir = fileURLToPath(new URL("../results/", import.meta.url));
  mkdirSync(dir, { recursive: true });
  const file = `${dir}native-clients-${new Date().toISOString().replace(/[:.]/g, "-")}.json`;
  writeFileSync(
    file,
    `${JSON.stringify(results, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value), 2)}\n`,
  );
  return file;
}
