import { type ClientHttp2Session, type ClientHttp2Stream, constants } from "node:http2";
import { type Metadata, type StatusObject, status } from "@grpc/grpc-js";
import {
  CallBatchServiceService,
  type CallOutcome,
  RunCallsRequest,
  RunCallsResponse,
} from "@platform/proto/rpc/v1/call_batch";
import type { Span } from "@platform/telemetry";
import { batchSpan } from "../tracing.js";
import type { AttemptOutcome } from "../unary/callAttempt.js";
import { failure, statusOfHttp, statusOfReset, statusOfTrailers } from "../unary/callStatus.js";
import { createMessageReader, frameMessage, type MessageReader } from "../unary/grpcFrame.js";
import { timeoutHeader } from "../unary/timeoutHeader.js";
import { entriesOfMetadata, metadataOfEntries } from "./metadataEntries.js";

/** One unary call waiting for its outcome on this attempt. */
export interface QueuedCall {
  path: string;
  message: Uint8Array;
  metadata: Metadata;
  deadline: number;
  done(outcome: AttemptOutcome): void;
  /** The call's client span while tracing (its traceparent is in `metadata`). */
  span?: Span | undefined;
}

export const RUN_CALLS_PATH = CallBatchServiceService.runCalls.path;

/**
 * One try of several unary calls in one stream of one connection (CallBatchService.RunCalls).
 * Each call settles on its own: with its outcome as soon as the server streams it, with
 * DEADLINE_EXCEEDED when its own deadline passes, or, when the stream ends without it, with what
 * ended the stream (a lost connection is UNAVAILABLE, a refused stream is unsent). `onNotServed`
 * hears that the server does not serve batches at all (UNIMPLEMENTED, no outcome): none of the
 * calls ran, and each is told so as unsent, to go again on its own.
 */
export function attemptBatch(
  session: ClientHttp2Session,
  queued: QueuedCall[],
  maxReceiveBytes: number,
  onNotServed: () => void,
): void {
  const now = Date.now();
  const { calls, latestDeadline } = callsStillDue(queued, now);
  if (calls.length === 0) return;

  const request = encodeRunCalls(calls, now);

  const stream = openBatchStream(session, calls, latestDeadline - now);
  if (stream === undefined) return;
  const span = batchSpan(calls);

  const settled: boolean[] = calls.map(() => false);
  let unsettled = calls.length;
  let outcomesSeen = 0;
  let streamStatus: StatusObject | undefined;
  let httpStatus = 0;
  // One timer for the batch, set to the earliest deadline of the calls still waiting.
  let timer: NodeJS.Timeout | undefined;
  const reader = createMessageReader(maxReceiveBytes * calls.length + 1024);

  const settle = (id: number, outcome: AttemptOutcome) => {
    if (settled[id] !== false) return;
    settled[id] = true;
    unsettled -= 1;
    calls[id]!.done(outcome);
  };

  const armTimer = () => {
    let earliest = Infinity;
    calls.forEach((call, id) => {
      if (!settled[id] && call.deadline < earliest) earliest = call.deadline;
    });
    if (earliest === Infinity) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        const at = Date.now();
        calls.forEach((call, id) => {
          if (!settled[id] && call.deadline <= at)
            settle(id, { status: failure(status.DEADLINE_EXCEEDED, "Deadline exceeded"), unsent: false });
        });
        // Nobody waits for the rest of the stream: the server may stop working on it.
        if (unsettled === 0) stream.close(constants.NGHTTP2_CANCEL);
        else armTimer();
      },
      Math.max(0, earliest - Date.now()),
    );
  };
  armTimer();

  const take = (outcome: CallOutcome) => {
    outcomesSeen += 1;
    const id = outcome.id;
    if (id >= calls.length) return;
    const result = outcome.result;
    if (result?.$case === "response") {
      settle(
        id,
        result.value.length > maxReceiveBytes
          ? {
              status: failure(
                status.RESOURCE_EXHAUSTED,
                `Received message larger than max (${result.value.length} vs. ${maxReceiveBytes})`,
              ),
              unsent: false,
            }
          : { message: result.value },
      );
    } else if (result?.$case === "status") {
      settle(id, {
        status: statusOfOutcome(result.value.code, result.value.details, result.value.metadata),
        unsent: false,
      });
    } else {
      settle(id, { status: failure(status.INTERNAL, "Batch outcome without a result"), unsent: false });
    }
  };

  stream.on("response", (headers) => {
    httpStatus = Number(headers[":status"]);
    if (headers["grpc-status"] !== undefined) streamStatus ??= statusOfTrailers(headers);
  });
  stream.on("data", (chunk: Buffer) => {
    const messages = reader.push(chunk);
    if (!Array.isArray(messages)) {
      streamStatus ??= failure(status.RESOURCE_EXHAUSTED, messages.problem);
      stream.close(constants.NGHTTP2_CANCEL);
      return;
    }
    for (const bytes of messages) {
      let response: RunCallsResponse;
      try {
        response = RunCallsResponse.decode(bytes);
      } catch (error) {
        streamStatus ??= failure(
          status.INTERNAL,
          `Response message parsing error: ${error instanceof Error ? error.message : String(error)}`,
        );
        stream.close(constants.NGHTTP2_CANCEL);
        return;
      }
      for (const outcome of response.outcomes) take(outcome);
    }
  });
  stream.on("trailers", (trailers) => {
    streamStatus ??= statusOfTrailers(trailers) ?? failure(status.UNKNOWN, "Trailers without grpc-status");
  });
  stream.on("error", () => undefined);
  stream.on("close", () => {
    span?.end();
    if (timer) clearTimeout(timer);
    if (unsettled === 0) return;
    const ending = endingOf({ session, stream, reader, streamStatus, httpStatus, outcomesSeen });
    if (ending.notServed) onNotServed();
    calls.forEach((_call, id) => settle(id, { status: ending.status, unsent: ending.unsent }));
  });
  stream.end(frameMessage(request));
}

