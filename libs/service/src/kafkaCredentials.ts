import { readFileSync } from "node:fs";
import type { KafkaCredentials, KafkaTls } from "@platform/bus";
import { ConfigError, vars } from "@platform/config";

/**
 * The service's own Kafka user (SASL/SCRAM-SHA-512; its ACLs are in libs/bus kafkaAcl.ts). All
 * optional: a broker without SASL takes none. The password comes from the environment (a
 * Kubernetes Secret's key) or from a file (the local stack's secrets folder), never both.
 */
export const kafkaCredentialVars = {
  KAFKA_SASL_USERNAME: vars.string().optional(),
  KAFKA_SASL_PASSWORD: vars.string().optional(),
  KAFKA_SASL_PASSWORD_FILE: vars.string().optional(),
  /** TLS to the brokers (their SSL or SASL_SSL listener). */
  KAFKA_TLS: vars.boolean().default(false),
  /** PEM file of the CA that signed the brokers' certificates (a private CA), instead of the system's; implies KAFKA_TLS. */
  KAFKA_TLS_CA_FILE: vars.string().optional(),
};

/** The TLS the configuration asks for (KAFKA_TLS, KAFKA_TLS_CA_FILE); undefined for plain TCP. */
export function kafkaTlsOf(config: {
  KAFKA_TLS?: boolean | undefined;
  KAFKA_TLS_CA_FILE?: string | undefined;
}): KafkaTls | undefined {
  if (config.KAFKA_TLS !== true && config.KAFKA_TLS_CA_FILE === undefined) return undefined;
  return { caFile: config.KAFKA_TLS_CA_FILE };
}

export interface KafkaCredentialConfig {
  KAFKA_SASL_USERNAME?: string | undefined;
  KAFKA_SASL_PASSWORD?: string | undefined;
  KAFKA_SASL_PASSWORD_FILE?: string | undefined;
}

/**
 * The credentials the configuration names, the password file read; undefined when it names none.
 * Throws a ConfigError naming the variable at fault, whose message never holds the password.
 */
export function kafkaCredentialsOf(config: KafkaCredentialConfig): KafkaCredentials | undefined {
  const { KAFKA_SASL_USERNAME: username, KAFKA_SASL_PASSWORD: password, KAFKA_SASL_PASSWORD_FILE: file } = config;
  if (password !== undefined && file !== undefined)
    throw new ConfigError("KAFKA_SASL_PASSWORD_FILE", "must not be set together with KAFKA_SASL_PASSWORD");
  const hasPassword = password !== undefined || file !== undefined;
  if (username === undefined && !hasPassword) return undefined;
  if (username === undefined) throw new ConfigError("KAFKA_SASL_USERNAME", "is required when a Kafka password is set");
  if (!hasPassword)
    throw new ConfigError("KAFKA_SASL_PASSWORD", "or KAFKA_SASL_PASSWORD_FILE is required with KAFKA_SASL_USERNAME");
  if (password !== undefined) return { username, password };
  let text: string;
  try {
    text = readFileSync(file!, "utf8");
  } catch (error) {
    throw new ConfigError("KAFKA_SASL_PASSWORD_FILE", `cannot read ${file}: ${(error as NodeJS.ErrnoException).code}`);
  }
  // A trailing newline is an editor's, not the password's.
  const fromFile = text.replace(/\r?\n$/, "");
  if (fromFile.length === 0) throw new ConfigError("KAFKA_SASL_PASSWORD_FILE", `${file} is empty`);
  return { username, password: fromFile };
}

/** The entry-point form: a bad setting prints one line naming the variable and exits with EX_CONFIG (78). */
export function kafkaCredentialsOrExit(service: string, config: KafkaCredentialConfig): KafkaCredentials | undefined {
  try {
    return kafkaCredentialsOf(config);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${service}: configuration error: ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}
