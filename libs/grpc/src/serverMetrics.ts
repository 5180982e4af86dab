import {
  type ServerUnaryCall,
  type ServiceDefinition,
  type sendUnaryData,
  status,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import { Counter, Histogram, type Registry } from "prom-client";

/**
 * Counts and times every unary call a server answers, labelled by method and gRPC code, so each
 * replica shows on its own /metrics how much traffic reaches it (load spreading is visible, and a
 * replica that came back can be seen taking calls again).
 */
export interface ServerMetrics {
  instrument(
    service: string,
    definition: ServiceDefinition,
    implementation: UntypedServiceImplementation,
  ): UntypedServiceImplementation;
}

const CODE_NAMES = new Map<number, string>(
  Object.entries(status)
    .filter(([, value]) => typeof value === "number")
    .map(([name, value]) => [value as number, name]),
);

export function createServerMetrics(registry: Registry): ServerMetrics {
  const handled = new Counter({
    name: "grpc_server_handled_total",
    help: "Unary calls answered, by service, method and gRPC code.",
    labelNames: ["grpc_service", "grpc_method", "grpc_code"],
    registers: [registry],
  });
  const seconds = new Histogram({
    name: "grpc_server_handling_seconds",
    help: "Time from a unary call's arrival to its answer.",
    labelNames: ["grpc_service", "grpc_method"],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return {
    instrument(service, definition, implementation) {
      const wrapped: UntypedServiceImplementation = { ...implementation };
      for (const [method, handler] of Object.entries(implementation)) {
        const spec = definition[method];
        if (!spec || spec.requestStream || spec.responseStream || typeof handler !== "function") continue;
        const unary = handler as (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void;
        const labels = { grpc_service: service, grpc_method: method };
        wrapped[method] = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
          const stopTimer = seconds.startTimer(labels);
          unary(call, (error, value, trailer, flags) => {
            stopTimer();
            const code = error ? (error.code ?? status.UNKNOWN) : status.OK;
            handled.inc({ ...labels, grpc_code: CODE_NAMES.get(code) ?? String(code) });
            callback(error, value, trailer, flags);
          });
        };
      }
      return wrapped;
    },
  };
}
