import type { sendUnaryData, ServerUnaryCall, UntypedServiceImplementation } from "@grpc/grpc-js";
import { toGrpcError, unavailable } from "@platform/errors";
import type { GrpcServiceRegistration } from "@platform/grpc";
import type { Redis } from "@platform/store";

/** The projector's markers (libs/bus superviseProjection): `complete` once a rebuild has caught up. */
export const PROJECTION_MARKERS = {
  accounts: "rm:accounts:projection",
  market: "rm:market:projection",
  subnets: "rm:subnets:projection",
} as const;

const COMPLETE = "complete";

/** How long a client waits before asking again while a read model is rebuilt. */
export const REBUILDING_RETRY_AFTER_SECONDS = 2;

/**
 * Answers every call of a service 503 REBUILDING (Retry-After) unless the markers of the read
 * models it reads say `complete`. After Redis lost them (a flush, a failover to an empty replica)
 * the projector replays its topics from offset 0, and until it has caught up with where they stood
 * a read would answer an older `as_of` than before: a client must never see `as_of` go back
 * except through a reorganisation. `complete` is set only once the read model holds everything
 * its topics held when the rebuild began, which is at least what any earlier answer showed.
 *
 * The markers are read with the call's own first reads, not before them: the GET leaves first
 * in the same socket write (coalesceWrites), so Redis answers it before the call's reads and the
 * check costs no round trip; the call's answer is held until the markers say it may go.
 */
export function guardedByMarkers(registration: GrpcServiceRegistration, redis: Redis, markerKeys: readonly string[]): GrpcServiceRegistration {
  const implementation: UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(registration.implementation)) {
    const unary = handler as (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void;
    implementation[name] = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      const markers = redis.mget(...markerKeys).then(
        (values) => values.every((value) => value === COMPLETE),
        (error: unknown) => error,
      );
      unary(call, (error, value, trailer, flags) => {
        void markers.then((verdict) => {
          if (verdict === true) callback(error, value, trailer, flags);
          else if (verdict === false) callback(toGrpcError(rebuilding()));
          // The markers could not be read (Redis away): an unchecked answer never goes out.
          else callback(toGrpcError(unavailable("READ_MODEL_UNAVAILABLE", "the read model could not be read; retry shortly", undefined, verdict)));
        });
      });
    };
  }
  return { ...registration, implementation };
}

function rebuilding() {
  return unavailable(
    "REBUILDING",
    "the read model is being rebuilt after its store was lost; answers resume once it has caught up",
    { retryAfterSeconds: REBUILDING_RETRY_AFTER_SECONDS },
  );
}
