import { PlatformError } from "@platform/errors/base";

/** Stable code the gateway and the query services answer a malformed address with (400). */
export const INVALID_ADDRESS = "INVALID_ADDRESS";

/**
 * Malformed account input. A plain error with a stable `code` (rather than an AppError) keeps this
 * library free of the service stack; callers at the edge turn it into their AppError/problem.
 */
export class InvalidAddressError extends PlatformError {
  readonly input: string;
  readonly reason: string;

  constructor(input: string, reason: string) {
    // The input is echoed truncated: it is user text of arbitrary length.
    super(`invalid address ${JSON.stringify(input.length > 80 ? `${input.slice(0, 80)}…` : input)}: ${reason}`, {
      code: INVALID_ADDRESS,
      retryable: false,
    });
    this.input = input;
    this.reason = reason;
  }
}

export function isInvalidAddressError(error: unknown): error is InvalidAddressError {
  return error instanceof InvalidAddressError;
}
