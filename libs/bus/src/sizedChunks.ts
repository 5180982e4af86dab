import type { OutgoingRecord } from "./envelope.js";

/**
 * Bytes of record data per produce request. The broker refuses a partition's batch over
 * `message.max.bytes` (1 MiB by default) with MESSAGE_TOO_LARGE, and a request may put all its
 * records in one partition (one key), so each request stays well under that, counting what goes on
 * the wire per record (key, value, envelope headers), not only the values.
 */
export const BYTES_PER_REQUEST = 512 * 1024;

/** Per-record framing: length varints, attributes, timestamp and offset deltas, header counts. */
const RECORD_OVERHEAD_BYTES = 64;
/** The envelope headers every record carries besides eventType and schema (eventId, traceparent, content type…). */
const ENVELOPE_HEADER_BYTES = 160;

export function recordBytes(record: OutgoingRecord): number {
  return (
    RECORD_OVERHEAD_BYTES +
    ENVELOPE_HEADER_BYTES +
    Buffer.byteLength(record.key) +
    record.value.byteLength +
    Buffer.byteLength(record.eventType) +
    Buffer.byteLength(record.schema) +
    (record.eventId === undefined ? 0 : Buffer.byteLength(record.eventId))
  );
}

/** Splits records, in order, into runs of at most `limit` bytes (a single larger record is a run of its own). */
export function sizedChunks(records: readonly OutgoingRecord[], limit = BYTES_PER_REQUEST): OutgoingRecord[][] {
  const chunks: OutgoingRecord[][] = [];
  let chunk: OutgoingRecord[] = [];
  let bytes = 0;
  for (const record of records) {
    const size = recordBytes(record);
    if (chunk.length > 0 && bytes + size > limit) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(record);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}
