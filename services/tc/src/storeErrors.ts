import { AppError, unavailable } from "@platform/errors";

/**
 * Runs a Redis operation and turns a failure (Redis away, a timeout) into UNAVAILABLE, so callers
 * get a 503 they may retry instead of an INTERNAL error, and nothing about the failure leaks.
 */
export async function fromStore<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw unavailable("UNAVAILABLE", "the T&C store is unavailable; try again shortly", undefined, error);
  }
}
