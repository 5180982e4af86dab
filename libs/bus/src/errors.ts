import { PlatformError } from "@platform/errors/base";

/**
 * Kafka error codes meaning "a newer producer with this transactional id exists": 47
 * INVALID_PRODUCER_EPOCH (what brokers answer kafkajs' request versions) and 90 PRODUCER_FENCED
 * (newer versions; kafkajs does not know its name, so the code is checked too).
 */
const fencedCodes = new Set([47, 90]);
const fencedTypes = new Set(["INVALID_PRODUCER_EPOCH", "PRODUCER_FENCED"]);

/** True when the error, or one it wraps, says this transactional producer has been fenced off. */
export function isProducerFencedError(error: unknown): boolean {
  return someInChain(error, (candidate) => {
    const { code, type } = candidate as { code?: unknown; type?: unknown };
    return (typeof code === "number" && fencedCodes.has(code)) || (typeof type === "string" && fencedTypes.has(type));
  });
}

/** Thrown by a transactional publisher once another instance with its transactional id took over. */
export class ProducerFencedError extends PlatformError {
  constructor(
    readonly transactionalId: string,
    options?: ErrorOptions,
  ) {
    // Fatal: the other producer owns the id now; this one must stop, not try again.
    super(`transactional id ${transactionalId} is now used by another producer; this one is fenced off`, {
      code: "PRODUCER_FENCED",
      retryable: false,
      cause: options?.cause,
    });
  }
}

/** Walks `cause` chains and kafkajs' aggregate `errors`, guarding against cycles. */
function someInChain(error: unknown, test: (candidate: object) => boolean, seen = new Set<unknown>()): boolean {
  if (typeof error !== "object" || error === null || seen.has(error)) return false;
  seen.add(error);
  if (test(error)) return true;
  const { cause, errors } = error as { cause?: unknown; errors?: unknown };
  if (someInChain(cause, test, seen)) return true;
  return Array.isArray(errors) && errors.some((inner) => someInChain(inner, test, seen));
}
