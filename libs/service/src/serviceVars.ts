import { vars } from "@platform/config";

/** Variables every backend service reads; each service adds its own beside these. */
export const serviceVars = {
  GRPC_HOST: vars.string().default("127.0.0.1"),
  GRPC_PORT: vars.port().default(50051),
  OPS_HOST: vars.string().default("127.0.0.1"),
  /** /healthz, /readyz and /metrics. */
  OPS_PORT: vars.port().default(9464),
  LOG_LEVEL: vars.logLevel().default("info"),
  /** How often dependencies are probed for readiness. */
  READINESS_INTERVAL_MS: vars.positiveInt().default(1_000),
  SHUTDOWN_TIMEOUT_MS: vars.positiveInt().default(15_000),
};
