import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { PlatformError } from "@platform/errors/base";
import { freePort } from "../freePort.js";
import { logTail } from "../logTail.js";
import { type ManagedProcess, spawnManaged } from "../process.js";
import { isListening } from "../tcp.js";
import type { ChainBlock } from "./chainBlocks.js";

export interface StartChopsticksOptions {
  /** The raw chain spec whose genesis holds the runtime (deploy/devnet/chain-spec, checked by the caller). */
  genesis: string;
  /** Omit to take a free port (tests); the local stack passes its fixed port. */
  port?: number;
  /** Build a block every this many milliseconds; 0 or absent: only when asked (`dev_newBlock`), as tests do. */
  blockTimeMs?: number;
  /** The timer waits for `startTimer()` (a seed writes its state first). */
  timerPaused?: boolean;
  logFile: string;
  detached?: boolean;
  /**
   * Blocks another node of the same genesis exported (`exportBlocks`), as a JSON file `{ blocks }`:
   * the node starts with them as its chain, without executing them again.
   */
  replayFile?: string;
  /** How long the node may take to answer `chain_getHeader`; 60 s by default (it compiles the runtime first). */
  readyTimeoutMs?: number;
}

export interface RunningChopsticks {
  /** WebSocket URL (subscriptions); the same port answers HTTP JSON-RPC at `httpUrl`. */
  rpcUrl: string;
  httpUrl: string;
  port: number;
  process: ManagedProcess;
  /** Builds `count` blocks (with whatever transactions wait in the pool) and resolves with the new head's hash. */
  newBlocks(count?: number): Promise<string>;
  /** Calls any JSON-RPC method over HTTP (dev_setStorage, dev_setHead, …). */
  request<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Blocks 1 to the head, for another node's `replayFile`. */
  exportBlocks(): Promise<ChainBlock[]>;
  /** Starts a paused block timer (see `timerPaused`); nothing otherwise. */
  startTimer(): void;
  /**
   * Holds the block timer (`dev_pauseBlockTimer`, subtensorNode.ts): resolves once no timer block is
   * being built and none will start, so the chain moves only when the caller builds or sets a block.
   */
  pauseTimer(): Promise<BlockTimerState>;
  /** Lets the block timer go again (`dev_resumeBlockTimer`): its next block at once, then every block time. */
  resumeTimer(): Promise<BlockTimerState>;
  stop(): Promise<void>;
}

/** What the node's timer methods answer: whether the timer is held (always, without one) and the head's number. */
export interface BlockTimerState {
  paused: boolean;
  head: number;
}

/**
 * Starts the real Subtensor runtime under chopsticks (the pinned npm package) on 127.0.0.1, as its
 * own process, and resolves once it answers JSON-RPC. The process is this library's
 * subtensorNode entry, run from the same form (compiled or source) as the caller.
 */
export async function startChopsticks(options: StartChopsticksOptions): Promise<RunningChopsticks> {
  let failure: unknown;
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    try {
      return await launch(options);
    } catch (error) {
      failure = error;
      if (!(error instanceof FirstBlockError)) throw error;
    }
  }
  throw failure;
}

/**
 * Now and then (about one start in a dozen here) chopsticks cannot author the chain's first block:
 * Aura panics with "Timestamp slot must match CurrentSlot", and every block and signed extrinsic
 * after that fails. Such a node is useless, so it is stopped and started afresh.
 */
const START_ATTEMPTS = 3;

class FirstBlockError extends PlatformError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, { code: "CHOPSTICKS_FIRST_BLOCK", retryable: true, cause: options?.cause });
  }
}

async function launch(options: StartChopsticksOptions): Promise<RunningChopsticks> {
  const port = options.port ?? (await freePort());
  if (await isListening(port)) throw new Error(`chopsticks: port ${port} is already in use`);
  const entry = fileURLToPath(
    new URL(`./subtensorNode${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url),
  );
  const args = entry.endsWith(".ts") ? ["--import", "tsx", entry] : [entry];
  args.push("--genesis", options.genesis, "--port", String(port), "--block-time-ms", String(options.blockTimeMs ?? 0));
  if (options.timerPaused === true) args.push("--timer-paused");
  if (options.replayFile !== undefined) args.push("--replay", options.replayFile);
  const child = spawnManaged({
    name: "subtensor",
    command: process.execPath,
    args,
    logFile: options.logFile,
    detached: options.detached ?? false,
  });
  const httpUrl = `http://127.0.0.1:${port}`;
  const request = <T>(method: string, params: unknown[] = []) => rpcRequest<T>(httpUrl, method, params);
  const timeoutMs = options.readyTimeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  let ready = false;
  let exited: number | string | undefined;
  void child.exited.then((code) => (exited = code));
  while (!ready && exited === undefined && Date.now() < deadline) {
    ready = await request("chain_getHeader").then(
      () => true,
      () => false,
    );
    if (!ready) await sleep(200);
  }
  if (!ready) {
    await child.stop(2_000);
    const why = exited === undefined ? `did not answer within ${timeoutMs} ms` : `exited (${String(exited)})`;
    throw new Error(`chopsticks on ${httpUrl} ${why}; log ${options.logFile}:\n${logTail(options.logFile)}`);
  }
  if (!(await authorsBlocks(request))) {
    await child.stop(2_000);
    throw new FirstBlockError(
      `chopsticks on ${httpUrl} could not author its first block; log ${options.logFile}:\n${logTail(options.logFile)}`,
    );
  }
  return {
    rpcUrl: `ws://127.0.0.1:${port}`,
    httpUrl,
    port,
    process: child,
    request,
    async newBlocks(count = 1) {
      return request<string>("dev_newBlock", [{ count }]);
    },
    exportBlocks: () => request<ChainBlock[]>("dev_exportBlocks"),
    startTimer() {
      if (options.timerPaused === true && (options.blockTimeMs ?? 0) > 0) child.kill("SIGUSR2");
    },
    pauseTimer: () => request<BlockTimerState>("dev_pauseBlockTimer"),
    resumeTimer: () => request<BlockTimerState>("dev_resumeBlockTimer"),
    stop: () => child.stop(10_000),
  };
}

/** Chopsticks builds block 1 as it starts; a node still at genesis gets one more try. */
async function authorsBlocks(request: <T>(method: string, params?: unknown[]) => Promise<T>): Promise<boolean> {
  const head = async () => Number((await request<{ number: string }>("chain_getHeader")).number);
  if ((await head()) >= 1) return true;
  await request("dev_newBlock", [{ count: 1 }]).catch(() => undefined);
  return (await head()) >= 1;
}

/** One JSON-RPC call over HTTP; an error answer rejects with the node's message. */
export async function rpcRequest<T>(
  url: string,
  method: string,
  params: unknown[] = [],
  timeoutMs = 120_000,
): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await response.json()) as { result?: T; error?: { code: number; message: string; data?: unknown } };
  if (body.error !== undefined)
    throw new Error(
      `${method}: ${body.error.message}${body.error.data === undefined ? "" : ` (${JSON.stringify(body.error.data)})`}`,
    );
  return body.result as T;
}
