import type { KafkaCredentials } from "@platform/bus";
import type { ChainConfig } from "@platform/chain";
import { createKeyConcurrency, type GrpcServiceRegistration } from "@platform/grpc";
import type { Logger } from "@platform/log";
import type { DependencyCheck, ShutdownStep } from "@platform/runtime";
import { projectionStores, sharedKeyConcurrency } from "@platform/service";
import { acceptCommand } from "./acceptance/accept.js";
import { lazyEventPublisher } from "./acceptance/eventPublisher.js";
import type { TcConfig } from "./config.js";
import { type ContractWalletChain, contractWalletChain } from "./siwe/contractWalletChain.js";
import { siweRules } from "./siwe/siweRules.js";
import { type AcceptanceSupervisorOptions, superviseAcceptanceProjection } from "./status/projectionSupervisor.js";
import { tcServiceRegistration } from "./tcService.js";
import type { TcVersions } from "./tcVersions.js";

/** What start-up read from files before any connection was opened. */
export interface TcFiles {
  chains: ChainConfig;
  versions: TcVersions;
  /** tc's own Kafka user (KAFKA_SASL_*); none on a broker without SASL. */
  kafkaCredentials?: KafkaCredentials;
}

export interface TcComponents {
  grpc: GrpcServiceRegistration;
  /** Readiness: Redis, Kafka, and the acceptance projection complete. */
  dependencies: DependencyCheck[];
  /** Stopped in order after the gRPC server drained. */
  stops: ShutdownStep[];
}

export interface TcTuning {
  /** How often the projection marker is checked; 2 s by default. */
  projectionIntervalMs?: number;
  /** Where the acceptance projection's lag metrics go (the process's registry); none without it. */
  metrics?: AcceptanceSupervisorOptions["metrics"];
  now?: () => Date;
}

/**
 * Wires the tc service: connections, the acceptance projection and its supervisor, the lazy
 * Kafka publisher, a contract-wallet reader per allowed chain, and the gRPC service over them.
 * Throws a ConfigError when the files and variables do not fit together (SIWE_CHAIN_IDS naming a
 * chain CHAINS_FILE lacks, …). Nothing here blocks on Kafka, Redis or an RPC: a dependency that
 * is away shows in readiness and in UNAVAILABLE answers, and is picked up when it returns.
 *
 * The chains' RPCs are not readiness dependencies: only contract-wallet acceptances need them,
 * and an RPC outage must not take down status reads, the gate, or EOA acceptances.
 */
export function createTcComponents(config: TcConfig, files: TcFiles, log: Logger, tuning: TcTuning = {}): TcComponents {
  const rules = siweRules(
    config,
    files.versions,
    files.chains.chains.map((chain) => chain.chainId),
  );
  const chains = new Map<number, ContractWalletChain>(
    files.chains.chains
      .filter((chain) => rules.chainIds.includes(chain.chainId))
      .map((chain) => [
        chain.chainId,
        contractWalletChain(chain, {
          maxInFlight: config.CHAIN_READS_MAX_IN_FLIGHT,
          maxQueued: config.CHAIN_READS_MAX_QUEUED,
          maxRetries: 1,
        }),
      ]),
  );

  const stores = projectionStores(config, "tc", "projection", log, files.kafkaCredentials);
  const redis = stores.redis;
  const publisher = lazyEventPublisher(stores.kafka.client, log);
  const projection = superviseAcceptanceProjection({
    ...stores.projection,
    ...(tuning.projectionIntervalMs === undefined ? {} : { intervalMs: tuning.projectionIntervalMs }),
    ...(tuning.metrics === undefined ? {} : { metrics: tuning.metrics }),
  });
  const acceptOnce = acceptCommand({
    redis: redis.client,
    rules,
    chains,
    publisher,
    log,
    ...(tuning.now ? { now: tuning.now } : {}),
  });
  // Before the nonce is consumed: a call refused here keeps its nonce for the retry.
  // Shared by the replicas through Redis (PER_KEY_LIMITS=shared, the default), or per replica.
  const acceptsPerKey =
    config.PER_KEY_LIMITS === "replica"
      ? createKeyConcurrency(config.ACCEPTS_MAX_CONCURRENT_PER_KEY, "acceptances")
      : sharedKeyConcurrency({
          redis: redis.client,
          keyPrefix: "tc",
          limit: config.ACCEPTS_MAX_CONCURRENT_PER_KEY,
          what: "acceptances",
        });
  const accept: typeof acceptOnce = (request, context) =>
    acceptsPerKey.run(context.apiKeyId, () => acceptOnce(request, context));

  log.info(
    {
      currentTcVersion: rules.currentTcVersion,
      domain: rules.domain,
      uri: rules.uri,
      chainIds: rules.chainIds,
      document: rules.document,
    },
    "T&C configuration",
  );
  return {
    grpc: tcServiceRegistration({
      log,
      redis: redis.client,
      rules,
      projection,
      accept,
      ...(tuning.now ? { now: tuning.now } : {}),
    }),
    dependencies: [...stores.checks, projection.check],
    stops: [
      { name: "projection", run: () => projection.stop() },
      { name: "publisher", run: () => publisher.close() },
      ...stores.closes,
    ],
  };
}
