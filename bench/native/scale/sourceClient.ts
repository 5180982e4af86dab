import { type ChildProcess, fork } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** What the source process (sourceProcess.ts) is told. */
export type ToSource =
  | { type: "follow"; id: number; until: number; gcAt?: number; profile?: string }
  | { type: "memory"; id: number; label: string; gc: boolean }
  /** Without a name, starts the CPU profiler; with one, stops it and writes the profile under that name. */
  | { type: "profile"; id: number; name?: string }
  /** Writes a heap snapshot into `dir` (v8.writeHeapSnapshot); answered by "profiled" with its path. */
  | { type: "heap-snapshot"; id: number; dir: string }
  | { type: "stop" };

export interface MemorySample {
  at: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  rss: number;
  /** The process's peak RSS so far (VmHWM). */
  rssPeak: number;
}

/** A chain.network.v1 record as the source would publish it (payload protobuf-encoded). */
export interface BusRecord {
  key: string;
  value: Uint8Array;
  eventType: string;
  eventId: string | undefined;
}

export interface SourceCommit {
  type: "commit";
  id: number;
  blocks: number[];
  /** The step's readBlocks (read ahead during the previous commit in a backlog). */
  readMs: number;
  /** commitNetworkRecords: the payloads encoded. */
  encodeMs: number;
  /** When the records were handed to IPC (Date.now(), this machine's clock). */
  sentAt: number;
  reads: { read: string; calls: number; ms: number; items: number }[];
  records: BusRecord[];
}

/** What the source process says. */
export type FromSource =
  | { type: "ready"; sample: MemorySample }
  | { type: "sample"; sample: MemorySample }
  | { type: "memory"; id: number; label: string; sample: MemorySample }
  | SourceCommit
  | { type: "followed"; id: number; ms: number; steps: number; profile?: string }
  | { type: "profiled"; id: number; profile?: string }
  | { type: "error"; message: string };

export interface SourceConfig {
  rpcUrl: string;
  startBlock: number;
  maxBlocksPerStep: number;
}

export interface SourceClient {
  pid: number;
  /** Every memory sample the process sent (one a second), oldest first. */
  samples: MemorySample[];
  /** Follows the chain until its tip is `until`; `onCommit` gets each step's records as they come. */
  follow(
    until: number,
    options: { onCommit(commit: SourceCommit, receivedAt: number): void; gcAt?: number; profile?: string },
  ): Promise<{ ms: number; steps: number; profile?: string; warm?: MemorySample }>;
  memory(label: string, gc: boolean): Promise<MemorySample>;
  /** Without a name, starts profiling the process's CPU; with one, stops, writes bench/results/<name>.cpuprofile and returns its top functions. */
  profile(name?: string): Promise<string | undefined>;
  heapSnapshot(dir: string): Promise<string | undefined>;
  stop(): Promise<void>;
}

