import type { ProjectionBatch } from "@platform/bus";
import type { Logger } from "@platform/log";
import { TcAcceptanceEvent } from "@platform/proto/events/v1/tc_acceptances";
import { commitAtOffset, type Redis } from "@platform/store";
import { getAddress } from "viem";
import { tcKeys } from "../keys.js";
import type { Acceptance } from "./readAcceptance.js";

export interface AcceptanceProjection {
  loadOffsets(topic: string, partition: number): Promise<string | undefined>;
  handleBatch(batch: ProjectionBatch): Promise<void>;
}

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
 * batch's wallet writes and the partition's offset commit together (libs/store commitAtOffset).
 * `redis` must be a connection of its own (WATCH belongs to the connection).
 */
export function acceptanceProjection(redis: Redis, log: Logger): AcceptanceProjection {
  return {
    async loadOffsets(topic, partition) {
      return (await redis.get(tcKeys.offset(topic, partition))) ?? undefined;
    },

    async handleBatch(batch) {
      const { latest, skipped } = foldAcceptances(decodeAll(batch, log));
      if (skipped > 0)
        log.error(
          { topic: batch.topic, partition: batch.partition, skipped },
          "acceptance records without a usable TermsAccepted; skipped",
        );
      const step = {
        offsetKey: tcKeys.offset(batch.topic, batch.partition),
        previousOffset: batch.previousOffset,
        lastOffset: batch.lastOffset,
        partition: `${batch.topic}/${batch.partition}`,
      };
      await commitAtOffset(redis, step, (multi) => {
        for (const [wallet, acceptance] of latest) {
          multi.hset(tcKeys.wallet(wallet), {
            acceptedVersion: String(acceptance.acceptedVersion),
            acceptedAt: acceptance.acceptedAt,
          });
        }
      });
    },
  };
}

function decodeAll(batch: ProjectionBatch, log: Logger): TcAcceptanceEvent[] {
  const events: TcAcceptanceEvent[] = [];
  for (const message of batch.messages) {
    if (message.value === null) continue;
    try {
      events.push(TcAcceptanceEvent.decode(message.value));
    } catch (error) {
      // A record that can never be decoded would stop the projection for good if it were retried.
      log.error(
        { err: error, topic: batch.topic, partition: batch.partition, offset: message.offset },
        "undecodable acceptance record; skipped",
      );
    }
  }
  return events;
}