/** The calls whose deadline is still ahead, and the latest of their deadlines; the others fail now. */
function callsStillDue(queued: QueuedCall[], now: number): { calls: QueuedCall[]; latestDeadline: number } {
  const calls: QueuedCall[] = [];
  let latestDeadline = 0;
  for (const call of queued) {
    if (call.deadline <= now)
      call.done({ status: failure(status.DEADLINE_EXCEEDED, "Deadline exceeded"), unsent: false });
    else {
      calls.push(call);
      if (call.deadline > latestDeadline) latestDeadline = call.deadline;
    }
  }
  return { calls, latestDeadline };
}

function encodeRunCalls(calls: QueuedCall[], now: number): Uint8Array {
  return RunCallsRequest.encode({
    calls: calls.map((call, id) => ({
      id,
      method: call.path,
      request: call.message as Buffer,
      metadata: entriesOfMetadata(call.metadata),
      timeoutMs: Math.max(1, Math.ceil(call.deadline - now)),
    })),
  }).finish();
}

/** The RunCalls stream, or undefined when the session refused to open one (each call told so, as unsent). */
function openBatchStream(
  session: ClientHttp2Session,
  calls: QueuedCall[],
  timeoutMs: number,
): ClientHttp2Stream | undefined {
  try {
    return session.request(
      {
        ":method": "POST",
        ":path": RUN_CALLS_PATH,
        "content-type": "application/grpc",
        te: "trailers",
        "grpc-accept-encoding": "identity",
        "grpc-timeout": timeoutHeader(timeoutMs),
      },
      { endStream: false },
    );
  } catch (error) {
    const closing = failure(status.UNAVAILABLE, error instanceof Error ? error.message : String(error));
    for (const call of calls) call.done({ status: closing, unsent: true });
    return undefined;
  }
}

function statusOfOutcome(
  code: number,
  details: string,
  entries: Parameters<typeof metadataOfEntries>[0],
): StatusObject {
  let metadata: Metadata;
  try {
    metadata = metadataOfEntries(entries);
  } catch {
    metadata = metadataOfEntries([]);
  }
  return { code: Number.isInteger(code) && code > 0 && code <= 16 ? code : status.UNKNOWN, details, metadata };
}

/** The stream of a batch as it closed: what its end is read from. */
interface BatchStreamEnd {
  session: ClientHttp2Session;
  stream: ClientHttp2Stream;
  reader: MessageReader;
  streamStatus: StatusObject | undefined;
  httpStatus: number;
  outcomesSeen: number;
}

/** What the calls still waiting are told when the stream ended without their outcome. */
function endingOf(ended: BatchStreamEnd): { status: StatusObject; unsent: boolean; notServed: boolean } {
  const { session, stream, reader, streamStatus, httpStatus, outcomesSeen } = ended;
  if (streamStatus !== undefined) {
    if (streamStatus.code === status.OK)
      return {
        status: failure(status.INTERNAL, "The batch ended without the call's outcome"),
        unsent: false,
        notServed: false,
      };
    const notServed = streamStatus.code === status.UNIMPLEMENTED && outcomesSeen === 0;
    return { status: streamStatus, unsent: notServed, notServed };
  }
  if (httpStatus !== 0 && httpStatus !== 200)
    return { status: statusOfHttp(httpStatus), unsent: false, notServed: false };
  if (reader.hasPartial())
    return { status: failure(status.INTERNAL, "Truncated message"), unsent: false, notServed: false };
  const refused = stream.rstCode === constants.NGHTTP2_REFUSED_STREAM;
  return {
    status: statusOfReset(stream.rstCode, session.destroyed && !refused),
    unsent: refused && httpStatus === 0,
    notServed: false,
  };
}
