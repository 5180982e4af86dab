import { rebuilding, unavailable } from "@platform/errors";
import {
  answeredByDeadline,
  checkedHandler,
  type GrpcServiceRegistration,
  type UnaryCallHandler,
} from "@platform/grpc";
import { accountsKeys, marketKeys, subnetsKeys } from "@platform/read-models";
import { projectionsComplete, type Redis } from "@platform/store";

/** The projector's markers (libs/bus superviseProjection): `complete` once a rebuild has caught up. */
export const PROJECTION_MARKERS = {
  accounts: accountsKeys.marker,
  market: marketKeys.marker,
  subnets: subnetsKeys.marker,
} as const;

/**
 * Answers every call of a service 503 REBUILDING (Retry-After) unless the markers of the read
 * models it reads say `complete`. After Redis lost them (a flush, a failover to an empty replica)
 * the projector replays its topics from offset 0, and until it has caught up with where they stood
 * a read would answer an older `as_of` than before: a client must never see `as_of` go back
 * except through a reorganisation. `complete` is set only once the read model holds everything
 * its topics held when the rebuild began, which is at least what any earlier answer showed.
 *
 * The markers are read with the call's own first reads (checkedHandler): the MGET leaves first in
 * the same socket write (coalesceWrites), so the check costs no round trip.
 *
 * A call whose reads have not finished shortly before the caller's deadline answers 503
 * READ_MODEL_UNAVAILABLE (answeredByDeadline), not the caller's 504: while a Redis Cluster primary
 * dies and its replica is promoted, ioredis holds commands in its own queue, where no command
 * timeout runs (failover.test.ts: three 504s in CI at fcadb6a and 3447f85).
 */
export function guardedByMarkers(
  registration: GrpcServiceRegistration,
  redis: Redis,
  markerKeys: readonly string[],
): GrpcServiceRegistration {
  const check = () =>
    projectionsComplete(redis, markerKeys).then(
      (complete) => (complete ? undefined : rebuilding()),
      // The markers could not be read (Redis away): an unchecked answer never goes out.
      (error: unknown) =>
        unavailable("READ_MODEL_UNAVAILABLE", "the read model could not be read; retry shortly", undefined, error),
    );
  const implementation = Object.fromEntries(
    Object.entries(registration.implementation).map(([name, handler]) => [
      name,
      answeredByDeadline(checkedHandler(handler as UnaryCallHandler, check), tooSlow),
    ]),
  );
  return { ...registration, implementation };
}

const tooSlow = () => unavailable("READ_MODEL_UNAVAILABLE", "the read model did not answer in time; retry shortly");
