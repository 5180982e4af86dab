import type { RuntimeFootprint } from "./footprint.js";
import type { InstallSize } from "./installSize.js";

/** One client's figures (medians of the measured rounds). */
export interface ClientFigures {
  name: string;
  version: string;
  /** First decoder build in the process (module code not yet optimised), then the median of later builds; ms, head runtime. */
  buildColdMs: number;
  buildWarmMs: number;
  /** Offline: decoding every block's System.Events from the fetched bytes. */
  decodeBlocksPerSec: number;
  decodeEventsPerSec: number;
  /** Offline: System.Account keys encoded a second, and values decoded a second. */
  accountKeysPerSec: number;
  accountValuesPerSec: number;
  /** Through the client's own API against the node, one block after another: ms per block read (failed blocks left out). */
  liveEventsMs: number;
  liveAccountsMs: number;
  /** Blocks whose read threw (last round). */
  liveFailed: { events: number; accounts: number };
  /** Connecting plus one read of the head block's events (the current runtime's metadata loaded). */
  readyMs: number;
  install?: InstallSize;
  footprint?: RuntimeFootprint;
}

/** The raw JSON-RPC fetch of the same bytes, ms per block. */
export interface BaselineFigures {
  eventsMs: number;
  accountsMs: number;
}

const fmt = (value: number, digits = 0) =>
  Number.isFinite(value)
    ? value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : "–";
const mb = (bytes: number) => `${fmt(bytes / 1e6, 1)} MB`;
const perSec = (msPerBlock: number) => fmt(1000 / msPerBlock);

/** The markdown tables the run prints and the README quotes. */
export function markdownReport(
  clients: ClientFigures[],
  baseline: BaselineFigures,
  blocks: number,
  eventsPerBlock: number,
  accounts: number,
  liveNotes: string[],
): string {
  const lines = [
    `Offline decoding (the fetched bytes, no network; ${blocks} blocks, ${fmt(eventsPerBlock, 1)} events a block; ${accounts} accounts a block). "÷ fetch": decoding time over the raw fetch time of the same bytes.`,
    "",
    "| client | decoder build, first / later (ms) | events: blocks/s | events/s | events decode ÷ fetch | System.Account keys encoded/s | values decoded/s | key+value ops/s | accounts (50 keys+values) ÷ fetch |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...clients.map((c) => {
      const decodeMs = 1000 / c.decodeBlocksPerSec;
      const opsPerSec = 1 / (1 / c.accountKeysPerSec + 1 / c.accountValuesPerSec);
      const accountsMs = (1000 * accounts) / opsPerSec;
      return `| ${c.name} ${c.version} | ${fmt(c.buildColdMs)} / ${fmt(c.buildWarmMs)} | ${fmt(c.decodeBlocksPerSec)} | ${fmt(c.decodeEventsPerSec)} | ${fmt(decodeMs / baseline.eventsMs, 2)} | ${fmt(c.accountKeysPerSec)} | ${fmt(c.accountValuesPerSec)} | ${fmt(opsPerSec)} | ${fmt(accountsMs / baseline.accountsMs, 2)} |`;
    }),
    "",
    "End to end through each client's own API against the node, one block after another (fresh client each round; ms per block read, blocks a client failed on left out):",
    "",
    "| client | events: ms/block | blocks/s | × baseline | failed | 50 accounts: ms/block | blocks/s | × baseline | failed | ready (ms) |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    `| baseline: raw JSON-RPC on one WebSocket, no decoding | ${fmt(baseline.eventsMs, 2)} | ${perSec(baseline.eventsMs)} | 1.00 | – | ${fmt(baseline.accountsMs, 2)} | ${perSec(baseline.accountsMs)} | 1.00 | – | – |`,
    ...clients.map(
      (c) =>
        `| ${c.name} | ${fmt(c.liveEventsMs, 2)} | ${perSec(c.liveEventsMs)} | ${fmt(c.liveEventsMs / baseline.eventsMs, 1)} | ${c.liveFailed.events} | ${fmt(c.liveAccountsMs, 2)} | ${perSec(c.liveAccountsMs)} | ${fmt(c.liveAccountsMs / baseline.accountsMs, 1)} | ${c.liveFailed.accounts} | ${fmt(c.readyMs)} |`,
    ),

    ...(liveNotes.length > 0 ? ["", ...liveNotes.map((note) => `- ${note}`)] : []),
  ];
  lines.push(
    "",
    "Size: on disk, the whole production dependency closure of a fresh `npm install <pkg> --omit=dev --ignore-scripts`; at run time, the JS files a fresh node loads to import the client (the modules in brackets) and how long that takes:",
    "",
    "| package | on disk | packages | largest on disk | loaded at run time | files | packages | import (ms) |",
    "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |",
    ...clients.map((c) => {
      const size = c.install;
      const disk =
        size === undefined
          ? "not measured | | "
          : size.error !== undefined
            ? `failed: ${size.error.split("\n")[0]} | | `
            : `${mb(size.bytes)} | ${size.packages} | ${size.largest.map(([name, bytes]) => `${name} ${mb(bytes)}`).join(", ")}`;
      const run = c.footprint;
      const loaded =
        run === undefined || run.error !== undefined
          ? `failed | | |`
          : `${mb(run.bytes)} [${run.imports.join(", ")}] | ${run.files} | ${run.packages} | ${fmt(run.importMs)}`;
      return `| ${c.name}@${c.version} | ${disk} | ${loaded} |`;
    }),
  );
  return lines.join("\n");
}
