import { unavailable } from "@platform/errors";

/** Runs a history read; PostgreSQL away becomes READ_MODEL_UNAVAILABLE (503, as Redis away does), never INTERNAL. */
export async function historyRead<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw unavailable("READ_MODEL_UNAVAILABLE", "the history store could not be read; retry shortly", undefined, error);
  }
}
