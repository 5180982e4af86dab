import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import type { OutgoingRecord } from "@platform/bus";
import { createLogger } from "@platform/log";
import type { Client } from "viem";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createNotifiedTxWatcher } from "./notifiedTxWatcher.js";
import { watcherClient } from "./watcherClient.js";

/*
 * What one notification of a transaction that never comes costs the node, on a fake clock with a
 * fake node: the watcher's look-ups back off, and how many it follows is bounded in all and per key.
 */

const log = createLogger({
  service: "watcher-test",
  level: "silent",
  destination: new Writable({ write: (_c, _e, callback) => callback() }),
});
const hash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
const SETTLER = "0x00000000000000000000000000000000000000aa" as const;

/** A node that never mines anything: every receipt look-up answers null, and is counted. */
function emptyNode() {
  const calls: string[] = [];
  const client = { request: async ({ method }: { method: string }) => (calls.push(method), null) } as unknown as Client;
  return { calls, client };
}

describe("notified transaction watcher", () => {
  beforeEach(() => vi.useFakeTimers({ now: new Date("2026-01-01T00:00:00Z") }));
  afterEach(() => vi.useRealTimers());

  it("looks up a never-mined transaction with exponential backoff: 16 receipt look-ups in 10 minutes, not 600", async () => {
    const node = emptyNode();
    const published: OutgoingRecord[] = [];
    const watcher = createNotifiedTxWatcher({
      chains: [
        {
          chainId: 31337,
          client: node.client,
          settler: SETTLER,
          publish: async (record) => void published.push(record),
        },
      ],
      // The production settings: NOTIFIED_TX_DROP_AFTER_SECONDS=600, INGEST_POLL_INTERVAL_MS=1000.
      dropAfterMs: 600_000,
      retryIntervalMs: 1_000,
      log,
    });
    watcher.handle({ chainId: "31337", txHash: hash(1), apiKeyId: "key-a" });
    // Repeated hints do not undo the backoff.
    for (let second = 0; second < 30; second++) {
      watcher.handle({ chainId: "31337", txHash: hash(1), apiKeyId: "key-a" });
      await vi.advanceTimersByTimeAsync(1_000);
    }
    await vi.advanceTimersByTimeAsync(600_000);
    const lookups = node.calls.filter((method) => method === "eth_getTransactionReceipt").length;
    // 0, 1, 3, 7, 15, 31, 63 s, then every 60 s to the end of the window (600 s): 16.
    expect(lookups).toBe(16);
    expect(published.map((record) => record.eventType)).toEqual(["NotifiedTxResolved"]);
    expect(watcher.tracked()).toBe(0);
    watcher.stop();
  });

  it("follows at most maxTrackedPerKey transactions per API key and maxTracked in all", async () => {
    const node = emptyNode();
    const watcher = createNotifiedTxWatcher({
      chains: [{ chainId: 31337, client: node.client, settler: SETTLER, publish: async () => undefined }],
      dropAfterMs: 600_000,
      retryIntervalMs: 1_000,
      maxTracked: 25,
      maxTrackedPerKey: 10,
      log,
    });
    for (let n = 0; n < 50; n++) watcher.handle({ chainId: 31337, txHash: hash(n), apiKeyId: "flooder" });
    expect(watcher.tracked()).toBe(10);
    // Another key still gets its notifications followed, up to the total.
    for (let n = 100; n < 110; n++) watcher.handle({ chainId: 31337, txHash: hash(n), apiKeyId: "honest" });
    expect(watcher.tracked()).toBe(20);
    // Hints without a key (an older gateway) share one count.
    for (let n = 200; n < 220; n++) watcher.handle({ chainId: 31337, txHash: hash(n) });
    expect(watcher.tracked()).toBe(25);
    await vi.advanceTimersByTimeAsync(0);
    // The flooder's 40 refused hints cost the node nothing.
    expect(node.calls.length).toBe(25);
    watcher.stop();
  });
});

describe("watcher client", () => {
  let server: Server;
  let url: string;
  let received = 0;
  beforeEach(async () => {
    received = 0;
    server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        received += 1;
        const { id } = JSON.parse(body) as { id: number };
        response.setHeader("content-type", "application/json");
        response.end(JSON.stringify({ jsonrpc: "2.0", id, result: null }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  it("holds the watcher's look-ups to its own request rate on a real HTTP server", async () => {
    const chain = {
      name: "origin",
      chainId: 31337,
      rpcUrl: url,
      roles: ["origin"],
      blockTimeMs: 1_000,
      finality: { safeDepth: 0, finalizedDepth: 0 },
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpc: { timeoutMs: 2_000, retryCount: 3, retryDelayMs: 10 },
      contracts: {},
    } as const;
    const client = watcherClient({ ...chain, roles: [...chain.roles], contracts: {} }, { requestsPerSecond: 40 });
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 60 }, (_, n) =>
        client.request({ method: "eth_getTransactionReceipt", params: [hash(n) as `0x${string}`] }),
      ),
    );
    const seconds = (performance.now() - started) / 1_000;
    expect(received).toBe(60);
    // 40 at once, then 40 a second: the other 20 take about half a second.
    expect(seconds).toBeGreaterThan(0.4);
    expect(seconds).toBeLessThan(2);
  });
});
