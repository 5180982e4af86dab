import type { KafkaCredentials } from "@platform/bus";
import type { GrpcServiceRegistration } from "@platform/grpc";
import type { Logger } from "@platform/log";
import type { DependencyCheck, ShutdownStep } from "@platform/runtime";
import { projectionStores } from "@platform/service";
import type { AuthConfig } from "./config.js";
import type { Pepper } from "./credentials/pepper.js";
import { authAdminServiceRegistration, authServiceRegistration } from "./grpc/authService.js";
import { tokenIssuer } from "./issue/issueToken.js";
import { redisLockout } from "./issue/lockout.js";
import { refreshTokenUses } from "./issue/refreshTokenUse.js";
import { adminCommands } from "./registry/adminCommands.js";
import { lazyEventPublisher } from "./registry/eventPublisher.js";
import { refreshTokenAdmin } from "./registry/refreshTokenAdmin.js";
import { type RegistrySupervisorOptions, superviseRegistry } from "./registry/registrySupervisor.js";
import type { SigningKey } from "./tokens/signingKeyFile.js";
import { watchSigningKeys } from "./tokens/signingKeyStore.js";

/** What start-up read from files before any connection was opened. */
export interface AuthSecrets {
  pepper: Pepper;
  signingKeys: SigningKey[];
  /** auth's own Kafka user (KAFKA_SASL_*); none on a broker without SASL. */
  kafkaCredentials?: KafkaCredentials;
}

export interface AuthComponents {
  grpc: GrpcServiceRegistration;
  /** API-key administration, served on a listener of its own (ADMIN_GRPC_HOST/PORT). */
  adminGrpc: GrpcServiceRegistration;
  /** Readiness: Redis, Kafka, and the registry projection running. */
  dependencies: DependencyCheck[];
  /** Stopped in order after the gRPC server drained. */
  stops: ShutdownStep[];
}

export interface AuthTuning {
  /** How often the registry marker is checked; 2 s by default. */
  registryIntervalMs?: number;
  /** Where the registry projection's lag metrics go (the process's registry); none without it. */
  metrics?: RegistrySupervisorOptions["metrics"];
}

/**
 * Wires the auth service: connections, the registry projection and its supervisor, the lazy
 * Kafka publisher, the signing-key watcher, and the gRPC service over them. Nothing here
 * blocks on Kafka or Redis: a dependency that is away shows in readiness and in UNAVAILABLE
 * answers, and is picked up when it returns.
 */
export function createAuthComponents(
  config: AuthConfig,
  secrets: AuthSecrets,
  log: Logger,
  tuning: AuthTuning = {},
): AuthComponents {
  const stores = projectionStores(config, "auth", "registry", log, secrets.kafkaCredentials);
  const redis = stores.redis;
  const publisher = lazyEventPublisher(stores.kafka.client, log);
  const registry = superviseRegistry({
    ...stores.projection,
    refreshTokensPerKey: config.AUTH_REFRESH_TOKENS_PER_KEY,
    ...(tuning.registryIntervalMs === undefined ? {} : { intervalMs: tuning.registryIntervalMs }),
    ...(tuning.metrics === undefined ? {} : { metrics: tuning.metrics }),
  });
  const signingKeys = watchSigningKeys(config.AUTH_SIGNING_KEYS_DIR, secrets.signingKeys, {
    intervalMs: config.AUTH_SIGNING_KEYS_RELOAD_MS,
    log,
  });

  const issueToken = tokenIssuer({
    redis: redis.client,
    publisher,
    pepper: secrets.pepper,
    signingKeys,
    lockout: redisLockout(redis.client, {
      address: { slowAfter: config.AUTH_LOCKOUT_ADDRESS_SLOW_AFTER, budget: config.AUTH_LOCKOUT_ADDRESS_BUDGET },
      windowMs: config.AUTH_LOCKOUT_WINDOW_SECONDS * 1_000,
      maxDelayMs: config.AUTH_LOCKOUT_MAX_DELAY_MS,
    }),
    registry,
    accessToken: {
      issuer: config.AUTH_ISSUER,
      audience: config.AUTH_AUDIENCE,
      ttlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
    },
    refreshTokenTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS,
    refreshTokensPerKey: config.AUTH_REFRESH_TOKENS_PER_KEY,
    refreshTokenUses: refreshTokenUses({
      redis: redis.client,
      pepper: secrets.pepper,
      log,
      registry: tuning.metrics?.registry,
    }),
    grantsPerKeyPerMinute: config.AUTH_GRANTS_PER_KEY_PER_MINUTE,
  });
  const admin = adminCommands({
    redis: redis.client,
    publisher,
    pepper: secrets.pepper,
    rules: { tiers: config.AUTH_TIERS, defaultTier: config.AUTH_DEFAULT_TIER },
    registry,
    log,
  });

  return {
    grpc: authServiceRegistration({
      log,
      issueToken,
      signingKeys,
      issuer: config.AUTH_ISSUER,
      audience: config.AUTH_AUDIENCE,
    }),
    adminGrpc: authAdminServiceRegistration({
      log,
      admin,
      refreshTokens: refreshTokenAdmin({ redis: redis.client, publisher, registry, log }),
    }),
    dependencies: [...stores.checks, registry.check],
    stops: [
      { name: "registry", run: () => registry.stop() },
      { name: "publisher", run: () => publisher.close() },
      { name: "signing-keys", run: () => signingKeys.stop() },
      ...stores.closes,
    ],
  };
}
