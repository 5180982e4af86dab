import { createRequire } from "node:module";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "./freePort.js";
import { logTail } from "./logTail.js";
import { type ManagedProcess, spawnManaged } from "./process.js";
import { isListening } from "./tcp.js";

export interface StartAnvilOptions {
  /** Omit to take a free port (tests); the local stack passes its fixed ports. */
  port?: number;
  chainId: number;
  /** Interval mining; omit for automine (a block per transaction), which keeps tests fast. */
  blockTimeSeconds?: number;
  /** anvil's stdout and stderr are appended here, never to the test console. */
  logFile: string;
  /** The local stack's chains outlive the launcher; test chains die with the test process. */
  detached?: boolean;
  /** Loaded at start when present and written on graceful stop, so a stack restart keeps its chain. */
  stateFile?: string;
  /** How long anvil may take to answer `eth_chainId`; defaults to 30 s. */
  readyTimeoutMs?: number;
}

export interface RunningAnvil {
  rpcUrl: string;
  port: number;
  chainId: number;
  process: ManagedProcess;
  stop(): Promise<void>;
}

/** A chosen free port can be taken by someone else before anvil binds it; a few fresh tries absorb that race. */
const FREE_PORT_ATTEMPTS = 3;

/**
 * Starts anvil from the repository's pinned npm package on 127.0.0.1 and resolves once it answers
 * `eth_chainId` with the requested chain id, so callers can use the RPC at once.
 */
export async function startAnvil(options: StartAnvilOptions): Promise<RunningAnvil> {
  const binary = anvilBinaryPath();
  const attempts = options.port === undefined ? FREE_PORT_ATTEMPTS : 1;
  let failure = "";
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const port = options.port ?? (await freePort());
    const outcome = await launch(binary, port, options);
    if ("anvil" in outcome) return outcome.anvil;
    failure = outcome.failure;
    // Only a lost port race is worth another port; an anvil that hangs would hang again.
    if (!outcome.portTaken) break;
  }
  throw new Error(failure);
}

type LaunchOutcome = { anvil: RunningAnvil } | { failure: string; portTaken: boolean };

async function launch(binary: string, port: number, options: StartAnvilOptions): Promise<LaunchOutcome> {
  // A node already on the port could answer our probe before our anvil fails to bind and exits.
  if (await isListening(port)) {
    return { failure: `anvil (chain ${options.chainId}): port ${port} is already in use`, portTaken: true };
  }
  const args = ["--host", "127.0.0.1", "--port", String(port), "--chain-id", String(options.chainId)];
  if (options.blockTimeSeconds !== undefined) args.push("--block-time", String(options.blockTimeSeconds));
  if (options.stateFile !== undefined) args.push("--state", options.stateFile);
  const child = spawnManaged({
    name: `anvil-${options.chainId}`,
    command: binary,
    args,
    logFile: options.logFile,
    detached: options.detached ?? false,
  });
  const rpcUrl = `http://127.0.0.1:${port}`;
  const timeoutMs = options.readyTimeoutMs ?? 30_000;
  const polling = new AbortController();
  let exitedEarly = false;
  const outcome = await Promise.race([
    probeChainId(rpcUrl, options.chainId, timeoutMs, polling.signal),
    child.exited.then((code) => {
      exitedEarly = true;
      return `exited (${String(code)})`;
    }),
  ]);
  polling.abort();
  if (outcome !== "ready") {
    // Never leave a half-started anvil behind: it would hold the port and outlive the test.
    await child.stop(2_000);
    const failure = `anvil (chain ${options.chainId}) on ${rpcUrl} ${outcome}; log ${options.logFile}:\n${logTail(options.logFile)}`;
    return { failure, portTaken: exitedEarly && /address already in use/i.test(logTail(options.logFile)) };
  }
  return {
    anvil: {
      rpcUrl,
      port,
      chainId: options.chainId,
      process: child,
      // anvil writes --state on SIGTERM; the grace period leaves it time to do so.
      stop: () => child.stop(10_000),
    },
  };
}

/**
 * The platform-specific binary inside the npm package, resolved from this repository's install so a
 * global foundry never changes which anvil the tests run. Spawning it directly (not the bin.mjs
 * wrapper) makes the managed pid anvil's own, so signals reach it without a relay.
 */
function anvilBinaryPath(): string {
  const fromHere = createRequire(import.meta.url);
  const wrapperManifest = fromHere.resolve("@foundry-rs/anvil/package.json");
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const platformPackage = `@foundry-rs/anvil-${process.platform}-${arch}`;
  const binaryName = process.platform === "win32" ? "anvil.exe" : "anvil";
  try {
    return createRequire(wrapperManifest).resolve(`${platformPackage}/bin/${binaryName}`);
  } catch (error) {
    throw new Error(
      `anvil: ${platformPackage} is not installed next to ${dirname(wrapperManifest)}; run pnpm install`,
      { cause: error },
    );
  }
}

/**
 * Polls `eth_chainId` until it returns `chainId`. Resolves "ready" or a reason: a different id means
 * another node already owns the port, which must not pass for ours.
 */
async function probeChainId(rpcUrl: string, chainId: number, timeoutMs: number, stop: AbortSignal): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !stop.aborted) {
    let answered: string | undefined;
    try {
      const response = await fetch(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
        signal: AbortSignal.any([stop, AbortSignal.timeout(1_000)]),
      });
      answered = ((await response.json()) as { result?: string }).result;
    } catch {
      // not listening yet
    }
    if (answered !== undefined) {
      return Number(BigInt(answered)) === chainId ? "ready" : `is another node (eth_chainId ${answered})`;
    }
    await sleep(50);
  }
  return `did not answer eth_chainId within ${timeoutMs} ms`;
}
