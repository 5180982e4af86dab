import { loadConfigOrExit, redisCredentialVars, redisTopologyRule, redisTopologyVars, vars } from "@platform/config";
import { kafkaCredentialVars, kafkaTopicVars, serviceVars } from "@platform/service";
import { z } from "zod";
import { isSiweDomain, isSiweScheme, isSiweUri } from "./siwe/siweSyntax.js";

/** The statement when SIWE_STATEMENT is not set; `{version}` becomes the current T&C version. */
export const DEFAULT_SIWE_STATEMENT = "I accept the Terms and Conditions version {version}.";

/*
 * Order matters: the first bad variable is the one reported, so the connection settings every
 * deployment has come first and the T&C and SIWE ones after them (TC_CURRENT_VERSION first, which
 * test/e2e configErrors relies on).
 *
 * The SIWE domain, uri, scheme and chain ids come from here and only from here: Accept never takes
 * them from the request, which is what binds a signature to this deployment (EIP-4361 domain binding).
 */
export const tcConfigSchema = z
  .object({
    ...serviceVars,
    /** REDIS_URL, or the cluster or Sentinel nodes (REDIS_MODE): redisTopologyVars. */
    ...redisTopologyVars,
    ...redisCredentialVars,
    KAFKA_BROKERS: vars.hostPortList(),
    /** Its own Kafka user, both or neither (kafkaCredentialVars); never logged. */
    ...kafkaCredentialVars,
    /** Replication of tc.acceptances.v1 when the start-up migration creates it; 1 on a single broker. */
    KAFKA_REPLICATION_FACTOR: vars.positiveInt().default(3),
    /** KAFKA_CREATE_TOPICS: create its topics (true, a bare broker) or wait for the topics step (false). */
    ...kafkaTopicVars,
    /** The T&C version wallets must have accepted to pass the gate. Raising it outdates every acceptance. */
    TC_CURRENT_VERSION: vars.positiveInt(),
    /**
     * Optional JSON file: `{"<version>": {"documentUrl": "https://…", "documentSha256": "<64 hex>"}}`.
     * When given it must describe TC_CURRENT_VERSION; without it versions carry no document metadata.
     */
    TC_VERSIONS_FILE: vars.string().optional(),
    /** Deployment data (deploy/config/<env>/chains.json): the RPC of each chain a message may name. */
    CHAINS_FILE: vars.string(),
    /** The RFC 3986 authority messages must name, e.g. `api.example.com` or `127.0.0.1:8080`. */
    SIWE_DOMAIN: vars
      .string()
      .refine(isSiweDomain, { error: "must be an RFC 3986 authority (host[:port]), e.g. api.example.com" }),
    /** The URI messages must carry exactly, e.g. `https://api.example.com`. */
    SIWE_URI: vars.string().refine(isSiweUri, { error: "must be an RFC 3986 URI, e.g. https://api.example.com" }),
    /** The scheme a message may name before its domain; a message naming none is always fine. */
    SIWE_SCHEME: vars.string().refine(isSiweScheme, { error: "must be a URI scheme such as https" }).optional(),
    /**
     * The statement messages must carry exactly. Placeholders: `{version}`, and `{documentUrl}`,
     * `{documentSha256}` (these need the current version in TC_VERSIONS_FILE).
     */
    SIWE_STATEMENT: vars.string().default(DEFAULT_SIWE_STATEMENT),
    /** Chain ids a message may name; each must be a chain of CHAINS_FILE (contract wallets are checked there). */
    SIWE_CHAIN_IDS: vars
      .list()
      .refine((items) => items.every((item) => /^[1-9][0-9]{0,15}$/.test(item)), {
        error: "must be a comma-separated list of positive chain ids",
      })
      .transform((items) => [...new Set(items.map(Number))]),
    /**
     * Per allowed chain, the JSON-RPC requests of contract-wallet signature checks sent to the node at
     * once, and how many more may wait; beyond, Accept answers 503 UNAVAILABLE. They go to the chain's
     * `preflightRpcUrl` when CHAINS_FILE sets one.
     */
    CHAIN_READS_MAX_IN_FLIGHT: vars.positiveInt().default(16),
    CHAIN_READS_MAX_QUEUED: vars.positiveInt().default(64),
    /** Acceptances one API key may have in progress at once (a contract wallet's check reads its chain); more answer 429. */
    ACCEPTS_MAX_CONCURRENT_PER_KEY: vars.positiveInt().default(4),
    /** Whether that limit holds across every replica (`shared`, a lease per call in Redis) or in each alone (`replica`). */
    PER_KEY_LIMITS: vars.oneOf(["shared", "replica"]).default("shared"),
    /** How long an issued nonce can be used. */
    NONCE_TTL_SECONDS: vars.positiveInt().default(600),
  })
  .superRefine(redisTopologyRule);

export type TcConfig = z.infer<typeof tcConfigSchema>;

export const loadTcConfig = (env: NodeJS.ProcessEnv = process.env): TcConfig =>
  loadConfigOrExit("tc", tcConfigSchema, env);
