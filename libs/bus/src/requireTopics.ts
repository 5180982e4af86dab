import { TransientError } from "@platform/errors/base";
import type { Admin } from "kafkajs";

/**
 * Topics a service needs are not there yet. The services do not create topics (their Kafka users
 * hold no CREATE or ALTER_CONFIGS): the platform's topics step does, before them, as a principal of
 * its own (migratePlatformTopics). Retryable: the service stays not-ready and looks again, so it
 * recovers by itself once the step has run.
 */
export class MissingTopicsError extends TransientError {
  constructor(readonly missing: readonly string[]) {
    super(`kafka topics missing: ${missing.join(", ")} (created by the platform's topics step)`, {
      code: "KAFKA_TOPICS_MISSING",
    });
  }
}

/**
 * Resolves when every topic of `names` exists, throws MissingTopicsError otherwise. Lists the
 * topics (DESCRIBE, which READ and WRITE imply): no create, no config read or change.
 */
export async function requireTopics(admin: Admin, names: readonly string[]): Promise<void> {
  const existing = new Set(await admin.listTopics());
  const missing = names.filter((name) => !existing.has(name));
  if (missing.length > 0) throw new MissingTopicsError(missing);
}
