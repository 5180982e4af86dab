import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type PortPlan,
  type RunningStack,
  repoRoot,
  type ServiceRuntime,
  serviceCommand,
  serviceProcessSpecs,
} from "@platform/local-stack";
import { type ManagedProcess, spawnManaged, waitFor } from "@platform/testing";

export type Restartable = "chain-ingestor" | "projector";

/**
 * Stops and starts the stack's chain-ingestor and projector by hand (a backlog is made while they
 * are down), with the environment the stack gave them; each start logs to a file of its own.
 */
export function serviceControl(stack: RunningStack, ports: PortPlan, stateDir: string, runtime: ServiceRuntime) {
  const running = new Map<Restartable, ManagedProcess | undefined>([
    ["chain-ingestor", stack.processes.get("chain-ingestor")],
    ["projector", stack.processes.get("projector")],
  ]);
  const infra = {
    ...stack.descriptor.infrastructure,
    chainsFile: join(stateDir, "chains.json"),
    secretsDir: join(stateDir, "secrets"),
  };
  let starts = 0;

  return {
    async stop(name: Restartable): Promise<void> {
      await running.get(name)?.stop();
      running.set(name, undefined);
    },
    /**
     * Starts the service and answers its log file at once: the bench times the work from the
     * service's own log lines, and readiness (which a backlog delays) is not waited for.
     */
    start(name: Restartable, logLevel: string): string {
      const spec = serviceProcessSpecs(ports, infra, logLevel).find((entry) => entry.name === name)!;
      const { command, args } = serviceCommand(repoRoot, name, runtime);
      const logFile = join(stateDir, "logs", `${name}-bench-${++starts}.log`);
      // BENCH_CPU_PROFILE=<dir> writes a V8 CPU profile of each restarted service there when it stops;
      // BENCH_PROJECTOR_CPU_PROFILE=<dir> only the projector's (summarise with profileSummary.ts).
      const dir =
        process.env.BENCH_CPU_PROFILE || (name === "projector" ? process.env.BENCH_PROJECTOR_CPU_PROFILE : undefined);
      const profile = dir
        ? ["--cpu-prof", `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}-${starts}-${Date.now()}.cpuprofile`]
        : [];
      // BENCH_PROJECTOR_PROJECTIONS=intents runs the projector as its production Deployment does (one
      // projection per process) instead of the local stack's four in one.
      const projections = name === "projector" ? process.env.BENCH_PROJECTOR_PROJECTIONS : undefined;
      const env = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NODE_ENV: "production",
        ...spec.env,
        ...(projections ? { PROJECTIONS: projections } : {}),
      };
      const handle = spawnManaged({ name, command, args: [...profile, ...args], logFile, cwd: repoRoot, env });
      running.set(name, handle);
      return logFile;
    },
    async stopAll(): Promise<void> {
      for (const name of running.keys()) await this.stop(name).catch(() => undefined);
    },
  };
}

export type ServiceControl = ReturnType<typeof serviceControl>;

export interface LogLine {
  msg?: string;
  time?: string;
  [field: string]: unknown;
}

/** The JSON lines of a service's log file so far (anything else in it is skipped). */
export function readLogLines(file: string): LogLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line) => {
      if (!line.startsWith("{")) return [];
      try {
        return [JSON.parse(line) as LogLine];
      } catch {
        return [];
      }
    });
}

/** Waits for the first log line matching `match` and answers its time (ms since the epoch). */
export async function logTime(
  file: string,
  what: string,
  match: (line: LogLine) => boolean,
  timeoutMs = 120_000,
): Promise<number> {
  return waitFor(
    async () => {
      const line = readLogLines(file).find(match);
      return line?.time === undefined ? undefined : Date.parse(line.time);
    },
    { what, timeoutMs, intervalMs: 50 },
  );
}
