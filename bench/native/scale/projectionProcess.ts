/**
 * One projector projection of chain.network.v1 in a process of its own, as each runs in its own
 * Deployment (projector-accounts, projector-market, projector-subnets): readModels.ts starts one per
 * projection and hands it the consumer's batches over IPC; it answers each with the time its
 * `handleBatch` took (the Redis commit included). BENCH_SCALE_PROJECTION: `{name, redisUrl}`.
 */
import { Writable } from "node:stream";
import type { ProjectionBatch } from "@platform/bus";
import { createLogger } from "@platform/log";
import { createRedis } from "@platform/store";
import { accountsProjection } from "../../../services/projector/src/accounts/projection.js";
import { marketProjection } from "../../../services/projector/src/market/projection.js";
import { subnetsProjection } from "../../../services/projector/src/subnets/projection.js";
import { startProfiler } from "./profile.js";

export type ProjectionName = "accounts" | "market" | "subnets";

export type ToProjection =
  | { type: "batch"; id: number; batch: Omit<ProjectionBatch, "heartbeat"> }
  | { type: "profile"; id: number; name?: string }
  | { type: "stop" };

export type FromProjection =
  | { type: "ready" }
  | { type: "done"; id: number; ms: number; heapUsed: number; rss: number }
  | { type: "profiled"; id: number; profile?: string }
  | { type: "error"; id: number; message: string };

const config = JSON.parse(process.env.BENCH_SCALE_PROJECTION ?? "{}") as { name: ProjectionName; redisUrl: string };
const log = createLogger({
  service: `bench-scale-${config.name}`,
  level: "warn",
  destination: new Writable({ write: (_c, _e, callback) => callback() }),
});
const redis = createRedis({
  url: config.redisUrl,
  connectionName: `bench-scale-${config.name}`,
  commandTimeoutMs: 300_000,
});
const projection =
  config.name === "accounts"
    ? accountsProjection({ redis, log })
    : config.name === "market"
      ? marketProjection({ redis, log })
      : subnetsProjection({ redis, log });
const send = (message: FromProjection) =>
  new Promise<void>((resolve, reject) =>
    process.send!(message, (error: Error | null) => (error ? reject(error) : resolve())),
  );
let profiler: Awaited<ReturnType<typeof startProfiler>> | undefined;

process.on("message", (message: ToProjection) => {
  void handle(message);
});
while (redis.status !== "ready") await new Promise((resolve) => setTimeout(resolve, 20));
await send({ type: "ready" });

async function handle(message: ToProjection): Promise<void> {
  switch (message.type) {
    case "batch": {
      const started = performance.now();
      try {
        // IPC gives plain Uint8Arrays: the consumer hands Buffers.
        const messages = message.batch.messages.map((record) => ({
          ...record,
          value:
            record.value === null
              ? null
              : Buffer.from(record.value.buffer, record.value.byteOffset, record.value.byteLength),
        }));
        await projection.handleBatch({ ...message.batch, messages, heartbeat: async () => undefined });
        const { heapUsed, rss } = process.memoryUsage();
        await send({ type: "done", id: message.id, ms: performance.now() - started, heapUsed, rss });
      } catch (error) {
        await send({ type: "error", id: message.id, message: (error as Error).stack ?? String(error) });
      }
      return;
    }
    case "profile": {
      if (message.name === undefined) {
        profiler = await startProfiler();
        await send({ type: "profiled", id: message.id });
      } else {
        const profile = await profiler?.stop(message.name);
        profiler = undefined;
        await send({ type: "profiled", id: message.id, ...(profile === undefined ? {} : { profile }) });
      }
      return;
    }
    case "stop":
      redis.disconnect();
      process.exit(0);
  }
}
