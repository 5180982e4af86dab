import { createKafkaClient, type KafkaCredentials, type KafkaTls, kafkaReadiness } from "@platform/bus";
import { connectHistory, type HistoryDb, historyAnswers } from "@platform/history";
import type { Logger } from "@platform/log";
import type { DependencyCheck, ShutdownStep } from "@platform/runtime";
import { connectSignals, type Signals } from "@platform/signals";
import { createRedis, type Redis, type RedisConnection, redisConnectionOf, redisReadiness } from "@platform/store";
import { kafkaTlsOf } from "./kafkaCredentials.js";

/** A connection a service depends on: its readiness check and how to close it on shutdown. */
export interface Dependency<T> {
  client: T;
  check: DependencyCheck;
  close: ShutdownStep;
}

export function redisDependency(
  connection: RedisConnection,
  service: string,
  options: { commandTimeoutMs?: number } = {},
): Dependency<Redis> {
  const redis = createRedis({ ...connection, connectionName: service, ...options });
  return {
    client: redis,
    check: { name: "redis", probe: () => redisReadiness(redis) },
    close: { name: "redis", run: async () => void (await redis.quit().catch(() => redis.disconnect())) },
  };
}

/**
 * `credentials`: the service's own Kafka user (kafkaCredentialsOrExit), none on a broker without
 * SASL; `tls`: kafkaTlsOf(config), none for plain TCP.
 */
export function kafkaDependency(
  brokers: string[],
  service: string,
  log: Logger,
  credentials?: KafkaCredentials,
  tls?: KafkaTls,
): Dependency<ReturnType<typeof createKafkaClient>> {
  const kafka = createKafkaClient({
    brokers,
    clientId: service,
    logger: log,
    ...(credentials ? { credentials } : {}),
    ...(tls ? { tls } : {}),
  });
  const admin = kafka.admin();
  // Connected in the background: a broker that is down at boot makes the service not-ready, not dead.
  void admin.connect().catch(() => undefined);
  return {
    client: kafka,
    check: { name: "kafka", probe: () => kafkaReadiness(admin, 1_000) },
    close: { name: "kafka", run: () => admin.disconnect() },
  };
}

/** Where NATS is and the service's own user there (NATS_URL, NATS_USERNAME, NATS_PASSWORD). */
export interface NatsConnection {
  url: string;
  user?: string | undefined;
  password?: string | undefined;
}

export function natsConnectionOf(config: {
  NATS_URL: string;
  NATS_USERNAME?: string | undefined;
  NATS_PASSWORD?: string | undefined;
}): NatsConnection {
  return { url: config.NATS_URL, user: config.NATS_USERNAME, password: config.NATS_PASSWORD };
}

export function natsDependency(connection: NatsConnection, service: string, log: Logger): Dependency<Signals> {
  const signals = connectSignals({
    servers: [connection.url],
    user: connection.user,
    password: connection.password,
    name: service,
    onError: (error) => log.debug({ err: error }, "nats connection problem"),
  });
  return {
    client: signals,
    check: { name: "nats", probe: () => signals.ready(1_000) },
    close: { name: "nats", run: () => signals.close() },
  };
}

/**
 * The stores of a service that keeps a projection of its own events (auth's key registry, tc's
 * acceptances): Redis, a second Redis connection for the projection's commits (their WATCH needs a
 * connection nobody else runs MULTI/EXEC on), and Kafka.
 */
export function projectionStores(
  config: Parameters<typeof redisConnectionOf>[0] & {
    KAFKA_BROKERS: string[];
    KAFKA_REPLICATION_FACTOR: number;
    KAFKA_CREATE_TOPICS?: boolean | undefined;
    KAFKA_TLS?: boolean | undefined;
    KAFKA_TLS_CA_FILE?: string | undefined;
  },
  service: string,
  projection: string,
  log: Logger,
  kafkaCredentials?: KafkaCredentials,
): ProjectionStores {
  const redis = redisDependency(redisConnectionOf(config), service);
  const projectionRedis = redisDependency(redisConnectionOf(config), `${service}-${projection}`);
  const kafka = kafkaDependency(config.KAFKA_BROKERS, service, log, kafkaCredentials, kafkaTlsOf(config));
  return {
    redis,
    kafka,
    projection: {
      redis: redis.client,
      projectionRedis: projectionRedis.client,
      kafka: kafka.client,
      log,
      replicationFactor: config.KAFKA_REPLICATION_FACTOR,
      createTopics: config.KAFKA_CREATE_TOPICS ?? true,
    },
    checks: [redis.check, kafka.check],
    closes: [kafka.close, { ...projectionRedis.close, name: `redis-${projection}` }, redis.close],
  };
}

export interface ProjectionStores {
  redis: Dependency<Redis>;
  kafka: Dependency<ReturnType<typeof createKafkaClient>>;
  /** What the projection's supervisor takes. */
  projection: {
    redis: Redis;
    projectionRedis: Redis;
    kafka: ReturnType<typeof createKafkaClient>;
    log: Logger;
    replicationFactor: number;
    /** Whether its supervisor creates the projection's topics or waits for the topics step (KAFKA_CREATE_TOPICS). */
    createTopics: boolean;
  };
  /** Readiness checks of Redis and Kafka. */
  checks: DependencyCheck[];
  /** Kafka, then both Redis connections: the last steps of a shutdown. */
  closes: ShutdownStep[];
}

/** Where the history database is and the service's own role there (POSTGRES_URL, POSTGRES_USERNAME, POSTGRES_PASSWORD). */
export interface PostgresConfig {
  POSTGRES_URL: string;
  POSTGRES_USERNAME?: string | undefined;
  POSTGRES_PASSWORD?: string | undefined;
  POSTGRES_POOL_SIZE: number;
}

/**
 * The history database (libs/history): a pool that connects on first use, so a service starts while
 * PostgreSQL is away; readiness follows `select 1` and recovers by itself once it answers again.
 */
export function historyDependency(config: PostgresConfig, service: string): Dependency<HistoryDb> {
  const db = connectHistory({
    url: config.POSTGRES_URL,
    username: config.POSTGRES_USERNAME,
    password: config.POSTGRES_PASSWORD,
    max: config.POSTGRES_POOL_SIZE,
    applicationName: service,
  });
  return {
    client: db,
    check: { name: "postgres", probe: () => historyAnswers(db) },
    close: { name: "postgres", run: () => db.end({ timeout: 5 }) },
  };
}
