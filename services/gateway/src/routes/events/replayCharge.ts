import type { AdmitVerdict } from "../../access/rateLimiter.js";
import { closedEvent } from "./eventSchemas.js";
import type { SseEvent } from "./sseWriter.js";

export interface ReplayChargeOptions {
  /** One unit of the key's budget for every this many events replayed. */
  eventsPerUnit: number;
  /** Spends units of the key's budget (the rate limiter, with the stream's credential). */
  charge(units: number): Promise<AdmitVerdict>;
  /** Ends the stream after this last event: the budget is spent, or the key is gone. */
  end(last: SseEvent): void;
  onError(error: unknown): void;
}

/**
 * Charges a stream's replay to its key's rate budget: one unit for every `eventsPerUnit` events
 * sent before `live` (a resume's catch-up from Last-Event-ID). Opening a stream costs one unit
 * whatever it replays, and a replay costs the backend a read of every entry it sends, up to its
 * bound: without this a `Last-Event-ID: 0-0` was the cheapest way to make data-query read the whole
 * change log. A budget spent mid-replay ends the stream with `closed` RATE_LIMITED and
 * `retryAfterSeconds`: the client resumes from the last id it got, nothing is lost or repeated.
 * Returns what to call with each event the stream sends.
 */
export function replayCharge(options: ReplayChargeOptions): (event: SseEvent) => void {
  let replaying = true;
  let replayed = 0;
  const settle = (verdict: AdmitVerdict) => {
    if (!replaying && verdict.kind === "allowed") return;
    if (verdict.kind === "limited") {
      replaying = false;
      options.end(
        closedEvent({
          reason: "replaying spent the API key's rate budget; resume with Last-Event-ID after retryAfterSeconds",
          code: "RATE_LIMITED",
          retryAfterSeconds: Math.max(1, Math.ceil(verdict.retryAfterMs / 1000)),
        }),
      );
    } else if (verdict.kind === "revoked" || verdict.kind === "rotated") {
      replaying = false;
      options.end(closedEvent({ reason: `the API key was ${verdict.kind}` }));
    }
  };
  return (event) => {
    if (!replaying) return;
    if (event.event === "live") {
      replaying = false;
      return;
    }
    // A gap notice moves no position and is no replayed entry.
    if (event.id === undefined) return;
    replayed += 1;
    if (replayed % options.eventsPerUnit === 0) options.charge(1).then(settle, options.onError);
  };
}
