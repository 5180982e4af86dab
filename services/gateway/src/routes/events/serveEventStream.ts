import type { ServerResponse } from "node:http";
import type { ClientReadableStream } from "@grpc/grpc-js";
import { status } from "@grpc/grpc-js";
import type { RequestContext } from "@platform/http";
import type { Logger } from "@platform/log";
import type { AdmitVerdict } from "../../access/rateLimiter.js";
import { HttpProblem } from "../../HttpProblem.js";
import { closedEvent } from "./eventSchemas.js";
import { followUpstream, type UpstreamFollow } from "./followUpstream.js";
import type { KeyWatch } from "./keyWatch.js";
import { replayCharge } from "./replayCharge.js";
import { openSse, SSE_HEADERS, type SseEvent, type SseWriter } from "./sseWriter.js";
import type { StreamSlot, StreamSlots } from "./streamSlots.js";

/** What every event stream route shares: the per-key cap, the key checks, the limits. */
export interface EventStreams {
  slots: StreamSlots;
  keys: KeyWatch;
  heartbeatMs: number;
  maxBufferedBytes: number;
  /** Streams this replica serves at once, every key together (EVENT_STREAMS_PER_REPLICA). */
  replicaCap: number;
  /** A place among the replica's streams, or undefined when it serves `replicaCap`; returns its release (idempotent). */
  reserve(): (() => void) | undefined;
  /** A replay (the events before `live`) spends a unit of the key's budget for every this many events. */
  replayEventsPerUnit: number;
  /** Spends `units` of a key's rate budget (replayCharge.ts). */
  charge(keyId: string, credential: { secretVersion: number; tier: string }, units: number): Promise<AdmitVerdict>;
  log: Logger;
  /** Counts streams opened, refused, dropped and ended, by route. */
  count(route: string, outcome: "opened" | "refused" | "left" | "dropped" | "revoked" | "expired" | "ended"): void;
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
 * What nginx logs for a request whose client closed the connection before the answer: never sent
 * (nobody is left to read it), only seen by the access log and the request metrics.
 */
const CLIENT_CLOSED_REQUEST = 499;

/** A request whose client left before its stream began: nothing to write, only the status to log. */
const clientLeft = async (response: ServerResponse): Promise<void> => {
  response.statusCode = CLIENT_CLOSED_REQUEST;
};

/** Whether the client is still there, and a promise of its leaving (its connection closed). */
interface Presence {
  readonly gone: boolean;
  readonly left: Promise<void>;
  stop(): void;
}

function presenceOf(context: RequestContext): Presence {
  let gone = false;
  let leave: () => void = () => undefined;
  const left = new Promise<void>((resolve) => (leave = resolve));
  const stop =
    context.onClose?.(() => {
      gone = true;
      leave();
    }) ?? (() => undefined);
  return {
    get gone() {
      return gone;
    },
    left,
    stop,
  };
}

/**
 * Serves one event stream: takes one of the key's stream slots (429 past the cap), starts the
 * source and waits for its first message (a refusal or an unreachable service is still a problem
 * answer then), and only then answers 200 and streams. The stream ends when the client leaves, the
 * key is revoked or rotated (checked every few seconds), the token expires, the slot's lease cannot
 * be renewed, the source fails, or the client reads too slowly (a final `dropped` event).
 *
 * The client may leave at any moment, also while the slot is taken or the first message awaited:
 * its connection's close is watched from the start, since a `close` that fired before the stream
 * began is never seen again, and a slot held for a client that left would be renewed for as long
 * as the backend's watch stays quiet (issue 32: five such requests locked a key out of streams).
 */
export async function serveEventStream(
  streams: EventStreams,
  route: string,
  context: RequestContext,
  source: EventSource,
): Promise<(response: ServerResponse) => Promise<void>> {
  const keyId = context.keyId!;
  // The replica's cap first: a refusal here takes none of the key's slots, shared by every replica.
  const place = streams.reserve();
  if (place === undefined) {
    streams.count(route, "refused");
    throw new HttpProblem({
      code: "UNAVAILABLE",
      grpcStatus: status.UNAVAILABLE,
      detail: `this gateway replica serves ${streams.replicaCap} event streams already, the most it may; retry (another replica may take it)`,
      extras: { retryAfterSeconds: 5 },
      headers: { "retry-after": "5" },
    });
  }
  const presence = presenceOf(context);
  const slot = await streams.slots.take(keyId).catch((error: unknown) => {
    place();
    presence.stop();
    throw error;
  });
  if (slot === undefined) {
    place();
    presence.stop();
    streams.count(route, "refused");
    throw new HttpProblem({
      code: "RATE_LIMITED",
      grpcStatus: status.RESOURCE_EXHAUSTED,
      detail: `this API key holds ${streams.slots.cap} open event streams already, the most it may; close one first`,
      extras: { violatedPolicies: ["streams"], retryAfterSeconds: 5 },
      headers: { "retry-after": "5" },
    });
  }
  const release = async () => {
    presence.stop();
    place();
    await slot.release().catch(() => undefined);
  };
  if (presence.gone) {
    await release();
    streams.count(route, "left");
    return clientLeft;
  }
  const sink = bufferedSink();
  const credential = context.credential;
  const charged =
    credential === undefined
      ? sink
      : withReplayCharge(sink, {
          eventsPerUnit: streams.replayEventsPerUnit,
          charge: (units) => streams.charge(keyId, credential, units),
          end: (last) => sink.end(last),
          onError: (error) => streams.log.warn({ err: error }, "charging an event stream's replay failed"),
        });
  const follow = source(charged);
  let started: boolean;
  try {
    started = await Promise.race([follow.started.then(() => true), presence.left.then(() => false)]);
  } catch (error) {
    follow.close();
    await release();
    throw error;
  }
  if (!started) {
    follow.close();
    await release();
    streams.count(route, "left");
    return clientLeft;
  }
  return (response) => streamEvents({ streams, route, context, response, sink, follow, slot, presence, release });
}

/** Events a source sends before the answer has begun wait here; then they go straight to the writer. */
interface BufferedSink {
  send(event: SseEvent): void;
  fail(error: Error): void;
  /** Ends the stream after `last` (at once, or as soon as it begins). */
  end(last: SseEvent): void;
  /** Hands what waited to the writer, and everything after it. */
  attach(writer: SseWriter): void;
}

function bufferedSink(): BufferedSink {
  let writer: SseWriter | undefined;
  const early: SseEvent[] = [];
  let final: SseEvent | undefined;
  const end = (last: SseEvent) => {
    final ??= last;
    writer?.close(last);
  };
  return {
    send: (event) => (final !== undefined ? undefined : writer ? writer.send(event) : early.push(event)),
    fail: (error) => end(closedEvent({ reason: "the stream cannot go on", code: codeOf(error) })),
    end,
    attach(attached) {
      writer = attached;
      for (const event of early) attached.send(event);
      early.length = 0;
      if (final) attached.close(final);
    },
  };
}

/** The sink, with each event it is sent counted towards the replay's charge first. */
function withReplayCharge(sink: BufferedSink, options: Parameters<typeof replayCharge>[0]): BufferedSink {
  const observe = replayCharge(options);
  return {
    ...sink,
    send(event) {
      observe(event);
      sink.send(event);
    },
  };
}

/** The 200 and the stream itself, until it ends for any reason; then everything it held is let go. */
async function streamEvents(stream: {
  streams: EventStreams;
  route: string;
  context: RequestContext;
  response: ServerResponse;
  sink: BufferedSink;
  follow: UpstreamFollow;
  slot: StreamSlot;
  presence: Presence;
  release(): Promise<void>;
}): Promise<void> {
  const { streams, route, context, response, follow, presence } = stream;
  if (response.req.method === "HEAD" || presence.gone) {
    // HEAD: the headers a GET would get, and no stream to hold open.
    if (presence.gone) response.statusCode = CLIENT_CLOSED_REQUEST;
    else response.writeHead(200, { "x-request-id": context.requestId, ...SSE_HEADERS });
    response.end();
    follow.close();
    await stream.release();
    return;
  }
  const writer = openSse(response, {
    maxBufferedBytes: streams.maxBufferedBytes,
    heartbeatMs: streams.heartbeatMs,
    headers: { "x-request-id": context.requestId },
    onDropped: () => streams.count(route, "dropped"),
  });
  streams.count(route, "opened");
  stream.sink.attach(writer);
  const untrack = streams.track(() =>
    writer.close(closedEvent({ reason: "this gateway is shutting down; resume with Last-Event-ID" })),
  );
  const keyId = context.keyId!;
  const credential = context.credential ?? { secretVersion: 0, tier: "", expiresAt: Number.POSITIVE_INFINITY };
  const stopKeyWatch = context.credential
    ? streams.keys.watch(keyId, credential, (why) => {
        streams.count(route, "revoked");
        writer.close(closedEvent({ reason: `the API key was ${why}` }));
      })
    : () => undefined;
  const untilExpiry = Math.min(2 ** 31 - 1, Math.max(0, credential.expiresAt * 1000 - Date.now()));
  const expiry = setTimeout(() => {
    streams.count(route, "expired");
    writer.close(closedEvent({ reason: "the access token expired; reconnect with a fresh one and Last-Event-ID" }));
  }, untilExpiry);
  const renewal = setInterval(
    () => {
      stream.slot.renew().then(
        (held) => held || writer.close(closedEvent({ reason: "the stream's slot was lost" })),
        (error: unknown) => streams.log.warn({ err: error }, "renewing an event stream's slot failed"),
      );
    },
    Math.max(1_000, streams.slots.leaseMs / 3),
  );
  try {
    // The writer's own close listener came after the connection's; the presence saw it either way.
    await Promise.race([writer.closed, presence.left]);
  } finally {
    clearTimeout(expiry);
    clearInterval(renewal);
    stopKeyWatch();
    untrack();
    follow.close();
    streams.count(route, "ended");
    await stream.release();
  }
}

function codeOf(error: Error): string {
  return (error as { code?: unknown }).code === undefined ? "INTERNAL" : String((error as { code?: unknown }).code);
}
