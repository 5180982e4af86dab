/**
 * The one base of the platform's errors: a stable `code` to branch on (and to find in logs), and
 * whether trying the same thing again may succeed (`retryable`: a dependency away, a race lost, a
 * quota full) or cannot (bad input, bad configuration, a fork too deep), as ponder separates
 * retryable from fatal errors. `cause` keeps the chain to what went wrong underneath.
 *
 * Dependency-free (exported by `@platform/errors/base`), so that libraries without gRPC can extend it.
 */
export interface PlatformErrorOptions {
  /** Stable SCREAMING_SNAKE identifier. */
  code: string;
  retryable: boolean;
  cause?: unknown;
}

export class PlatformError extends Error {
  readonly code: string;
  readonly retryable: boolean;

  constructor(message: string, options: PlatformErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    // The subclass's own name (ForkDuringReadError...), in stacks and logs.
    this.name = new.target.name;
    this.code = options.code;
    this.retryable = options.retryable;
  }
}

/** Whether anything in `error`'s cause chain says trying again may succeed. */
export function isRetryable(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current: unknown = error; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    if (current instanceof PlatformError) return current.retryable;
  }
  return false;
}

/**
 * Whether a retry loop must stop at once: the nearest platform error in `error`'s cause chain says
 * trying again cannot succeed. An error that says nothing (a driver's plain Error) keeps the loop
 * going, as a dependency's failures always did.
 */
export function givesUp(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current: unknown = error; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    if (current instanceof PlatformError) return !current.retryable;
  }
  return false;
}

/**
 * A failure that is expected to pass: a dependency away or not answering yet. Retryable, so a retry
 * loop keeps trying.
 */
export class TransientError extends PlatformError {
  constructor(message: string, options: { code?: string; cause?: unknown } = {}) {
    super(message, { code: options.code ?? "DEPENDENCY_UNAVAILABLE", retryable: true, cause: options.cause });
  }
}

/**
 * Data that does not decode as what it claims to be: an event without its payload, a log that is not
 * the settler's, a storage value of the wrong shape. Not retryable: the same bytes decode the same way.
 */
export class DecodeError extends PlatformError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, { code: "UNDECODABLE", retryable: false, cause: options?.cause });
  }
}
