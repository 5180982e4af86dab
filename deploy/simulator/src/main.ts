import { loadChainConfig } from "@platform/chain";
import { loadConfigOrExit, loadFromVariableOrExit } from "@platform/config";
import { createLogger } from "@platform/log";
import { privateKeyToAccount } from "viem/accounts";
import { readKeysFile, requireKey } from "./intents/keysFile.js";
import { startOpsServer } from "./intents/opsServer.js";
import { simulatorConfigSchema } from "./intents/simulatorConfig.js";
import { startIntentsSimulator } from "./intents/startIntentsSimulator.js";
import { startNativeSimulator } from "./native/nativeSimulator.js";
import { startPriceSimulator } from "./price/startPriceSimulator.js";
import { networkRandom } from "./random.js";

/**
 * The devnet simulator process: plays the filler, the oracle and demo users on the intent chains,
 * so orders on the running stack really fill, settle, expire and get refunded; on the native
 * network (the real Subtensor runtime), its own activity (transfers, stakes, registrations) with the
 * dev accounts the seed funded; and the coin/USD price feed's rounds, on whichever chain carries it.
 * Devnet only: it signs with the keys the launcher generated for this run.
 */
const config = loadConfigOrExit("simulator", simulatorConfigSchema);
const log = createLogger({ service: "simulator", level: config.LOG_LEVEL });
const chains = await loadFromVariableOrExit("simulator", "CHAINS_FILE", () => loadChainConfig(config.CHAINS_FILE));
const keys = await loadFromVariableOrExit("simulator", "SIMULATOR_KEYS_FILE", () =>
  readKeysFile(config.SIMULATOR_KEYS_FILE),
);

let ready = false;
const ops = await startOpsServer(config.OPS_HOST, config.OPS_PORT, () => ready);
const intents = await startIntentsSimulator({
  chains,
  filler: privateKeyToAccount(requireKey(keys, "filler")),
  oracle: privateKeyToAccount(requireKey(keys, "oracle")),
  pollIntervalMs: config.SIM_POLL_INTERVAL_MS,
  minFeeBps: config.SIM_FILLER_MIN_FEE_BPS,
  ...(config.SIM_DEMO
    ? {
        demo: {
          users: config.SIM_DEMO_USERS,
          orderIntervalMs: config.SIM_DEMO_ORDER_INTERVAL_MS,
          fillWindowSeconds: config.SIM_DEMO_FILL_WINDOW_SECONDS,
          unfilledEvery: config.SIM_DEMO_UNFILLED_EVERY,
          seed: config.SIM_SEED,
        },
      }
    : {}),
  log,
});
// The coin/USD feed's rounds, on the chain whose contracts name it (the devnet's origin chain).
const feedChain = chains.chains.find((chain) => chain.contracts.priceFeed !== undefined);
const price =
  feedChain?.contracts.priceFeed !== undefined && keys["simulator"] !== undefined
    ? await startPriceSimulator({
        rpcUrl: feedChain.rpcUrl,
        simulatorKey: requireKey(keys, "simulator"),
        priceFeed: feedChain.contracts.priceFeed,
        seed: String(config.SIM_SEED),
        intervalMs: config.SIM_PRICE_INTERVAL_MS,
        log,
      })
    : undefined;
if (price === undefined) log.info("no chain with a price feed or no simulator key: price simulator not started");
// The real Subtensor runtime's own activity (transfers, stakes, registrations), when the chains file names it.
const nativeStop = new AbortController();
const nativeNetwork =
  chains.substrate === undefined
    ? undefined
    : await startNativeSimulator({
        rpcUrl: chains.substrate.rpcUrl,
        signal: nativeStop.signal,
        random: networkRandom(`${config.SIM_SEED}:native`),
        log,
      });
if (nativeNetwork === undefined) log.info("no substrate network in the chains file: native simulator not started");
ready = true;

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, "stopping");
  ready = false;
  nativeStop.abort();
  await Promise.all([intents.stop(), price?.stop(), nativeNetwork?.done]);
  await ops.close();
  log.info({ stats: intents.stats() }, "stopped");
  process.exit(0);
};
process.once("SIGTERM", () => void shutdown("SIGTERM"));
process.once("SIGINT", () => void shutdown("SIGINT"));
