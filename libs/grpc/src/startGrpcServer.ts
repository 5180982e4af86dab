import { Server, ServerCredentials, type ServiceDefinition, type UntypedServiceImplementation } from "@grpc/grpc-js";
import { isTracingEnabled } from "@platform/telemetry";
import { HealthImplementation } from "grpc-health-check";
import type { Registry } from "prom-client";
import { callBatchService } from "./batch/callBatchService.js";
import { createServerMetrics } from "./serverMetrics.js";
import { traceServerCalls } from "./tracing.js";

export interface GrpcServiceRegistration {
  /** Fully qualified name used for per-service health ("platform.tc.v1.TcService"). */
  name: string;
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
}

export interface StartGrpcServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  services: GrpcServiceRegistration[];
  /** When given, every unary call is counted and timed in it (grpc_server_handled_total, grpc_server_handling_seconds). */
  registry?: Registry;
}

export interface RunningGrpcServer {
  port: number;
  /** Sets the health of the whole server ("") and of every registered service. */
  setServing(serving: boolean): void;
  /** Stops taking calls, lets in-flight ones finish within `graceMs`, then forces. */
  shutdown(graceMs?: number): Promise<void>;
}

// Connections are recycled every few minutes so clients re-resolve DNS and spread over new pods.
const SERVER_OPTIONS = {
  "grpc.max_connection_age_ms": 5 * 60_000,
  "grpc.max_connection_age_grace_ms": 30_000,
  "grpc.keepalive_time_ms": 60_000,
  "grpc.keepalive_timeout_ms": 20_000,
  "grpc.http2.min_ping_interval_without_data_ms": 10_000,
  // Nothing serves channelz: no per-call statistics to keep.
  "grpc.enable_channelz": 0,
};

/** A grpc-js server with the standard health service; it starts NOT_SERVING until told otherwise. */
export async function startGrpcServer(options: StartGrpcServerOptions): Promise<RunningGrpcServer> {
  const server = new Server(SERVER_OPTIONS);
  const names = ["", ...options.services.map((service) => service.name)];
  const health = new HealthImplementation(Object.fromEntries(names.map((name) => [name, "NOT_SERVING" as const])));
  health.addToServer(server);
  const metrics = options.registry ? createServerMetrics(options.registry) : undefined;
  const traced = isTracingEnabled();
  const served = options.services.map((service) => {
    const measured = metrics
      ? metrics.instrument(service.name, service.definition, service.implementation)
      : service.implementation;
    // A server span per call, batched ones included (the batch service runs these same wrappers).
    return {
      definition: service.definition,
      implementation: traced ? traceServerCalls(service.definition, measured) : measured,
    };
  });
  for (const service of served) server.addService(service.definition, service.implementation);
  // Clients may send several unary calls in one stream (libs/grpc/src/batch): served by the same
  // implementations, so counted in the same metrics.
  const batches = callBatchService(served);
  server.addService(batches.definition, batches.implementation);

  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${options.host}:${options.port}`, ServerCredentials.createInsecure(), (error, boundPort) =>
      error ? reject(error) : resolve(boundPort),
    );
  });

  return {
    port,
    setServing(serving) {
      for (const name of names) health.setStatus(name, serving ? "SERVING" : "NOT_SERVING");
    },
    async shutdown(graceMs = 10_000) {
      for (const name of names) health.setStatus(name, "NOT_SERVING");
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
