import { rebuilding, unavailable } from "@platform/errors";
import { answeredByDeadline, checkedHandler, type UnaryCallHandler } from "@platform/grpc";
import { intentsReadKeys } from "@platform/read-models";
import { projectionsComplete, type Redis } from "@platform/store";

/**
 * A read of the intents mirror answers only while its projection marker says `complete`: after
 * Redis lost the read model the projector replays it from Kafka, and until it has caught up a read
 * would answer an older status, or "not found" for an intent the replay has not reached: 503
 * REBUILDING (Retry-After) instead. The marker is read alongside the call's own reads. A read still
 * waiting on Redis shortly before the caller's deadline answers 503 UNAVAILABLE, not the caller's
 * 504 (answeredByDeadline).
 */
export function mirroredRead<Handler>(redis: Redis, handler: Handler): Handler {
  const checked = checkedHandler(handler as UnaryCallHandler, () =>
    projectionsComplete(redis, [intentsReadKeys.marker]).then(
      (complete) => (complete ? undefined : rebuilding("the intents mirror")),
      (error: unknown) =>
        unavailable("UNAVAILABLE", "the intents mirror could not be read; retry shortly", undefined, error),
    ),
  );
  return answeredByDeadline(checked, () =>
    unavailable("UNAVAILABLE", "the intents mirror did not answer in time; retry shortly"),
  ) as Handler;
}
