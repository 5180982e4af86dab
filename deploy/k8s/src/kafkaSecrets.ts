import type { EnvValue } from "./deployable.js";

/**
 * Each deployable that uses Kafka authenticates as a SASL/SCRAM user of its own, whose name and
 * password are in a Secret of its own (keys `username`, `password`), created in the cluster with
 * the user (README, "Kafka credentials"); its grant is libs/bus kafkaAcl.ts for its service, or
 * for its projection or ingestor source.
 */
export function kafkaSecretName(deployable: string): string {
  return `kafka-${deployable}`;
}

/** The variables the service's config reads its Kafka user from (libs/service kafkaCredentialVars). */
export function kafkaCredentialEnv(deployable: string): Record<string, EnvValue> {
  const name = kafkaSecretName(deployable);
  return {
    KAFKA_SASL_USERNAME: { secretKey: { name, key: "username" } },
    KAFKA_SASL_PASSWORD: { secretKey: { name, key: "password" } },
  };
}
