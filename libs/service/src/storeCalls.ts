import { AppError, unavailable } from "@platform/errors";

/**
 * Runs a Redis operation and turns a failure (Redis away, a timeout) into UNAVAILABLE with
 * `unavailableDetail`, so callers get a 503 they may retry instead of an INTERNAL error, and
 * nothing about the failure leaks. An AppError the operation threw on purpose passes as it is.
 */
export async function fromStore<T>(unavailableDetail: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw unavailable("UNAVAILABLE", unavailableDetail, undefined, error);
  }
}
