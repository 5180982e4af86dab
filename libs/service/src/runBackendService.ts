import { type GrpcServiceRegistration, startGrpcServer } from "@platform/grpc";
import type { Logger } from "@platform/log";
import {
  type DependencyCheck,
  exportReadinessMetrics,
  handleShutdown,
  type Readiness,
  type ShutdownStep,
  startOpsServer,
  watchDependencies,
} from "@platform/runtime";
import type { Registry } from "prom-client";

export interface BackendServiceSpec {
  name: string;
  log: Logger;
  registry: Registry;
  grpc: { host: string; port: number; services: GrpcServiceRegistration[] };
  /** Services served on a second listener, out of the callers' reach (auth's key administration). */
  adminGrpc?: { host: string; port: number; services: GrpcServiceRegistration[] };
  ops: { host: string; port: number };
  dependencies: DependencyCheck[];
  readinessIntervalMs: number;
  shutdownTimeoutMs: number;
  /** Background work (consumers, followers) stopped after the gRPC server drained, in order. */
  stops: ShutdownStep[];
}

export interface RunningBackendService {
  grpcPort: number;
  adminGrpcPort: number | undefined;
  opsPort: number;
  readiness: Readiness;
  shutdown(reason: string): Promise<void>;
}

/**
 * The life of every backend process: gRPC server with health, an operations port, readiness
 * derived from its dependencies (gRPC health follows it), and an orderly stop on SIGTERM:
 * NOT_SERVING first, drain calls, stop background work, close connections, exit 0.
 */
export async function runBackendService(spec: BackendServiceSpec): Promise<RunningBackendService> {
  const readiness = watchDependencies(spec.dependencies, spec.readinessIntervalMs);
  exportReadinessMetrics(readiness, spec.registry);
  const grpc = await startGrpcServer({
    host: spec.grpc.host,
    port: spec.grpc.port,
    services: spec.grpc.services,
    registry: spec.registry,
  });
  // Not counted in the registry: its metric names are the main server's, and admin calls are rare.
  const admin =
    spec.adminGrpc &&
    (await startGrpcServer({
      host: spec.adminGrpc.host,
      port: spec.adminGrpc.port,
      services: spec.adminGrpc.services,
    }));
  const ops = await startOpsServer({ host: spec.ops.host, port: spec.ops.port, readiness, registry: spec.registry });

  readiness.onChange((snapshot) => {
    grpc.setServing(snapshot.ready);
    admin?.setServing(snapshot.ready);
    const down = Object.entries(snapshot.checks)
      .filter(([, state]) => !state.ok)
      .map(([name]) => name);
    if (snapshot.ready) spec.log.info("ready: every dependency answers");
    else spec.log.warn({ down }, "not ready: dependencies not answering");
  });

  const shutdown = handleShutdown(
    spec.log,
    [
      { name: "grpc", run: () => grpc.shutdown(Math.max(1_000, spec.shutdownTimeoutMs - 5_000)) },
      ...(admin ? [{ name: "admin-grpc", run: () => admin.shutdown(1_000) }] : []),
      { name: "readiness", run: () => readiness.stop() },
      ...spec.stops,
      { name: "ops", run: () => ops.close() },
    ],
    spec.shutdownTimeoutMs,
  );

  spec.log.info({ grpcPort: grpc.port, adminGrpcPort: admin?.port, opsPort: ops.port }, `${spec.name} started`);
  return { grpcPort: grpc.port, adminGrpcPort: admin?.port, opsPort: ops.port, readiness, shutdown };
}
