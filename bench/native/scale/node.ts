import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { freePort, type ManagedProcess, rpcRequest, spawnManaged } from "@platform/testing";

export interface ScaleNode {
  rpcUrl: string;
  httpUrl: string;
  process: ManagedProcess;
  indexedKeys: boolean;
  request<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  newBlocks(count?: number): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts scaleNode.ts (chopsticks, the real runtime of `genesis`, manual blocks) on its own free port
 * and waits until it has built its first block. `indexedKeys`: with the binary-search next-key
 * lookup (indexedKeys.mjs).
 */
export async function startScaleNode(options: {
  genesis: string;
  logFile: string;
  indexedKeys: boolean;
  timeoutMs?: number;
}): Promise<ScaleNode> {
  const port = await freePort();
  const entry = fileURLToPath(new URL("./scaleNode.ts", import.meta.url));
  const args = [
    "--max-old-space-size=8192",
    "--import",
    "tsx",
    entry,
    "--genesis",
    options.genesis,
    "--port",
    String(port),
  ];
  if (options.indexedKeys) args.push("--indexed-keys");
  // BENCH_SCALE_NODE_ARGS: extra node flags for the chopsticks process (e.g. --cpu-prof --cpu-prof-dir=/tmp/p).
  const extra = (process.env.BENCH_SCALE_NODE_ARGS ?? "").split(/\s+/).filter((flag) => flag.length > 0);
  args.unshift(...extra);
  const child = spawnManaged({ name: "scale-chopsticks", command: process.execPath, args, logFile: options.logFile });
  const httpUrl = `http://127.0.0.1:${port}`;
  // Large writes and wasm-heavy blocks: generous timeouts. A keep-alive socket the node closed while
  // idle (its 5 s keep-alive timeout) fails the next request before it was read ("fetch failed",
  // EPIPE): that one is sent again. Every request here is safe to repeat then, as none was handled.
  const request = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    try {
      return await rpcRequest<T>(httpUrl, method, params, 600_000);
    } catch (error) {
      const code = ((error as Error).cause as { code?: string } | undefined)?.code;
      if (code !== "EPIPE" && code !== "ECONNRESET" && code !== "UND_ERR_SOCKET") throw error;
      return rpcRequest<T>(httpUrl, method, params, 600_000);
    }
  };
  const deadline = Date.now() + (options.timeoutMs ?? 90_000);
  let exited: number | string | undefined;
  void child.exited.then((code) => (exited = code));
  for (;;) {
    const head = await request<{ number: string }>("chain_getHeader").catch(() => undefined);
    if (head !== undefined) {
      if (Number(head.number) >= 1) break;
      await request("dev_newBlock", [{ count: 1 }]).catch(() => undefined);
    }
    if (exited !== undefined || Date.now() > deadline) {
      await child.stop(2_000);
      throw new Error(
        `scale chopsticks did not start (${exited === undefined ? "timeout" : `exited ${String(exited)}`}); log ${options.logFile}`,
      );
    }
    await sleep(250);
  }
  return {
    rpcUrl: `ws://127.0.0.1:${port}`,
    httpUrl,
    process: child,
    indexedKeys: options.indexedKeys,
    request,
    newBlocks: (count = 1) => request<string>("dev_newBlock", [{ count }]),
    stop: () => child.stop(10_000),
  };
}
