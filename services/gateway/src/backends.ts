import { Metadata } from "@grpc/grpc-js";
import { createGrpcClient, createHealthChecker } from "@platform/grpc";
import { AuthServiceClient } from "@platform/proto/auth/v1/auth";
import { IntentsServiceClient } from "@platform/proto/intents/v1/intents";
import { TcServiceClient } from "@platform/proto/tc/v1/tc";
import type { DependencyCheck } from "@platform/runtime";
import type { GatewayConfig } from "./config.js";

export interface Backends {
  auth: AuthServiceClient;
  tc: TcServiceClient;
  /** For calls that must not be repeated by the transport: an acceptance consumes its nonce. */
  tcWrites: TcServiceClient;
  intents: IntentsServiceClient;
  /** One readiness check per backend service: its gRPC health must say SERVING. */
  checks: DependencyCheck[];
  close(): void;
}

interface BackendTarget {
  /** Name in /readyz. */
  name: string;
  target: string;
  /** The gRPC service whose health decides readiness. */
  healthService: string;
}

function targetsOf(config: GatewayConfig): BackendTarget[] {
  return [
    { name: "auth", target: config.AUTH_GRPC_TARGET, healthService: "platform.auth.v1.AuthService" },
    { name: "tc", target: config.TC_GRPC_TARGET, healthService: "platform.tc.v1.TcService" },
    { name: "intents", target: config.INTENTS_GRPC_TARGET, healthService: "platform.intents.v1.IntentsService" },
    { name: "data-accounts", target: config.DATA_ACCOUNTS_GRPC_TARGET, healthService: "" },
    { name: "data-market", target: config.DATA_MARKET_GRPC_TARGET, healthService: "" },
    { name: "data-subnets", target: config.DATA_SUBNETS_GRPC_TARGET, healthService: "" },
  ];
}

/** gRPC clients for every backend, with default deadlines, plus their health checks. */
export function connectBackends(config: GatewayConfig): Backends {
  const targets = targetsOf(config);
  const checkers = targets.map((target) => ({ target, checker: createHealthChecker(target.target) }));
  const auth = createGrpcClient(AuthServiceClient, { target: config.AUTH_GRPC_TARGET, deadlineMs: config.GRPC_DEADLINE_MS, unavailableRetries: 2 });
  const tc = createGrpcClient(TcServiceClient, { target: config.TC_GRPC_TARGET, deadlineMs: config.GRPC_DEADLINE_MS, unavailableRetries: 2 });
  const tcWrites = createGrpcClient(TcServiceClient, { target: config.TC_GRPC_TARGET, deadlineMs: config.GRPC_DEADLINE_MS });
  // No automatic retry: a notification is a write; the client retries it (it is idempotent).
  const intents = createGrpcClient(IntentsServiceClient, { target: config.INTENTS_GRPC_TARGET, deadlineMs: config.GRPC_DEADLINE_MS });
  return {
    auth,
    tc,
    tcWrites,
    intents,
    checks: checkers.map(({ target, checker }) => ({
      name: `grpc:${target.name}`,
      probe: async () => (await checker.check(target.healthService, 1_000)) === "SERVING",
    })),
    close() {
      auth.close();
      tc.close();
      tcWrites.close();
      intents.close();
      for (const { checker } of checkers) checker.close();
    },
  };
}

/**
 * gRPC metadata for a call made on behalf of an HTTP request: the request id (logs) and the
 * authenticated API key id (audit records), never the token itself.
 */
export function callMetadata(requestId: string, apiKeyId?: string): Metadata {
  const metadata = new Metadata();
  if (requestId) metadata.set("x-request-id", requestId);
  if (apiKeyId) metadata.set("x-api-key-id", apiKeyId);
  return metadata;
}
