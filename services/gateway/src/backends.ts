import { Metadata } from "@grpc/grpc-js";
import { createGrpcClient, createHealthChecker, type GrpcClientOptions } from "@platform/grpc";
import type { RequestContext } from "@platform/http";
import { AuthServiceClient } from "@platform/proto/auth/v1/auth";
import { AccountsServiceClient } from "@platform/proto/data/v1/accounts";
import { DataEventsServiceClient } from "@platform/proto/data/v1/events";
import { MarketServiceClient } from "@platform/proto/data/v1/market";
import { SubnetsServiceClient } from "@platform/proto/data/v1/subnets";
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
  /** Data API reads; each group may live in its own deployment, hence one client per service. */
  accounts: AccountsServiceClient;
  market: MarketServiceClient;
  subnets: SubnetsServiceClient;
  /** The data event streams (data-query's `events` group). */
  dataEvents: DataEventsServiceClient;
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
    {
      name: "data-accounts",
      target: config.DATA_ACCOUNTS_GRPC_TARGET,
      healthService: "platform.data.v1.AccountsService",
    },
    { name: "data-market", target: config.DATA_MARKET_GRPC_TARGET, healthService: "platform.data.v1.MarketService" },
    { name: "data-subnets", target: config.DATA_SUBNETS_GRPC_TARGET, healthService: "platform.data.v1.SubnetsService" },
  ];
}

/** gRPC clients for every backend, with default deadlines, plus their health checks. */
export function connectBackends(config: GatewayConfig): Backends {
  const targets = targetsOf(config);
  const checkers = targets.map((target) => ({ target, checker: createHealthChecker(target.target) }));
  const options = (target: string, unavailableRetries = 0): GrpcClientOptions => ({
    target,
    deadlineMs: config.GRPC_DEADLINE_MS,
    batchCalls: config.GRPC_BATCH_CALLS,
    unavailableRetries,
  });
  const auth = createGrpcClient(AuthServiceClient, options(config.AUTH_GRPC_TARGET, 2));
  const tc = createGrpcClient(TcServiceClient, options(config.TC_GRPC_TARGET, 2));
  const tcWrites = createGrpcClient(TcServiceClient, options(config.TC_GRPC_TARGET));
  // No automatic retry: a notification is a write; the client retries it (it is idempotent).
  const intents = createGrpcClient(IntentsServiceClient, options(config.INTENTS_GRPC_TARGET));
  // Data API calls are reads: repeating one after UNAVAILABLE cannot change anything.
  const accounts = createGrpcClient(AccountsServiceClient, options(config.DATA_ACCOUNTS_GRPC_TARGET, 2));
  const market = createGrpcClient(MarketServiceClient, options(config.DATA_MARKET_GRPC_TARGET, 2));
  const subnets = createGrpcClient(SubnetsServiceClient, options(config.DATA_SUBNETS_GRPC_TARGET, 2));
  const dataEvents = createGrpcClient(
    DataEventsServiceClient,
    options(config.DATA_EVENTS_GRPC_TARGET ?? config.DATA_MARKET_GRPC_TARGET),
  );
  return {
    auth,
    tc,
    tcWrites,
    intents,
    accounts,
    market,
    subnets,
    dataEvents,
    checks: checkers.map(({ target, checker }) => ({
      name: `grpc:${target.name}`,
      probe: async () => (await checker.check(target.healthService, 1_000)) === "SERVING",
    })),
    close() {
      auth.close();
      tc.close();
      tcWrites.close();
      intents.close();
      accounts.close();
      market.close();
      subnets.close();
      dataEvents.close();
      for (const { checker } of checkers) checker.close();
    },
  };
}

/**
 * gRPC metadata for a call made on behalf of an HTTP request: the request id (logs), the
 * authenticated API key id (audit records), never the token itself, and the request's
 * traceparent when tracing sampled it (the call's client span takes it as its parent).
 */
export function callMetadata(context: Pick<RequestContext, "requestId" | "traceparent">, apiKeyId?: string): Metadata {
  const metadata = new Metadata();
  if (context.requestId) metadata.set("x-request-id", context.requestId);
  if (apiKeyId) metadata.set("x-api-key-id", apiKeyId);
  if (context.traceparent !== undefined) metadata.set("traceparent", context.traceparent);
  return metadata;
}
