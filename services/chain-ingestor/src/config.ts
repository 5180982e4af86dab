import { loadConfigOrExit, vars } from "@platform/config";
import { serviceVars } from "@platform/service";
import { z } from "zod";

export const chainIngestorConfigSchema = z.object({
  ...serviceVars,
  KAFKA_BROKERS: vars.hostPortList(),
  NATS_URL: vars.url(["nats", "tls"]),
  /** Deployment data: the chains to follow and their contracts (deploy/config/<env>/chains.json). */
  CHAINS_FILE: vars.string(),
});

export type ChainIngestorConfig = z.infer<typeof chainIngestorConfigSchema>;

export const loadChainIngestorConfig = (env: NodeJS.ProcessEnv = process.env): ChainIngestorConfig =>
  loadConfigOrExit("chain-ingestor", chainIngestorConfigSchema, env);
