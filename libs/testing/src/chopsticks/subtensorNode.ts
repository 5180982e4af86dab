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
 *   node subtensorNode.js --genesis <chain spec> --port <port> [--block-time-ms <ms> [--timer-paused]]
 */
import { parseArgs } from "node:util";
import { setupWithServer, BuildBlockMode } from "@acala-network/chopsticks";

const { values } = parseArgs({
  options: {
    genesis: { type: "string" },
    port: { type: "string" },
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

const node = await setupWithServer({
  genesis,
  port,
  host: "127.0.0.1",
  "build-block-mode": BuildBlockMode.Manual,
} as Parameters<typeof setupWithServer>[0]);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await node.close().catch(() => undefined);
  process.exit(0);
};
process.once("SIGTERM", () => void stop());
process.once("SIGINT", () => void stop());

if (blockTimeMs > 0) {
  if (values["timer-paused"]) await new Promise((resolve) => process.once("SIGUSR2", resolve));
  // Timer-built blocks take the transactions waiting in the pool, like a block author would.
  while (!stopping) {
    const started = Date.now();
    try {
      await node.chain.newBlock();
    } catch (error) {
      console.error(`subtensor-node: building a block failed: ${String(error)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, blockTimeMs - (Date.now() - started))));
  }
}
