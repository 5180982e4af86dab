import { join } from "node:path";
import {
  freePorts,
  type PortPlan,
  type RunningStack,
  repoRoot,
  serviceCommand,
  serviceProcessSpecs,
} from "@platform/local-stack";
import { type ManagedProcess, spawnManaged, waitFor } from "@platform/testing";

export interface ServingPairOptions {
  stack: RunningStack;
  /** The stack's port plan: the pair's gateway calls the stack's auth, tc and intents. */
  ports: PortPlan;
  stateDir: string;
  /** Names the pair's processes and log files (`gateway-<name>`, `data-query-<name>`). */
  name: string;
  /** More environment for both, over the stack's own for each (credentials, OTEL_*). */
  env?: Record<string, string>;
  /** Node flags before each one's entry point (`--cpu-prof`, …); each gets its own by service name. */
  nodeArgs?: (service: "data-query" | "gateway") => string[];
  /** The built tree the pair runs from (its `services/<name>/dist`); this one by default. */
  root?: string;
}

export interface ServingPair {
  /** The pair's gateway. */
  baseUrl: string;
  pids: { gateway: number; "data-query": number };
  /** SIGTERM to both, gateway first; resolves once both exited (V8 writes profiles on exit). */
  stop(): Promise<void>;
}

/**
 * A second gateway and data-query from dist beside the stack's own, on the stack's Redis, NATS and
 * other backends, with the stack's environment for each but its own ports: a pair the bench can
 * start with flags or credentials the stack's processes cannot take (their command line is fixed).
 */
export async function startServingPair(options: ServingPairOptions): Promise<ServingPair> {
  const { stack, stateDir } = options;
  const own = await freePorts();
  const infra = {
    ...stack.descriptor.infrastructure,
    chainsFile: join(stateDir, "chains.json"),
    secretsDir: join(stateDir, "secrets"),
  };
  const specs = serviceProcessSpecs(options.ports, infra, "warn");
  const specOf = (name: string) => specs.find((spec) => spec.name === name)!;
  const dataQueryTarget = `127.0.0.1:${own.dataQueryGrpc}`;
  const started: ManagedProcess[] = [];
  const spawn = (name: "data-query" | "gateway", env: Record<string, string>) => {
    const root = options.root ?? repoRoot;
    const { command, args } = serviceCommand(root, name, "dist");
    const handle = spawnManaged({
      name: `${name}-${options.name}`,
      command,
      args: [...(options.nodeArgs?.(name) ?? []), ...args],
      cwd: root,
      logFile: join(stateDir, "logs", `${name}-${options.name}.log`),
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production", ...env, ...options.env },
    });
    started.push(handle);
    return handle;
  };
  const stop = async () => {
    for (const handle of [...started].reverse()) await handle.stop();
  };
  try {
    const dataQuery = spawn("data-query", {
      ...specOf("data-query").env,
      GRPC_PORT: String(own.dataQueryGrpc),
      OPS_PORT: String(own.dataQueryOps),
    });
    const baseUrl = `http://127.0.0.1:${own.gateway}`;
    const gateway = spawn("gateway", {
      ...specOf("gateway").env,
      HTTP_PORT: String(own.gateway),
      OPS_PORT: String(own.gatewayOps),
      PUBLIC_BASE_URL: baseUrl,
      DATA_ACCOUNTS_GRPC_TARGET: dataQueryTarget,
      DATA_MARKET_GRPC_TARGET: dataQueryTarget,
      DATA_SUBNETS_GRPC_TARGET: dataQueryTarget,
    });
    await waitFor(async () => (await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.status === 200, {
      what: `the ${options.name} gateway`,
      timeoutMs: 60_000,
    });
    return { baseUrl, pids: { gateway: gateway.pid, "data-query": dataQuery.pid }, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
