import { createRequire } from "node:module";
import { toKafkaMessage } from "@platform/bus";
import { TOPICS } from "@platform/proto/topics";
import type { FinneyStream, StreamRecord } from "./finneyStream.js";

/*
 * The stream's own figures for the Finney soak (a pass of the generator alone, no servers): what
 * each event type puts on the topic, in the bytes Kafka stores.
 */

type KafkaRecordEncoder = (record: {
  offsetDelta: number;
  timestampDelta: number;
  key: Buffer;
  value: Buffer;
  headers: Record<string, string | Buffer>;
}) => { size(): number };

/**
 * A record's bytes as kafkajs' RecordBatch v2 record encoder writes it (length, attributes, deltas,
 * key, value, headers), from the message `toKafkaMessage` makes of it (the publisher's envelope).
 */
function kafkaRecordBytes(): (record: StreamRecord, offsetDelta: number) => number {
  const require = createRequire(new URL("../../libs/bus/package.json", import.meta.url));
  const encode = require("kafkajs/src/protocol/recordBatch/record/v0") as KafkaRecordEncoder;
  return (record, offsetDelta) => {
    const message = toKafkaMessage({
      topic: TOPICS.chainNetwork.name,
      key: record.key,
      value: record.value,
      eventType: record.eventType,
      schema: TOPICS.chainNetwork.schema,
      eventId: record.eventId,
    });
    return encode({
      offsetDelta,
      timestampDelta: 0,
      key: Buffer.from(record.key),
      value: record.value,
      headers: message.headers as Record<string, string>,
    }).size();
  };
}

export interface TypeFigures {
  records: number;
  valueBytes: number;
  kafkaBytes: number;
  kafkaBytesPerBlock: number;
  share: number;
}

export interface StreamFigures {
  blocks: number;
  epochBlocks: number;
  records: number;
  kafkaBytes: number;
  kafkaBytesPerBlock: number;
  kafkaBytesPerEpochBlock: number;
  kafkaBytesPerOtherBlock: number;
  kafkaBytesPerFinneyDay: number;
  /** The first full snapshot (before the stream). */
  snapshot: { records: number; kafkaBytes: number };
  byEventType: Record<string, TypeFigures>;
  /** Records per block of the kinds published only when something changed. */
  perBlock: { epoch: Record<string, number>; other: Record<string, number> };
}

export function streamFigures(stream: FinneyStream, blocks: number): StreamFigures {
  const bytesOf = kafkaRecordBytes();
  const sizeOf = (records: readonly StreamRecord[]) => {
    // Offset deltas count from each partition's batch start; a block's index stands in for it (1-3 varint bytes either way).
    let total = 0;
    records.forEach((record, index) => {
      total += bytesOf(record, index);
    });
    return total;
  };
  const snapshot = stream.snapshot();
  const byType = new Map<string, { records: number; valueBytes: number; kafkaBytes: number }>();
  const counts = { epoch: new Map<string, number>(), other: new Map<string, number>() };
  let [records, kafkaBytes, epochBlocks, epochBytes] = [0, 0, 0, 0];
  for (let index = 0; index < blocks; index++) {
    const block = stream.next();
    const epoch = block.epoch !== undefined;
    let blockBytes = 0;
    block.records.forEach((record, at) => {
      const bytes = bytesOf(record, at);
      blockBytes += bytes;
      const entry = byType.get(record.eventType) ?? { records: 0, valueBytes: 0, kafkaBytes: 0 };
      entry.records += 1;
      entry.valueBytes += record.value.byteLength;
      entry.kafkaBytes += bytes;
      byType.set(record.eventType, entry);
      const count = epoch ? counts.epoch : counts.other;
      count.set(record.eventType, (count.get(record.eventType) ?? 0) + 1);
    });
    records += block.records.length;
    kafkaBytes += blockBytes;
    if (epoch) {
      epochBlocks += 1;
      epochBytes += blockBytes;
    }
  }
  const perBlock = (map: Map<string, number>, of: number) =>
    Object.fromEntries([...map].map(([type, count]) => [type, count / Math.max(1, of)]));
  return {
    blocks,
    epochBlocks,
    records,
    kafkaBytes,
    kafkaBytesPerBlock: kafkaBytes / blocks,
    kafkaBytesPerEpochBlock: epochBytes / Math.max(1, epochBlocks),
    kafkaBytesPerOtherBlock: (kafkaBytes - epochBytes) / Math.max(1, blocks - epochBlocks),
    kafkaBytesPerFinneyDay: (kafkaBytes / blocks) * 7_200,
    snapshot: { records: snapshot.records.length, kafkaBytes: sizeOf(snapshot.records) },
    byEventType: Object.fromEntries(
      [...byType]
        .sort((a, b) => b[1].kafkaBytes - a[1].kafkaBytes)
        .map(([type, entry]) => [
          type,
          { ...entry, kafkaBytesPerBlock: entry.kafkaBytes / blocks, share: entry.kafkaBytes / kafkaBytes },
        ]),
    ),
    perBlock: { epoch: perBlock(counts.epoch, epochBlocks), other: perBlock(counts.other, blocks - epochBlocks) },
  };
}
