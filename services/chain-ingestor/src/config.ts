import { loadConfigOrExit, natsCredentialVars, vars } from "@platform/config";
import { chainTopicVars, kafkaCredentialVars, kafkaTopicVars, serviceVars } from "@platform/service";
import { z } from "zod";

/** The sources one process can run; each has its own Kafka transactional ids and checkpoints. */
export const INGEST_SOURCES = ["intents", "native", "price"] as const;
export type IngestSource = (typeof INGEST_SOURCES)[number];

export const chainIngestorConfigSchema = z
  .object({
    ...serviceVars,
    /**
     * The sources this process runs, so each can be its own Deployment (one active replica per
     * source); the default runs every source, as the local stack does.
     */
    INGEST_SOURCES: vars
      .list()
      .refine((names) => names.every((name) => (INGEST_SOURCES as readonly string[]).includes(name)), {
        error: `must list sources among ${INGEST_SOURCES.join(", ")}`,
      })
      .transform((names) => [...new Set(names)] as IngestSource[])
      .default([...INGEST_SOURCES]),
    KAFKA_BROKERS: vars.hostPortList(),
    /** Its own Kafka user, both or neither (kafkaCredentialVars); never logged. */
    ...kafkaCredentialVars,
    /** Only the intents source listens to NATS (`intents.notified` hints). Required when INGEST_SOURCES lists intents. */
    NATS_URL: vars.url(["nats", "tls"]).optional(),
    ...natsCredentialVars,
    /**
     * Deployment data: the chains to follow and their contracts (deploy/config/<env>/chains.json).
     * main.ts reads and validates the file at once and exits 78 naming it when it is missing or wrong.
     */
    CHAINS_FILE: vars.string(),
    /** Replication of the topics this service creates; 3 in production, 1 on a single-broker stack. */
    KAFKA_REPLICATION_FACTOR: vars.positiveInt().default(3),
    /** KAFKA_CREATE_TOPICS: create its topics (true, a bare broker) or wait for the topics step (false). */
    ...kafkaTopicVars,
    /** CHAIN_TOPICS_RETENTION_MS: `retention.ms` of chain.network.v1 and oracle.prices.v1 (7 days by default). */
    ...chainTopicVars,
    /** Pause between polls of a caught-up chain: about its block time (250 ms on the 1 s devnet). */
    INGEST_POLL_INTERVAL_MS: vars.positiveInt().default(1_000),
    /** The most blocks read and published in one Kafka transaction while working off a backlog. */
    INGEST_MAX_BLOCKS_PER_BATCH: vars.positiveInt().max(10_000, { error: "must be at most 10000" }).default(500),
    /** A notified transaction not mined this long after its notification is published as DROPPED. */
    NOTIFIED_TX_DROP_AFTER_SECONDS: vars.positiveInt().default(600),
    /** Notified transactions followed at once, in all and per API key; more wait for the block follower. */
    NOTIFIED_TX_MAX_TRACKED: vars.positiveInt().default(1_000),
    NOTIFIED_TX_MAX_TRACKED_PER_KEY: vars.positiveInt().default(20),
    /** Receipt look-ups per second per chain for notified transactions, on their own RPC client. */
    NOTIFIED_TX_RPC_PER_SECOND: vars.positiveInt().default(10),
    /** Native (Substrate) source: the most blocks read and published in one Kafka transaction. */
    NATIVE_MAX_BLOCKS_PER_BATCH: vars.positiveInt().max(1_000, { error: "must be at most 1000" }).default(100),
    /**
     * Native source: where it starts when it has no checkpoint yet (block 0 by default). Finney has
     * millions of blocks; a deployment that needs only recent history starts near the head.
     */
    NATIVE_START_BLOCK: z.coerce
      .number({ error: "must be a block number" })
      .int({ error: "must be a whole block number" })
      .min(0, { error: "must be a block number (0 or more)" })
      .optional(),
    /** Native source: pause between polls once caught up (a new-head notification wakes it sooner). */
    NATIVE_POLL_INTERVAL_MS: vars.positiveInt().default(500),
    /**
     * Native source: blocks between full reads of what it keeps from events (the subnet set, the
     * accounts count, every holder, subnet settings and metagraphs); a day of 12 s blocks by default.
     * A full read of a mainnet-sized state takes tens of seconds, so not much less than an hour.
     */
    NATIVE_RESCAN_EVERY_BLOCKS: vars.positiveInt().default(7_200),
    /**
     * Price source: where it starts when it has no checkpoint yet (block 0 by default). On a long chain
     * (Ethereum) start near the feed's deployment or the head: the first block read publishes the
     * feed's latest round, so the price is there at once.
     */
    PRICE_START_BLOCK: z.coerce
      .number({ error: "must be a block number" })
      .int({ error: "must be a whole block number" })
      .min(0, { error: "must be a block number (0 or more)" })
      .optional(),
  })
  .superRefine((config, context) => {
    if (config.INGEST_SOURCES.includes("intents") && config.NATS_URL === undefined) {
      context.addIssue({
        code: "custom",
        path: ["NATS_URL"],
        message: "is required when INGEST_SOURCES lists intents",
      });
    }
  });

export type ChainIngestorConfig = z.infer<typeof chainIngestorConfigSchema>;

export const loadChainIngestorConfig = (env: NodeJS.ProcessEnv = process.env): ChainIngestorConfig =>
  loadConfigOrExit("chain-ingestor", chainIngestorConfigSchema, env);
