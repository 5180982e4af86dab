import type { Logger } from "@platform/log";
import { type Signals, subjects } from "@platform/signals";
import { Counter, type Registry } from "prom-client";
import { type ConditionalReads, metricOnce } from "./conditionalReads.js";

const PREFIX = subjects.readModelChanged("");

/**
 * The projections that publish change signals, the only values the counter's `projection` label
 * takes: any other subject under the prefix counts as `other`. The label comes from a subject
 * anyone who can publish to NATS chooses, and every distinct value would be a series kept forever.
 */
const KNOWN_PROJECTIONS = new Set(["accounts", "market", "subnets", "intents"]);

export const projectionLabelOf = (projection: string): string =>
  KNOWN_PROJECTIONS.has(projection) ? projection : "other";

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
  const received = metricOnce(
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
  return signals.subscribe(subjects.readModelChanged("*"), (payload, subject) => {
    const projection = subject.slice(PREFIX.length);
    received.inc({ projection: projectionLabelOf(projection) });
    applyChangeSignal(reads, projection, payload);
  });
}

export function applyChangeSignal(reads: ConditionalReads, projection: string, payload: unknown): void {
  if (projection === "market" || projection === "subnets") {
    reads.clock.projectionChanged(projection);
  } else if (projection === "accounts") {
    const accounts = accountsOf(payload);
    if (accounts === undefined || headMoved(payload)) reads.clock.projectionChanged("accounts");
    else reads.clock.accountsChanged(accounts);
  }
}

const headMoved = (payload: unknown): boolean =>
  typeof payload === "object" && payload !== null && (payload as { head?: unknown }).head === true;

/** The accounts a signal names, or undefined when it does not name them all. */
function accountsOf(payload: unknown): string[] | undefined {
  if (typeof payload !== "object" || payload === null) return undefined;
  const { accounts, truncated } = payload as { accounts?: unknown; truncated?: unknown };
  if (truncated !== false || !Array.isArray(accounts)) return undefined;
  return accounts.every((account) => typeof account === "string") ? (accounts as string[]) : undefined;
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
