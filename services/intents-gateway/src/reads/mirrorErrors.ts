import { type AppError, unavailable } from "@platform/errors";

/** Redis being away is a 503 the client can retry; the connection error stays in the log. */
export function mirrorUnavailable(error: unknown): AppError {
  return unavailable("UNAVAILABLE", "the intents mirror is unavailable; retry shortly", {}, error);
}
