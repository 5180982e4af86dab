import { type AppError, toGrpcError } from "@platform/errors";
import { callDeadline } from "./callDeadline.js";
import type { UnaryCallHandler } from "./checkedHandler.js";

/** How long before the caller's deadline the refusal leaves, at most: time for it to travel back. */
const MAX_MARGIN_MS = 250;

/**
 * A unary handler that, should its own answer not have come shortly before the caller's deadline,
 * answers `refusal()` instead, and drops the late answer. A read stuck on a store that cannot tell
 * it is stuck (an ioredis Cluster queues commands while it relearns its slots after a primary died,
 * and the command timeout only starts once a command leaves for a node) then answers what the
 * service means, "unavailable, retry" (503 with Retry-After at the gateway), not the caller's own
 * DEADLINE_EXCEEDED (504). The margin is a quarter of the time left when the call arrived, at most
 * MAX_MARGIN_MS; a call without a deadline is left as it is.
 */
export function answeredByDeadline(handler: UnaryCallHandler, refusal: () => AppError): UnaryCallHandler {
  return (call, callback) => {
    const deadline = callDeadline(call);
    if (!Number.isFinite(deadline)) {
      handler(call, callback);
      return;
    }
    const left = deadline - Date.now();
    let answered = false;
    const timer = setTimeout(
      () => {
        if (answered) return;
        answered = true;
        callback(toGrpcError(refusal()));
      },
      Math.max(0, left - Math.min(MAX_MARGIN_MS, left / 4)),
    );
    handler(call, (error, value, trailer, flags) => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      callback(error, value, trailer, flags);
    });
  };
}
