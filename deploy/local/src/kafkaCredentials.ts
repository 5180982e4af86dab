import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  applyKafkaAcls,
  createKafkaClient,
  KAFKA_GRANTS,
  KAFKA_SERVICES,
  type KafkaCredentials,
  type KafkaService,
  platformAclBindings,
} from "@platform/bus";
import { createLogger } from "@platform/log";
import type { KafkaSasl } from "@platform/testing";

/** The stack's Kafka users: made fresh for every `up`, like the broker's data. */
export interface StackKafkaCredentials {
  /** The super user: ACLs, and tools and tests that read topics directly (the descriptor's `kafkaAdmin`). */
  admin: KafkaCredentials;
  /** One user per service, named after it, granted what libs/bus kafkaAcl.ts says. */
  services: Record<KafkaService, KafkaCredentials>;
}

const password = () => randomBytes(32).toString("base64url");

export function makeKafkaCredentials(): StackKafkaCredentials {
  return {
    admin: { username: "admin", password: password() },
    services: Object.fromEntries(
      KAFKA_SERVICES.map((service) => [service, { username: service, password: password() }]),
    ) as Record<KafkaService, KafkaCredentials>,
  };
}

/** startKafka's `sasl`: the super user, and every service's user created with the storage. */
export function brokerSasl(credentials: StackKafkaCredentials): KafkaSasl {
  return { admin: credentials.admin, users: Object.values(credentials.services) };
}

/** Where a service's password file is, laid out like a Kubernetes Secret mount (`kafka-<service>/password`). */
export function kafkaPasswordFile(secretsDir: string, service: KafkaService): string {
  return join(secretsDir, `kafka-${service}`, "password");
}

/** Writes each service's password into the secrets folder, readable by its owner only. */
export function writeKafkaPasswordFiles(secretsDir: string, credentials: StackKafkaCredentials): void {
  for (const service of KAFKA_SERVICES) {
    const file = kafkaPasswordFile(secretsDir, service);
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, credentials.services[service].password, { mode: 0o600 });
  }
}

/**
 * A service's process with its own Kafka user (named after the service): the name, and the
 * password by file, so it is in no process environment. Given when the secrets folder holds the
 * service's password, which only a stack whose broker has credentials writes; so tests and tools
 * that start a service of a running stack again (with the stack's secrets folder) get it too, and
 * those with a broker of their own (and no such file) do not. With the user, it creates no topic
 * (KAFKA_CREATE_TOPICS=false). Unchanged when it uses no Kafka.
 */
export function withKafkaCredentials<Spec extends { name: string; env: Record<string, string> }>(
  spec: Spec,
  secretsDir: string,
): Spec {
  if (spec.env.KAFKA_BROKERS === undefined || !(spec.name in KAFKA_GRANTS)) return spec;
  const service = spec.name as KafkaService;
  const passwordFile = kafkaPasswordFile(secretsDir, service);
  if (!existsSync(passwordFile)) return spec;
  // A stack's broker with users and ACLs: its topics step created the topics, and the service's
  // user may not create any, so it only waits for them (the same process started again included).
  const { KAFKA_REPLICATION_FACTOR: _unused, ...env } = spec.env;
  return {
    ...spec,
    env: { ...env, KAFKA_CREATE_TOPICS: "false", KAFKA_SASL_USERNAME: service, KAFKA_SASL_PASSWORD_FILE: passwordFile },
  };
}

/** Applies every service's ACLs as the super user; one request, and the broker shows them within a second. */
export async function grantServiceAcls(brokers: string[], credentials: StackKafkaCredentials): Promise<void> {
  const admin = createKafkaClient({
    brokers,
    clientId: "stack-acls",
    logger: createLogger({ service: "stack", level: "silent" }),
    credentials: credentials.admin,
  }).admin();
  await admin.connect();
  try {
    await applyKafkaAcls(
      admin,
      platformAclBindings((service) => credentials.services[service].username),
    );
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
