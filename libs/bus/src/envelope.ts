import { randomUUID } from "node:crypto";
import { currentTraceparent } from "@platform/telemetry";
import type { IHeaders, KafkaMessage, Message } from "kafkajs";

/** The headers every record carries (ARCHITECTURE.md): identity, type, payload schema, trace context. */
export const headerNames = {
  eventId: "event-id",
  eventType: "event-type",
  schema: "schema",
  traceparent: "traceparent",
  tracestate: "tracestate",
} as const;

/** A record to publish. The bus is payload-agnostic: `value` holds bytes encoded elsewhere (protobuf). */
export interface OutgoingRecord {
  topic: string;
  key: string;
  value: Uint8Array;
  /** e.g. `OrderOpened`. */
  eventType: string;
  /** The payload's message type, e.g. `platform.events.v1.OrderOpened`. */
  schema: string;
  /** A fresh UUID when omitted. Pass one to make a retried publish recognisable downstream. */
  eventId?: string;
  /** W3C trace context of the operation that produced the record. */
  traceparent?: string;
  tracestate?: string;
}

/** A record as a consumer sees it. Envelope fields are undefined when a producer left them out. */
export interface ConsumedRecord {
  topic: string;
  partition: number;
  offset: string;
  /** Milliseconds since the epoch, as a string (kafkajs). */
  timestamp: string;
  key: string | undefined;
  value: Buffer | null;
  eventId: string | undefined;
  eventType: string | undefined;
  schema: string | undefined;
  traceparent: string | undefined;
  tracestate: string | undefined;
  /** Every header, decoded as UTF-8 (the first value where a header repeats). */
  headers: Record<string, string>;
}

/** The kafkajs message for a record: key, bytes and the envelope headers. */
export function toKafkaMessage(record: OutgoingRecord): Message {
  if (record.eventType === "") throw new TypeError(`record for ${record.topic}: eventType is empty`);
  if (record.schema === "") throw new TypeError(`record for ${record.topic}: schema is empty`);
  const headers: IHeaders = {
    [headerNames.eventId]: record.eventId ?? randomUUID(),
    [headerNames.eventType]: record.eventType,
    [headerNames.schema]: record.schema,
  };
  // The producing operation's trace (an ingested block's span) unless the caller named one.
  const traceparent = record.traceparent ?? currentTraceparent();
  if (traceparent !== undefined) headers[headerNames.traceparent] = traceparent;
  if (record.tracestate !== undefined) headers[headerNames.tracestate] = record.tracestate;
  return { key: record.key, value: asBuffer(record.value), headers };
}

/** Reads a consumed kafkajs message into a record with its envelope fields. */
export function fromKafkaMessage(topic: string, partition: number, message: KafkaMessage): ConsumedRecord {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) headers[name] = first.toString();
  }
  return {
    topic,
    partition,
    offset: message.offset,
    timestamp: message.timestamp,
    key: message.key === null ? undefined : message.key.toString(),
    value: message.value,
    eventId: headers[headerNames.eventId],
    eventType: headers[headerNames.eventType],
    schema: headers[headerNames.schema],
    traceparent: headers[headerNames.traceparent],
    tracestate: headers[headerNames.tracestate],
    headers,
  };
}

/** A Buffer view of the bytes, without copying (protobuf encoders return plain Uint8Arrays). */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
