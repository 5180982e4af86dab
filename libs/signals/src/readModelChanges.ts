import type { Signals } from "./connectSignals.js";
import { subjects } from "./subjects.js";

/**
 * What `readmodel.changed.<projection>` says after a projection's commit: one typed union for every
 * projection, published and decoded here so that no reader handles the signal as `unknown`.
 * - `market`, `subnets`: the read model's new version token (every answer read from it is stale);
 * - `accounts`: the accounts whose records changed (lower-case 0x public keys; at most 500, with
 *   `truncated` past that), and whether the head moved (then every account's answer changed, since
 *   each shows the head as its as_of);
 * - `intents`: the orders, users and transactions whose records changed, at most 500 each.
 */
export type ReadModelChange =
  | { projection: "market" | "subnets"; version: string }
  | { projection: "accounts"; accounts: string[]; truncated: boolean; head: boolean }
  | { projection: "intents"; orderKeys: string[]; users: string[]; transactions: string[]; truncated: boolean };

export type ChangedProjection = ReadModelChange["projection"];

const PROJECTIONS: readonly ChangedProjection[] = ["market", "subnets", "accounts", "intents"];
const PREFIX = subjects.readModelChanged("");

/** Publishes a commit's change signal on its projection's subject; false while NATS is away. */
export function publishReadModelChange(signals: Signals, change: ReadModelChange): boolean {
  return signals.publish(subjects.readModelChanged(change.projection), change);
}

/**
 * A received signal: the projection its subject names (or undefined for a subject no projection
 * publishes), and its change, or undefined when the payload is not what that projection sends (a
 * reader then treats everything the projection holds as changed).
 */
export interface ReceivedChange {
  projection: ChangedProjection | undefined;
  change: ReadModelChange | undefined;
}

export function decodeReadModelChange(subject: string, payload: unknown): ReceivedChange {
  const named = subject.startsWith(PREFIX) ? subject.slice(PREFIX.length) : "";
  const projection = PROJECTIONS.find((known) => known === named);
  if (projection === undefined) return { projection: undefined, change: undefined };
  if (typeof payload !== "object" || payload === null) return { projection, change: undefined };
  const body = payload as Record<string, unknown>;
  const strings = (value: unknown): value is string[] =>
    Array.isArray(value) && value.every((item) => typeof item === "string");
  switch (projection) {
    case "market":
    case "subnets":
      return {
        projection,
        change: typeof body.version === "string" ? { projection, version: body.version } : undefined,
      };
    case "accounts":
      return {
        projection,
        change:
          strings(body.accounts) && typeof body.truncated === "boolean"
            ? { projection, accounts: body.accounts, truncated: body.truncated, head: body.head === true }
            : undefined,
      };
    case "intents":
      return {
        projection,
        change:
          strings(body.orderKeys) &&
          strings(body.users) &&
          strings(body.transactions) &&
          typeof body.truncated === "boolean"
            ? {
                projection,
                orderKeys: body.orderKeys,
                users: body.users,
                transactions: body.transactions,
                truncated: body.truncated,
              }
            : undefined,
      };
  }
}

/** Calls `handler` with each decoded change signal of every projection; returns the unsubscribe. */
export function followReadModelChanges(signals: Signals, handler: (received: ReceivedChange) => void): () => void {
  return signals.subscribe(subjects.readModelChanged("*"), (payload, subject) =>
    handler(decodeReadModelChange(subject, payload)),
  );
}
