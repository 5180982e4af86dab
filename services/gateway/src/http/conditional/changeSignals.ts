import type { Logger } from "@platform/log";
import { followReadModelChanges, type ReceivedChange, type Signals } from "@platform/signals";
import { Counter, type Registry } from "prom-client";
import { type ConditionalReads, metricOnce } from "./conditionalReads.js";

/**
 * Feeds the projections' change signals (`readmodel.changed.<projection>`, published after each
 * commit) into the conditional reads' change clock: `market` and `subnets` ({projection, version})
 * make every answer read from them stale; `accounts` ({accounts, truncated, head}) only the answers
 * about the accounts it names, or every account's when the list was truncated (or cannot be read)
 * or the head moved (each such answer shows the head as its `as_of`: kept past the head's move, an
 * unchanged account's answer would show an older block than a replica that read it since).
 * Other projections (intents) feed no Data API answer. Returns the unsubscribe.
 */
export function followChangeSignals(signals: Signals, reads: ConditionalReads, registry: Registry): () => void {
  const counted = metricOnce(
    registry,
    "gateway_conditional_change_signals_total",
    () =>
      new Counter({
        name: "gateway_conditional_change_signals_total",
        help: "readmodel.changed.<projection> signals received, by projection (accounts, market, subnets, intents; any other: other): each makes the answers kept from that read model stale.",
        labelNames: ["projection"],
        registers: [registry],
      }),
  );
  return followReadModelChanges(signals, (received) => {
    // The label takes only the projections' names: a subject anyone who may publish chooses would
    // otherwise add a series kept for ever.
    counted.inc({ projection: received.projection ?? "other" });
    applyChangeSignal(reads, received);
  });
}

/**
 * `market` and `subnets` make every answer read from them stale; `accounts` only the answers about
 * the accounts it names, or every account's when the list was truncated or the head moved, or when
 * the payload could not be read (a signal is a hint: reading too much as stale is safe).
 */
export function applyChangeSignal(reads: ConditionalReads, { projection, change }: ReceivedChange): void {
  if (projection === "market" || projection === "subnets") {
    reads.clock.projectionChanged(projection);
  } else if (projection === "accounts") {
    if (change?.projection !== "accounts" || change.truncated || change.head) reads.clock.projectionChanged("accounts");
    else reads.clock.accountsChanged(change.accounts);
  }
}

/**
 * Whether the signals arrive decides whether answers are proven from memory: the cache follows the
 * `nats` readiness check (listed in /readyz, not required: NATS down only turns the cache off).
 */
export function cacheFollowsReadiness(
  reads: ConditionalReads,
  log: Logger,
): (snapshot: { checks: Record<string, { ok: boolean }> }) => void {
  return (snapshot) => {
    const ready = snapshot.checks.nats?.ok === true;
    if (ready === reads.cacheOn()) return;
    reads.setSignalsReady(ready);
    if (ready) log.info("NATS ready: conditional reads are proven from the change signals again");
    else log.warn("NATS not ready: every conditional read calls its backend until the change signals arrive again");
  };
}
