import {
  extractContext,
  inSpan,
  isTracingEnabled,
  type Link,
  ROOT_CONTEXT,
  SpanKind,
  spanContextOf,
} from "@platform/telemetry";
import type { ConsumedRecord } from "./envelope.js";

/**
 * Runs a projection's batch (its apply, the commit to Redis, the change signal after it) in a
 * consumer span continuing the trace of the batch's first traced record, linked to the traces of
 * the others (records folded together come from many producing operations). The batch itself
 * while tracing is off, or when no record carries a trace.
 */
export function inConsumeSpan(
  groupId: string,
  topic: string,
  partition: number,
  records: readonly ConsumedRecord[],
  run: () => Promise<void>,
): Promise<void> {
  if (!isTracingEnabled()) return run();
  // A trace is decided where the records were made: records that carry none stay untraced here.
  const first = records.find((record) => record.traceparent !== undefined);
  if (first?.traceparent === undefined) return run();
  const parent = extractContext(
    first.tracestate === undefined
      ? { traceparent: first.traceparent }
      : { traceparent: first.traceparent, tracestate: first.tracestate },
    ROOT_CONTEXT,
  );
  const links: Link[] = [];
  const seen = new Set<string>([first.traceparent]);
  for (const record of records) {
    if (record.traceparent === undefined || seen.has(record.traceparent)) continue;
    seen.add(record.traceparent);
    const linked = spanContextOf(record.traceparent, record.tracestate);
    if (linked !== undefined) links.push({ context: linked });
  }
  return inSpan(
    `process ${topic}`,
    {
      kind: SpanKind.CONSUMER,
      parent,
      links,
      attributes: {
        "messaging.system": "kafka",
        "messaging.operation.type": "process",
        "messaging.destination.name": topic,
        "messaging.destination.partition.id": String(partition),
        "messaging.consumer.group.name": groupId,
        "messaging.batch.message_count": records.length,
      },
    },
    run,
  );
}
