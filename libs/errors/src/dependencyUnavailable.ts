/**
 * Whether an unexpected error (not an AppError) means a dependency is away for now (Redis,
 * another server) rather than a fault in this code: such a call is answered UNAVAILABLE (503,
 * retry later), never INTERNAL. Checked along the cause chain.
 *
 * Node reports socket failures by system error code. ioredis, the Redis client, reports a lost or
 * refused connection with plain `Error`s identified only by their message (a client built with
 * `enableOfflineQueue: false`, as libs/store's is, fails at once while disconnected), and a
 * server that cannot serve yet with a reply error whose first word is its state.
 */
export function isDependencyUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 8; current = current.cause, depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && SOCKET_CODES.has(code)) return true;
    if (current.name === "MaxRetriesPerRequestError") return true;
    if (REDIS_AWAY.some((pattern) => pattern.test(current instanceof Error ? current.message : ""))) return true;
  }
  return false;
}

const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

const REDIS_AWAY = [
  /^Stream isn't writeable and enableOfflineQueue options is false$/,
  /^Connection is closed\.?$/,
  /^Command timed out$/,
  /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN) /,
];
