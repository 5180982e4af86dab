import type { ClientHttp2Session } from "node:http2";
import { status } from "@grpc/grpc-js";
import { failure } from "../unary/callStatus.js";
import { attemptBatch, type QueuedCall } from "./batchAttempt.js";

/**
 * Gathers the unary calls made to one connection during one event-loop turn and sends them when
 * the turn ends: a lone call as the unary call it is, several in one CallBatchService stream. A
 * connection whose server does not serve batches gets its calls one by one from then on (a new
 * connection, e.g. after the server was upgraded and recycled it, is asked again).
 *
 * The turn is where the gateway's requests already travel together: every connection's request
 * arrives in one read, the rate-limit verdicts of all of them in one Redis reply, and node's HTTP/2
 * writes their streams' frames once per turn anyway, so waiting for the turn's end costs no latency.
 */
export interface CallBatcher {
  send(call: QueuedCall): void;
}

export interface CallBatcherOptions {
  /** The connection's session now, if it takes new streams. */
  session(): ClientHttp2Session | undefined;
  /** Sends one call as a plain unary call. */
  sendOne(session: ClientHttp2Session, call: QueuedCall): void;
  maxReceiveBytes: number;
}

// A batch's request stays well under a server's default 4 MiB receive limit.
const MAX_BATCH_REQUEST_BYTES = 1024 * 1024;
const MAX_BATCH_CALLS = 1_000;

export function createCallBatcher(options: CallBatcherOptions): CallBatcher {
  const notServedBy = new WeakSet<ClientHttp2Session>();
  let queue: QueuedCall[] = [];
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    const calls = queue;
    queue = [];
    const session = options.session();
    if (!session) {
      const closing = failure(status.UNAVAILABLE, "Connection closing");
      for (const call of calls) call.done({ status: closing, unsent: true });
      return;
    }
    if (calls.length === 1 || notServedBy.has(session)) {
      for (const call of calls) options.sendOne(session, call);
      return;
    }
    for (const group of groupsOf(calls)) {
      if (group.length === 1) options.sendOne(session, group[0]!);
      else attemptBatch(session, group, options.maxReceiveBytes, () => notServedBy.add(session));
    }
  };

  return {
    send(call) {
      queue.push(call);
      if (scheduled) return;
      scheduled = true;
      setImmediate(flush);
    },
  };
}

/** The calls in batches of bounded size, in the order they were made. */
function groupsOf(calls: QueuedCall[]): QueuedCall[][] {
  const groups: QueuedCall[][] = [];
  let group: QueuedCall[] = [];
  let bytes = 0;
  for (const call of calls) {
    const size = call.message.length + call.path.length + 64;
    if (group.length > 0 && (bytes + size > MAX_BATCH_REQUEST_BYTES || group.length >= MAX_BATCH_CALLS)) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(call);
    bytes += size;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}
