/**
 * A Subtensor node for the local stack and the tests: chopsticks executing the real runtime of a
 * chain spec, serving the Substrate JSON-RPC (HTTP and WebSocket) on one loopback port. Chopsticks
 * itself builds blocks only when asked (or per transaction); with `--block-time-ms` this process
 * also builds one on a timer, as a real chain would, measured from the end of the previous build so
 * a slow block never piles builds up.
 *
 * With `--timer-paused` the timer waits for SIGUSR2: a seed can then write its state directly at
 * the head before the chain moves on (state written without events is only seen as such when it
 * lands on a known block).
 *
 * Two JSON-RPC methods of this node (beside chopsticks' own) hold the timer and let it go again,
 * for a test that needs the chain to itself for a while on a running stack (a reorganisation made
 * with `dev_setHead` must not race a timer's block):
 * - `dev_pauseBlockTimer`: no timer block starts after it; it answers once a block the timer was
 *   building has been built, so the head the caller reads next stays until it moves it itself;
 * - `dev_resumeBlockTimer`: a held timer builds its next block at once, then one every block time
 *   (also what SIGUSR2 does); a running one keeps its pace.
 * Both answer `{ paused, head }` (the head's number); without a timer they only say so.
 *
 * `dev_exportBlocks` answers blocks 1 to the head as plain JSON (chainBlocks.ts); a node started
 * with `--replay <file>` of such blocks (the same genesis) takes them as its chain before it
 * answers anything, so a seeded chain is built by the runtime once and served by many nodes.
 *
 *   node subtensorNode.js --genesis <chain spec> --port <port> [--replay <blocks.json>]
 *     [--block-time-ms <ms> [--timer-paused]]
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { BuildBlockMode, defaultLogger } from "@acala-network/chopsticks";
import { setupContext } from "@acala-network/chopsticks/context";
import { handler } from "@acala-network/chopsticks/rpc/index";
import { createServer } from "@acala-network/chopsticks/server";
import { type ChainBlock, exportChainBlocks, importChainBlocks } from "./chainBlocks.js";

const { values } = parseArgs({
  options: {
    genesis: { type: "string" },
    port: { type: "string" },
    replay: { type: "string" },
    "block-time-ms": { type: "string", default: "0" },
    "timer-paused": { type: "boolean", default: false },
  },
});

const fail = (message: string): never => {
  console.error(`subtensor-node: ${message}`);
  process.exit(78);
};

const genesis = values.genesis ?? fail("--genesis <chain spec file> is required");
const port = Number(values.port ?? fail("--port is required"));
if (!Number.isInteger(port) || port < 1 || port > 65_535) fail(`--port must be a TCP port, got ${values.port}`);
const blockTimeMs = Number(values["block-time-ms"]);
if (!Number.isInteger(blockTimeMs) || blockTimeMs < 0)
  fail(`--block-time-ms must be a whole number of milliseconds, got ${values["block-time-ms"]}`);

const config = {
  genesis,
  port,
  host: "127.0.0.1",
  "build-block-mode": BuildBlockMode.Manual,
} as Parameters<typeof setupContext>[0];
// What chopsticks' setupWithServer does, with this node's timer methods answered before its own.
const context = await setupContext(config);
if (values.replay !== undefined) {
  const { blocks } = JSON.parse(readFileSync(values.replay, "utf8")) as { blocks: ChainBlock[] };
  await importChainBlocks(context.chain, blocks);
}
let stopping = false;
const timer = blockTimer(values["timer-paused"]);
// Before the server answers: a launcher that found it ready may signal at once.
process.on("SIGUSR2", () => timer.resume());
const chopsticksHandler = handler(context);
const server = await createServer(
  async (call, subscriptions) => {
    if (call.method === "dev_pauseBlockTimer") return timer.pause();
    if (call.method === "dev_resumeBlockTimer") return timer.resume();
    if (call.method === "dev_exportBlocks") return exportChainBlocks(context.chain);
    return chopsticksHandler(call, subscriptions);
  },
  port,
  "127.0.0.1",
);
defaultLogger.info(
  `${await context.chain.api.getSystemChain()} RPC listening on http://${server.addr} and ws://${server.addr}`,
);

const stop = async () => {
  if (stopping) return;
  stopping = true;
  timer.stopped();
  await context.chain.close().catch(() => undefined);
  await context.fetchStorageWorker?.terminate().catch(() => undefined);
  await server.close().catch(() => undefined);
  process.exit(0);
};
process.once("SIGTERM", () => void stop());
process.once("SIGINT", () => void stop());
await timer.start();

interface TimerState {
  paused: boolean;
  /** The head's block number. */
  head: number;
}

/**
 * The block timer: timer-built blocks take the transactions waiting in the pool, like a block
 * author would; the next block starts one block time after the previous one started, or as soon
 * as it is built when it took longer.
 */
function blockTimer(startPaused: boolean) {
  let paused = startPaused;
  let building: Promise<void> = Promise.resolve();
  let wake: (() => void) | undefined;
  const state = (): TimerState => ({ paused: blockTimeMs === 0 || paused, head: context.chain.head.number });
  const rouse = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  const woken = () => new Promise<void>((resolve) => (wake = resolve));
  const run = async () => {
    while (!stopping) {
      if (paused) {
        await woken();
        continue;
      }
      const started = Date.now();
      // Set before any await: a pause from here on waits for this block.
      building = context.chain.newBlock().then(
        () => undefined,
        (error: unknown) => console.error(`subtensor-node: building a block failed: ${String(error)}`),
      );
      await building;
      const due = Math.max(0, blockTimeMs - (Date.now() - started));
      let timeout: NodeJS.Timeout | undefined;
      // A resume (or the stop) ends the wait early.
      await Promise.race([new Promise((resolve) => (timeout = setTimeout(resolve, due))), woken()]);
      clearTimeout(timeout);
      wake = undefined;
    }
  };
  return {
    start: () => (blockTimeMs > 0 ? run() : Promise.resolve()),
    async pause(): Promise<TimerState> {
      paused = true;
      await building;
      return state();
    },
    resume(): TimerState {
      // A timer already running keeps its pace.
      if (paused) {
        paused = false;
        rouse();
      }
      return state();
    },
    stopped: rouse,
  };
}
