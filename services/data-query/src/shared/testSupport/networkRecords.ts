import { Writable } from "node:stream";
import type { ConsumedRecord, ProjectionBatch } from "@platform/bus";
import { createLogger } from "@platform/log";
import { type ChainRef, Finality } from "@platform/proto/common/v1/common";
import type { NetworkChainEvent, NetworkStatsSnapshot } from "@platform/proto/events/v1/chain_network";
import { encodePayload, TOPICS } from "@platform/proto/topics";

/*
 * What data-query's integration tests share to write the read models the way the projector does
 * (its own projections fed batches by hand, no Kafka): a silent logger, the chain's blocks (12 s
 * apart from T0, a hash per number), their ChainRefs and accounts, and the records and batches of
 * partition 0 of a topic.
 */

/** A logger that writes nothing (warnings included), for the projections the tests run. */
export const silentLog = () =>
  createLogger({
    service: "data-query-test",
    level: "warn",
    destination: new Writable({ write: (_chunk, _encoding, callback) => callback() }),
  });

/** Block 0's time; block b is 12 s × b later. */
export const T0 = Date.UTC(2026, 0, 1, 0, 0, 0);
export const timeOf = (block: number) => T0 + block * 12_000;
export const hashOf = (block: number) => `0x${block.toString(16).padStart(64, "0")}`;

/** The native chain's (945) ChainRef of a block, at FINALITY_LATEST, with a log index when given. */
export const ref = (block: number, logIndex?: number): ChainRef => ({
  chainId: "945",
  blockNumber: String(block),
  blockHash: hashOf(block),
  parentHash: hashOf(block - 1),
  blockTimestamp: new Date(timeOf(block)).toISOString(),
  finality: Finality.FINALITY_LATEST,
  ...(logIndex === undefined ? {} : { logIndex }),
});

/**
 * The network's stats at a block (what a read at a past block pins to: the blocks followed and the
 * newest finalized one, `finalityLag` blocks back), with `fields` over the defaults.
 */
export const networkStats = (
  block: number,
  finalityLag: number,
  fields: Partial<NetworkStatsSnapshot> = {},
): NetworkChainEvent => ({
  event: {
    $case: "networkStatsSnapshot",
    value: {
      ref: ref(block),
      totalIssuanceRao: "10000000",
      totalStakeRao: "4000000",
      stakedRootRao: "1",
      stakedAlphaPoolsRao: "2",
      blockEmissionRao: "1000000000",
      taoWeight: "0.18",
      rootNetuid: 0,
      subnetsCount: 2,
      subnetLimit: 128,
      finalizedBlockNumber: String(block - finalityLag),
      ...fields,
    },
  },
});

/** An account whose public key repeats `byte` and whose SS58 names it. */
export const account = (byte: string) => ({ ss58: `ss58-${byte}`, publicKey: `0x${byte.repeat(64)}` });

/** A record of partition 0 of `topic` as the bus hands it to a projection (no headers). */
export function consumedRecord(topic: string, offset: number, key: string, value: Uint8Array): ConsumedRecord {
  return {
    topic,
    partition: 0,
    offset: String(offset),
    timestamp: "0",
    key,
    value: Buffer.from(value),
    eventId: undefined,
    eventType: undefined,
    schema: undefined,
    traceparent: undefined,
    tracestate: undefined,
    headers: {},
  };
}

/** A chain.network.v1 record of one event. */
export const networkRecord = (offset: number, key: string, event: NetworkChainEvent) =>
  consumedRecord(TOPICS.chainNetwork.name, offset, key, encodePayload(TOPICS.chainNetwork, event));

/** The chain.network.v1 record values of these events. */
export const networkValues = (events: readonly NetworkChainEvent[]) =>
  events.map((event) => encodePayload(TOPICS.chainNetwork, event));

/** A batch of partition 0 of `topic` ending at `lastOffset`, after the one ending at `previousOffset`. */
export function projectionBatch(
  topic: string,
  messages: ConsumedRecord[],
  lastOffset: string,
  previousOffset: string | undefined,
): ProjectionBatch {
  return { topic, partition: 0, messages, lastOffset, previousOffset, heartbeat: async () => undefined };
}

/**
 * Successive batches of partition 0 of each topic: each batch's offsets follow the previous batch's
 * of the same topic, from 0.
 */
export function batchMaker(): (topic: string, key: string, values: readonly Uint8Array[]) => ProjectionBatch {
  const offsets = new Map<string, number>();
  return (topic, key, values) => {
    const previous = offsets.get(topic) ?? -1;
    let next = previous + 1;
    const messages = values.map((value) => consumedRecord(topic, next++, key, value));
    offsets.set(topic, next - 1);
    return projectionBatch(topic, messages, String(next - 1), previous < 0 ? undefined : String(previous));
  };
}
