import type { ServerResponse } from "node:http";
import type { z } from "zod";
import { droppedEvent } from "./eventSchemas.js";

export interface SseEvent {
  /** The resumable position (`id:`); a client sends the last one back as Last-Event-ID. */
  id?: string;
  event: string;
  data: unknown;
}

export interface SseWriter {
  /** Writes one event; false when the client has fallen too far behind and was dropped instead. */
  send(event: SseEvent): boolean;
  /** A comment line (ignored by clients): keeps proxies from closing an idle stream. */
  comment(text: string): void;
  /** Ends the stream after a last event. */
  close(last?: SseEvent): void;
  /** Resolves when the connection is gone, whoever ended it. */
  readonly closed: Promise<void>;
  isOpen(): boolean;
}

export interface SseWriterOptions {
  /** A client that leaves more than this many bytes unread is dropped with a final `dropped` event. */
  maxBufferedBytes: number;
  /** A comment line this often; 15 s. */
  heartbeatMs: number;
  /** Extra headers (rate limit, request id) for the 200. */
  headers?: Record<string, string>;
  /** Called once when a slow client is dropped. */
  onDropped?(): void;
}

/** The headers of an event stream's 200, to GET and to HEAD alike. */
export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store",
  "x-accel-buffering": "no",
  "x-content-type-options": "nosniff",
} as const;

/**
 * A `text/event-stream` answer (WHATWG HTML, server-sent events). Nothing is buffered without
 * bound: node keeps what the socket has not taken yet, and a client that lets that pass
 * `maxBufferedBytes` is sent a final `dropped` event and disconnected, rather than held in memory.
 */
export function openSse(response: ServerResponse, options: SseWriterOptions): SseWriter {
  response.writeHead(200, { ...options.headers, ...SSE_HEADERS });
  // A reconnecting client waits this long first (its own backoff may be longer).
  response.write("retry: 1000\n\n");
  let open = true;
  let finish: () => void;
  const closed = new Promise<void>((resolve) => (finish = resolve));
  const heartbeat = setInterval(() => writer.comment("keep-alive"), options.heartbeatMs);
  heartbeat.unref();
  const ended = () => {
    open = false;
    clearInterval(heartbeat);
    finish();
  };
  response.once("close", ended);
  const drop = () => {
    options.onDropped?.();
    writer.close(droppedEvent({ reason: "the client read too slowly; resume with Last-Event-ID" }));
    // The last event waits behind what the client did not read: give it a moment, then let go.
    setTimeout(() => response.destroy(), 5_000).unref();
  };
  const writer: SseWriter = {
    send(event) {
      if (!open) return false;
      if (response.writableLength > options.maxBufferedBytes) {
        drop();
        return false;
      }
      response.write(frame(event));
      return true;
    },
    comment(text) {
      if (open) response.write(`: ${text}\n\n`);
    },
    close(last) {
      if (!open) return;
      open = false;
      clearInterval(heartbeat);
      response.end(last === undefined ? undefined : frame(last));
    },
    closed,
    isOpen: () => open,
  };
  return writer;
}

/** One event's lines; data is JSON, which never holds a raw newline. */
export function frame(event: SseEvent): string {
  const id = event.id === undefined ? "" : `id: ${event.id}\n`;
  return `${id}event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/**
 * The success part of an event stream route's docs: the schema of each event's data by event name
 * (eventSchemas.ts, which the route's emitter is typed against), and as the example a `live` event,
 * then one change.
 */
export function streamSuccess(events: Record<string, z.ZodType>, change: SseEvent) {
  return {
    status: 200,
    description:
      "The event stream: events, each `id:`, `event:` and `data:` (JSON) lines; the schema describes one event, `data` being JSON of its event name's schema",
    contentType: "text/event-stream",
    events,
    headers: {
      "Cache-Control": "`no-store`: a live stream",
      "X-Accel-Buffering": "`no`: proxies that honour it pass each event on at once",
    },
    example: [
      frame({ event: "live", id: "1795758733285-0", data: { position: "1795758733285-0" } }),
      frame(change),
    ].join(""),
  };
}
