import type { ServerResponse } from "node:http";
import { status } from "@grpc/grpc-js";
import type { RequestContext } from "@platform/http";
import type { Logger } from "@platform/log";
import { HttpProblem } from "../../http/HttpProblem.js";
import type { ClientReadableStream } from "@grpc/grpc-js";
import { followUpstream, type UpstreamFollow } from "./followUpstream.js";
import type { KeyWatch } from "./keyWatch.js";
import { openSse, type SseEvent, type SseWriter } from "./sseWriter.js";
import type { StreamSlots } from "./streamSlots.js";

/** What every event stream route shares: the per-key cap, the key checks, the limits. */
export interface EventStreams {
  slots: StreamSlots;
  keys: KeyWatch;
  heartbeatMs: number;
  maxBufferedBytes: number;
  log: Logger;
  /** Counts streams opened, refused, dropped and ended, by route. */
  count(route: string, outcome: "opened" | "refused" | "dropped" | "revoked" | "expired" | "ended"): void;
  /** Keeps a way to close an open stream (on shutdown); returns the way to forget it. */
  track(close: () => void): () => void;
  /** Closes every open stream with a final event (the gateway is shutting down). */
  closeAll(): void;
}

/** A stream's source: started with a sink for its events, stopped when the client leaves. */
export type EventSource = (sink: { send(event: SseEvent): void; fail(error: Error): void }) => UpstreamFollow;

/** What every service watch answers: a position, and a change whose `gap` case moves no position. */
interface WatchMessage {
  position: string;
  change?: { $case: string } | undefined;
}

/**
 * A stream's source from a service's watch (WatchIntents, WatchData): opened after the client's
 * position and again after the last one it gave (followUpstream), each message turned into an
 * event by `eventOf` (undefined: nothing to send).
 */
export function watchSource<Message extends WatchMessage>(options: {
  after: string | undefined;
  open(after: string | undefined): ClientReadableStream<Message>;
  eventOf(message: Message): SseEvent | undefined;
}): EventSource {
  return (sink) =>
    followUpstream<Message>({
      ...(options.after === undefined ? {} : { after: options.after }),
      open: options.open,
      positionOf: (message) => (message.change?.$case === "gap" ? undefined : message.position),
      onMessage: (message) => {
        const event = options.eventOf(message);
        if (event) sink.send(event);
      },
      onFatal: (error) => sink.fail(error),
    });
}

/** The `Last-Event-ID` header (or undefined), checked to be a position this API gives. */
export function lastEventId(context: RequestContext): string | undefined {
  const value = context.header("last-event-id")?.trim();
  if (value === undefined || value === "") return undefined;
  if (!/^\d{1,20}-\d{1,20}$/.test(value))
    throw new HttpProblem({
      code: "INVALID_PARAMETER",
      grpcStatus: status.INVALID_ARGUMENT,
      detail: "Last-Event-ID must be the id of an event this stream sent (<ms>-<seq>)",
      extras: { parameter: "Last-Event-ID" },
      headers: {},
    });
  return value;
}

/**
 * Serves one event stream: takes one of the key's stream slots (429 past the cap), starts the
 * source and waits for its first message (a refusal or an unreachable service is still a problem
 * answer then), and only then answers 200 and streams. The stream ends when the client leaves, the
 * key is revoked or rotated (checked every few seconds), the token expires, the slot's lease cannot
 * be renewed, the source fails, or the client reads too slowly (a final `dropped` event).
 */
export async function serveEventStream(
  streams: EventStreams,
  route: string,
  context: RequestContext,
  source: EventSource,
): Promise<(response: ServerResponse) => Promise<void>> {
  const keyId = context.keyId!;
  const slot = await streams.slots.take(keyId);
  if (slot === undefined) {
    streams.count(route, "refused");
    throw new HttpProblem({
      code: "RATE_LIMITED",
      grpcStatus: status.RESOURCE_EXHAUSTED,
      detail: `this API key holds ${streams.slots.cap} open event streams already, the most it may; close one first`,
      extras: { "violated-policies": ["streams"], retryAfterSeconds: 5 },
      headers: { "retry-after": "5" },
    });
  }
  let writer: SseWriter | undefined;
  const early: SseEvent[] = [];
  let failure: Error | undefined;
  const follow = source({
    send: (event) => (writer ? writer.send(event) : early.push(event)),
    fail: (error) => {
      failure = error;
      writer?.close({ event: "closed", data: { reason: "the stream cannot go on", code: codeOf(error) } });
    },
  });
  try {
    await follow.started;
  } catch (error) {
    follow.close();
    await slot.release().catch(() => undefined);
    throw error;
  }
  return async (response) => {
    if (response.req.method === "HEAD") {
      // The headers a GET would get, and no stream to hold open.
      response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store" });
      response.end();
      follow.close();
      await slot.release().catch(() => undefined);
      return;
    }
    writer = openSse(response, {
      maxBufferedBytes: streams.maxBufferedBytes,
      heartbeatMs: streams.heartbeatMs,
      headers: { "x-request-id": context.requestId },
      onDropped: () => streams.count(route, "dropped"),
    });
    streams.count(route, "opened");
    for (const event of early) writer.send(event);
    if (failure) writer.close({ event: "closed", data: { reason: "the stream cannot go on", code: codeOf(failure) } });
    const untrack = streams.track(() =>
      writer?.close({ event: "closed", data: { reason: "this gateway is shutting down; resume with Last-Event-ID" } }),
    );
    const credential = context.credential ?? { secretVersion: 0, tier: "", expiresAt: Number.POSITIVE_INFINITY };
    const stopKeyWatch = context.credential
      ? streams.keys.watch(keyId, credential, (why) => {
          streams.count(route, "revoked");
          writer?.close({ event: "closed", data: { reason: `the API key was ${why}` } });
        })
      : () => undefined;
    const untilExpiry = Math.min(2 ** 31 - 1, Math.max(0, credential.expiresAt * 1000 - Date.now()));
    const expiry = setTimeout(() => {
      streams.count(route, "expired");
      writer?.close({
        event: "closed",
        data: { reason: "the access token expired; reconnect with a fresh one and Last-Event-ID" },
      });
    }, untilExpiry);
    const renewal = setInterval(
      () => {
        slot.renew().then(
          (held) => held || writer?.close({ event: "closed", data: { reason: "the stream's slot was lost" } }),
          (error: unknown) => streams.log.warn({ err: error }, "renewing an event stream's slot failed"),
        );
      },
      Math.max(1_000, streams.slots.leaseMs / 3),
    );
    try {
      await writer.closed;
    } finally {
      clearTimeout(expiry);
      clearInterval(renewal);
      stopKeyWatch();
      untrack();
      follow.close();
      streams.count(route, "ended");
      await slot.release().catch(() => undefined);
    }
  };
}

function codeOf(error: Error): string {
  return (error as { code?: unknown }).code === undefined ? "INTERNAL" : String((error as { code?: unknown }).code);
}