/**
 * Starts sourceProcess.ts (tsx, `--expose-gc`; `maxOldSpaceMb` sets `--max-old-space-size`, the
 * Deployment runs the service without NODE_OPTIONS, so Node sizes its heap from the container's
 * memory limit) and waits until it is connected to the node.
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the client's methods are one object over one child process; split in the bench's next change
export async function startSourceProcess(
  config: SourceConfig & { logFile: string; maxOldSpaceMb?: number },
): Promise<SourceClient> {
  const out = openSync(config.logFile, "a");
  const child: ChildProcess = fork(fileURLToPath(new URL("./sourceProcess.ts", import.meta.url)), [], {
    execArgv: [
      "--import",
      "tsx",
      "--conditions=@platform/source",
      "--expose-gc",
      ...(config.maxOldSpaceMb === undefined ? [] : [`--max-old-space-size=${config.maxOldSpaceMb}`]),
      // BENCH_SCALE_SOURCE_NODE_ARGS: more flags (e.g. --heapsnapshot-near-heap-limit=1 --diagnostic-dir=/tmp/heap).
      ...(process.env.BENCH_SCALE_SOURCE_NODE_ARGS ?? "").split(/\s+/).filter((flag) => flag.length > 0),
    ],
    serialization: "advanced",
    stdio: ["ignore", out, out, "ipc"],
    env: {
      ...process.env,
      BENCH_SCALE_SOURCE_CONFIG: JSON.stringify({
        rpcUrl: config.rpcUrl,
        startBlock: config.startBlock,
        maxBlocksPerStep: config.maxBlocksPerStep,
      } satisfies SourceConfig),
    },
  });
  closeSync(out);
  const samples: MemorySample[] = [];
  let nextId = 1;
  const waiting = new Map<number, (message: FromSource) => void>();
  let commitHandler: ((commit: SourceCommit, receivedAt: number) => void) | undefined;
  let failed: Error | undefined;
  const failures = new Set<(error: Error) => void>();
  const fail = (error: Error) => {
    failed = error;
    for (const reject of failures) reject(error);
  };
  let readyResolve: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (readyResolve = resolve));
  child.on("message", (message: FromSource) => {
    switch (message.type) {
      case "ready":
        samples.push(message.sample);
        readyResolve();
        break;
      case "sample":
        samples.push(message.sample);
        break;
      case "commit":
        commitHandler?.(message, Date.now());
        break;
      case "memory":
      case "followed":
      case "profiled":
        waiting.get(message.id)?.(message);
        break;
      case "error":
        fail(new Error(`the source process failed: ${message.message}`));
        break;
    }
  });
  child.once("exit", (code, signal) =>
    fail(new Error(`the source process exited (${code ?? signal}); see ${config.logFile}`)),
  );
  const guarded = <T>(run: (reject: (error: Error) => void) => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (failed) return reject(failed);
      failures.add(reject);
      run(reject).then(
        (value) => {
          failures.delete(reject);
          resolve(value);
        },
        (error: unknown) => {
          failures.delete(reject);
          reject(error as Error);
        },
      );
    });
  await guarded(() => ready);
  return {
    pid: child.pid!,
    samples,
    follow(until, options) {
      return guarded(async () => {
        const id = nextId++;
        commitHandler = options.onCommit;
        let warm: MemorySample | undefined;
        const done = new Promise<{ ms: number; steps: number; profile?: string }>((resolve) =>
          waiting.set(id, (message) => {
            if (message.type === "memory") warm = message.sample;
            else if (message.type === "followed") resolve(message);
          }),
        );
        child.send({
          type: "follow",
          id,
          until,
          ...(options.gcAt === undefined ? {} : { gcAt: options.gcAt }),
          ...(options.profile === undefined ? {} : { profile: options.profile }),
        } satisfies ToSource);
        const result = await done;
        waiting.delete(id);
        return { ...result, ...(warm === undefined ? {} : { warm }) };
      });
    },
    memory(label, gc) {
      return guarded(async () => {
        const id = nextId++;
        const answer = new Promise<MemorySample>((resolve) =>
          waiting.set(id, (message) => {
            if (message.type === "memory") resolve(message.sample);
          }),
        );
        child.send({ type: "memory", id, label, gc } satisfies ToSource);
        const sample = await answer;
        waiting.delete(id);
        return sample;
      });
    },
    profile(name) {
      return guarded(async () => {
        const id = nextId++;
        const answer = new Promise<string | undefined>((resolve) =>
          waiting.set(id, (message) => {
            if (message.type === "profiled") resolve(message.profile);
          }),
        );
        child.send({ type: "profile", id, ...(name === undefined ? {} : { name }) } satisfies ToSource);
        const profile = await answer;
        waiting.delete(id);
        return profile;
      });
    },
    heapSnapshot(dir) {
      return guarded(async () => {
        const id = nextId++;
        const answer = new Promise<string | undefined>((resolve) =>
          waiting.set(id, (message) => {
            if (message.type === "profiled") resolve(message.profile);
          }),
        );
        child.send({ type: "heap-snapshot", id, dir } satisfies ToSource);
        const path = await answer;
        waiting.delete(id);
        return path;
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      failed = new Error("stopped");
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.send({ type: "stop" } satisfies ToSource);
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
