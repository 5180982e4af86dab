import { type Client, credentials, makeGenericClientConstructor, type ServiceError } from "@grpc/grpc-js";
import { service as healthService } from "grpc-health-check";

export type HealthStatus = "SERVING" | "NOT_SERVING" | "UNKNOWN" | "SERVICE_UNKNOWN" | "UNREACHABLE";

const HealthClient = makeGenericClientConstructor(healthService, "Health");

type HealthCheck = (
  request: { service: string },
  options: { deadline: number },
  callback: (error: ServiceError | null, response?: { status: string | number }) => void,
) => void;

/** A long-lived grpc.health.v1 client for one target; `check` never throws. */
export function createHealthChecker(target: string): {
  check(service: string, timeoutMs: number): Promise<HealthStatus>;
  close(): void;
} {
  const client: Client = new HealthClient(target, credentials.createInsecure(), {
    "grpc.initial_reconnect_backoff_ms": 200,
    "grpc.max_reconnect_backoff_ms": 1_000,
  });
  const check = (client as unknown as { check: HealthCheck }).check.bind(client);
  return {
    check(service, timeoutMs) {
      return new Promise((resolve) => {
        check({ service }, { deadline: Date.now() + timeoutMs }, (error, response) => {
          if (error) {
            resolve(error.code === 5 ? "SERVICE_UNKNOWN" : "UNREACHABLE");
            return;
          }
          const value = response?.status;
          resolve(
            value === "SERVING" || value === 1
              ? "SERVING"
              : value === "NOT_SERVING" || value === 2
                ? "NOT_SERVING"
                : "UNKNOWN",
          );
        });
      });
    },
    close: () => client.close(),
  };
}
