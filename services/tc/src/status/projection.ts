import type { SupervisedProjection } from "@platform/bus";
import type { Logger } from "@platform/log";
import { defineProjection, redisStore } from "@platform/projection";
import { TcAcceptanceEvent } from "@platform/proto/events/v1/tc_acceptances";
import type { Redis } from "@platform/store";
import { getAddress } from "viem";
import { tcKeys } from "../keys.js";
import type { Acceptance } from "./readAcceptance.js";

export type AcceptanceProjection = SupervisedProjection;

/**
 * The wallets' latest acceptances after these events, in order: the last TermsAccepted of a wallet
 * wins. (A wallet's events share its partition, so offset order is the order they happened in.)
 * Events naming no valid wallet or version are skipped and returned for logging.
 */
export function foldAcceptances(events: readonly TcAcceptanceEvent[]): {
  latest: Map<string, Acceptance>;
  skipped: number;
} {
  const latest = new Map<string, Acceptance>();
  let skipped = 0;
  for (const payload of events) {
    if (payload.event?.$case !== "termsAccepted") {
      skipped += 1;
      continue;
    }
    const { walletAddress, tcVersion, acceptedAt } = payload.event.value;
    let wallet: string;
    try {
      wallet = getAddress(walletAddress);
    } catch {
      skipped += 1;
      continue;
    }
    if (!Number.isInteger(tcVersion) || tcVersion < 1 || acceptedAt === "") {
      skipped += 1;
      continue;
    }
    latest.set(wallet, { acceptedVersion: tcVersion, acceptedAt });
  }
  return { latest, skipped };
}

/**
 * Folds `tc.acceptances.v1` into `tc:{tc}:wallet:<address>` (keys.ts), exactly once per record: each
 * batch's wallet writes and the partition's offset commit together (libs/projection redisStore).
 * `redis` must be a connection of its own (WATCH belongs to the connection).
 */
export function acceptanceProjection(redis: Redis, log: Logger): AcceptanceProjection {
  const store = redisStore<TcAcceptanceEvent>({
    redis,
    log,
    offsetKey: tcKeys.offset,
    async prepare(events, batch) {
      const { latest, skipped } = foldAcceptances(events);
      if (skipped > 0)
        log.error(
          { topic: batch.topic, partition: batch.partition, skipped },
          "acceptance records without a usable TermsAccepted; skipped",
        );
      return (multi) => {
        for (const [wallet, acceptance] of latest) {
          multi.hset(tcKeys.wallet(wallet), {
            acceptedVersion: String(acceptance.acceptedVersion),
            acceptedAt: acceptance.acceptedAt,
          });
        }
      };
    },
  });
  return defineProjection<TcAcceptanceEvent>({
    name: "tc-acceptances",
    log,
    // A record that can never be decoded would stop the projection for good if it were retried:
    // the library logs and skips it.
    decode: (record) => (record.value === null ? [] : [TcAcceptanceEvent.decode(record.value)]),
    stores: [store],
  });
}
