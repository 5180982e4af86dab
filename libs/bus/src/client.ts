import { readFileSync } from "node:fs";
import type { Logger } from "@platform/log";
import kafkajs, { type Kafka, type RetryOptions } from "kafkajs";
import { kafkaLogCreator, kafkaLogLevelFor } from "./logCreator.js";

export interface KafkaClientOptions {
  /** Bootstrap servers, `host:port`. */
  brokers: string[];
  clientId: string;
  logger: Logger;
  /** TCP connect timeout; 3 s by default. */
  connectionTimeoutMs?: number;
  /** Per-request timeout; 10 s by default. */
  requestTimeoutMs?: number;
  retry?: RetryOptions;
  /** The service's own SASL/SCRAM-SHA-512 user (libs/bus kafkaAcl.ts grants it); none on a broker without SASL. */
  credentials?: KafkaCredentials;
  /** TLS to the brokers (SSL or SASL_SSL listeners), checked against `caFile` (PEM) when given, else the system's CAs. */
  tls?: KafkaTls;
}

export interface KafkaTls {
  caFile?: string | undefined;
}

/** A Kafka SASL/SCRAM user. Never logged. */
export interface KafkaCredentials {
  username: string;
  password: string;
}

/**
 * Retries for a broker that is briefly away (a restart, a leader move): 300 ms doubling up to
 * 5 s, eight times, so a call on a down broker fails after about 20 s instead of hanging.
 */
export const defaultRetry: Readonly<RetryOptions> = {
  initialRetryTime: 300,
  maxRetryTime: 5_000,
  retries: 8,
};

/** A kafkajs client whose logs go to the service's pino logger. */
export function createKafkaClient(options: KafkaClientOptions): Kafka {
  return new kafkajs.Kafka({
    brokers: options.brokers,
    clientId: options.clientId,
    connectionTimeout: options.connectionTimeoutMs ?? 3_000,
    requestTimeout: options.requestTimeoutMs ?? 10_000,
    enforceRequestTimeout: true,
    retry: { ...defaultRetry, ...options.retry },
    logLevel: kafkaLogLevelFor(options.logger),
    logCreator: kafkaLogCreator(options.logger),
    ...(options.credentials ? { sasl: { mechanism: "scram-sha-512" as const, ...options.credentials } } : {}),
    ...(options.tls
      ? { ssl: options.tls.caFile === undefined ? true : { ca: [readFileSync(options.tls.caFile, "utf8")] } }
      : {}),
  });
}
