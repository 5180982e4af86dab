/**
 * bench/grpc-clients: the gateway's gRPC unary client against the alternatives, side by side in one
 * run (issue 16 item 7).
 *
 * Two backends (server.ts, each its own process, the real startGrpcServer) answer
 * AccountsService.GetBalanceLatest with a fixed 1.9 KB balance. From this process, each client makes
 * closed-loop calls spread round-robin over both, at 16 and 128 in flight:
 * - grpc-js: its generated client with the round_robin policy (the baseline: what the clients were
 *   before libs/grpc/src/unary);
 * - connect-node: @connectrpc/connect-node's gRPC transport (HTTP/2), one per backend, taken in turn
 *   (the thin round-robin);
 * - ours: libs/grpc's unary channel through callUnary, one call a stream;
 * - ours, batched: the same with the calls of one event-loop turn to one backend in one stream
 *   (CallBatchService), as the gateway runs it.
 * Each client runs twice, interleaved (A B C D A B C D), and keeps its better run; the figures are
 * calls a second, p50 / p99 latency and this process's CPU per call, with ratios to grpc-js.
 *
 * Run: `cd bench && pnpm grpc-clients` (knobs: BENCH_GRPC_SECONDS, 5 a run).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createFileRegistry, type DescService, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { credentials, Metadata } from "@grpc/grpc-js";
import { callUnary, createGrpcClient } from "@platform/grpc";
import { AccountsServiceClient, type GetBalanceLatestRequest } from "@platform/proto/data/v1/accounts";

const SECONDS = Number(process.env.BENCH_GRPC_SECONDS ?? 5);
const CONCURRENCY = [16, 128];
const DEADLINE_MS = 5_000;
const here = fileURLToPath(new URL(".", import.meta.url));
const root = join(here, "..", "..");
const request: GetBalanceLatestRequest = {
  address: "5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty",
  valuation: 0,
  netuids: [],
};

type Call = () => Promise<unknown>;
interface Client {
  name: string;
  call: Call;
  close(): void;
}
interface Figures {
  client: string;
  inFlight: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuUsPerCall: number;
}

const servers = await Promise.all([startServer(), startServer()]);
try {
  const ports = servers.map((server) => server.port);
  const clients = [grpcJsClient(ports), await connectClient(ports), ourClient(ports, false), ourClient(ports, true)];
  for (const client of clients) await client.call(); // each answers before anything is timed
  const results: Figures[] = [];
  for (const inFlight of CONCURRENCY) {
    const best = new Map<string, Figures>();
    for (let round = 0; round < 2; round += 1) {
      for (const client of clients) {
        const figures = await measure(client, inFlight);
        const kept = best.get(client.name);
        if (kept === undefined || figures.perSecond > kept.perSecond) best.set(client.name, figures);
      }
    }
    results.push(...best.values());
  }
  for (const client of clients) client.close();
  report(results);
} finally {
  for (const server of servers) server.process.kill();
}

function grpcJsClient(ports: number[]): Client {
  const client = new AccountsServiceClient(
    `ipv4:${ports.map((port) => `127.0.0.1:${port}`).join(",")}`,
    credentials.createInsecure(),
    {
      "grpc.service_config": JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
      "grpc.enable_channelz": 0,
    },
  );
  return {
    name: "grpc-js",
    call: () =>
      new Promise((resolve, reject) =>
        client.getBalanceLatest(request, new Metadata(), { deadline: Date.now() + DEADLINE_MS }, (error, answer) =>
          error ? reject(error) : resolve(answer),
        ),
      ),
    close: () => client.close(),
  };
}

async function connectClient(ports: number[]): Promise<Client> {
  const service = await accountsServiceDescriptor();
  // Typed from a descriptor read at run time, the client's methods are not known to the compiler.
  type GetBalanceLatest = (input: GetBalanceLatestRequest, options: { timeoutMs: number }) => Promise<unknown>;
  const clients = ports.map(
    (port) =>
      createClient(service, createGrpcTransport({ baseUrl: `http://127.0.0.1:${port}` })) as unknown as {
        getBalanceLatest: GetBalanceLatest;
      },
  );
  let next = 0;
  return {
    name: "connect-node",
    call: () => {
      const client = clients[next]!;
      next = (next + 1) % clients.length;
      return client.getBalanceLatest(request, { timeoutMs: DEADLINE_MS });
    },
    close: () => undefined,
  };
}

function ourClient(ports: number[], batchCalls: boolean): Client {
  const client = createGrpcClient(AccountsServiceClient, {
    target: `ipv4:${ports.map((port) => `127.0.0.1:${port}`).join(",")}`,
    deadlineMs: DEADLINE_MS,
    batchCalls,
  });
  return {
    name: batchCalls ? "ours, batched" : "ours",
    call: () => callUnary(client, client.getBalanceLatest, request, new Metadata()),
    close: () => client.close(),
  };
}

/** AccountsService as protobuf-es describes it, from a descriptor set buf builds from proto/. */
async function accountsServiceDescriptor(): Promise<DescService> {
  const dir = join(tmpdir(), `bench-grpc-clients-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    const image = join(dir, "image.binpb");
    execFileSync(join(root, "node_modules", ".bin", "buf"), ["build", "-o", image], { cwd: root });
    const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync(image)));
    const service = registry.getService("platform.data.v1.AccountsService");
    if (service === undefined) throw new Error("AccountsService is not in the descriptor set buf built");
    return service;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(client: Client, inFlight: number): Promise<Figures> {
  const latencies: number[] = [];
  const until = performance.now() + SECONDS * 1_000;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < until) {
        const at = performance.now();
        await client.call();
        latencies.push(performance.now() - at);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1_000;
  const used = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  const at = (quantile: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * quantile))] ?? 0;
  return {
    client: client.name,
    inFlight,
    perSecond: latencies.length / elapsed,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    cpuUsPerCall: (used.user + used.system) / latencies.length,
  };
}

function report(results: Figures[]): void {
  const lines = [
    `gRPC unary clients, ${SECONDS} s a run, best of 2, two backends round-robin (${new Date().toISOString()})`,
    "| client | in flight | calls/s | ratio | p50 ms | p99 ms | client CPU µs/call | ratio |",
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const figures of results) {
    const baseline = results.find((other) => other.client === "grpc-js" && other.inFlight === figures.inFlight)!;
    lines.push(
      `| ${figures.client} | ${figures.inFlight} | ${figures.perSecond.toFixed(0)} | ${(figures.perSecond / baseline.perSecond).toFixed(2)} | ${figures.p50Ms.toFixed(2)} | ${figures.p99Ms.toFixed(2)} | ${figures.cpuUsPerCall.toFixed(0)} | ${(figures.cpuUsPerCall / baseline.cpuUsPerCall).toFixed(2)} |`,
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
  const results_dir = join(here, "..", "results");
  mkdirSync(results_dir, { recursive: true });
  const file = join(results_dir, `grpc-clients-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, `${JSON.stringify({ seconds: SECONDS, results }, null, 2)}\n`);
  process.stdout.write(`figures: ${file}\n`);
}

async function startServer(): Promise<{ port: number; process: ChildProcess }> {
  const child = spawn(process.execPath, ["--import", "tsx", "--conditions=@platform/source", join(here, "server.ts")], {
    cwd: here,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    const port = Number(line.trim());
    if (Number.isInteger(port) && port > 0) return { port, process: child };
  }
  throw new Error("a bench backend exited before it printed its port");
}
