import { loadConfigOrExit, vars } from "@platform/config";
import { serviceVars } from "@platform/service";
import { z } from "zod";

export const intentsGatewayConfigSchema = z.object({
  ...serviceVars,
  REDIS_URL: vars.url(["redis", "rediss"]),
  KAFKA_BROKERS: vars.hostPortList(),
  NATS_URL: vars.url(["nats", "tls"]),
  TC_GRPC_TARGET: vars.string(),
  /** Deployment data: chains, RPC URLs, settler addresses (deploy/config/<env>/chains.json). */
  CHAINS_FILE: vars.string(),
  /** Replication of the topics this service creates; 3 in production, 1 on a single-broker stack. */
  KAFKA_REPLICATION_FACTOR: vars.positiveInt().default(3),
});

export type IntentsGatewayConfig = z.infer<typeof intentsGatewayConfigSchema>;

export const loadIntentsGatewayConfig = (env: NodeJS.ProcessEnv = process.env): IntentsGatewayConfig =>
  loadConfigOrExit("intents-gateway", intentsGatewayConfigSchema, env);
