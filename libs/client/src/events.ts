import { createParser, type EventSourceMessage } from "eventsource-parser";
import { STREAM_EVENT_NAMES, type StreamEvents } from "./generated/events.js";
import { ProblemError, readProblem } from "./problem.js";
import { type Send, sleep } from "./transport.js";

/** One server-sent event: its `event:` name, its `id:` (the resumable position) and its `data:` parsed as JSON. */
export interface StreamEvent<Type extends string = string, Data = unknown> {
  type: Type;
  id: string | undefined;
  data: Data;
}

/** The events of the stream at `Path`, as the document declares them: per event name, its data's type. */
type EventsOf<Path extends keyof StreamEvents> = {
  [Name in keyof StreamEvents[Path] & string]: StreamEvent<Name, StreamEvents[Path][Name]>;
}[keyof StreamEvents[Path] & string];

/**
 * `GET /intents/v1/events`, per change of a matching record: `status` when its status changes (or
 * it appears), `update` when something else of it changes (a step became final, a notification
 * was linked), both with `data` as `GET /intents/v1/intents/{orderId}` renders the record;
 * `removed` when a reorganisation removed it (`data: {key}`); and the control events.
 */
export type IntentsStreamEvent = EventsOf<"/intents/v1/events">;

/**
 * `GET /data/v1/events`: `head` (a read model's new `as_of`), `pool` (a subnet pool's new snapshot)
 * and `price` events, and the control events; each `data` typed by the document's schema of it.
 */
export type DataStreamEvent = EventsOf<"/data/v1/events">;

/**
 * The last event the server sends before it drops a client that reads too slowly (rather than
 * buffer for it without bound). The iterator yields it, then reconnects from the last position,
 * so nothing is lost; a consumer that keeps being dropped should read faster or stop.
 */
export type DroppedEvent = Extract<DataStreamEvent, { type: "dropped" }>;

/**
 * The last event before the server ends a stream for another reason (`data.reason`): the key was
 * revoked or rotated, the access token expired, the gateway is shutting down. The iterator yields
 * it and reconnects with a fresh token; a revoked key's reconnection is refused, and thrown.
 */
export type ClosedEvent = Extract<DataStreamEvent, { type: "closed" }>;

/**
 * Events of both streams besides their changes: `live` (caught up; later changes follow as they
 * are committed; its id is where the stream stands) and `gap` (the position resumed from is older
 * than the change log keeps: changes after it may be missing, so re-read what matters), `dropped`
 * and `closed`.
 */
export type ControlEvent = Extract<DataStreamEvent, { type: "live" | "gap" | "dropped" | "closed" }>;

export type DataTopic = "heads" | "pools" | "prices";

export const INTENTS_EVENT_TYPES = STREAM_EVENT_NAMES["/intents/v1/events"];
export const DATA_EVENT_TYPES = STREAM_EVENT_NAMES["/data/v1/events"];

export interface EventStreamOptions {
  /** Start after this position: the `id` of the last event handled (e.g. saved before a restart). */
  lastEventId?: string | undefined;
  /** Ends the stream: the iterator returns. Leaving the `for await` loop does the same. */
  signal?: AbortSignal | undefined;
}

export interface ReconnectOptions {
  /** Wait before the first reconnection, doubled per further failure; a server's `retry:` field replaces it. Default 1 s. */
  initialDelayMs?: number;
  /** Longest wait between two attempts. Default 30 s. */
  maxDelayMs?: number;
  /** Attempts in a row that get nothing (no connection, a refusal, a connection closed at once) before the iterator throws. Default 10. */
  maxAttempts?: number;
  /** A connection with no event and no heartbeat comment for this long is taken as dead. Default 45 s (the server comments every 15 s). */
  idleTimeoutMs?: number;
}

interface StreamState {
  lastEventId: string | undefined;
  /** Attempts in a row that got nothing. */
  failures: number;
  /** The server's `retry:` field, in ms. */
  serverRetryMs: number | undefined;
  /** Whether a connection was ever accepted: until then every refusal is final. */
  connected: boolean;
  lastError: unknown;
}

/**
 * A `text/event-stream` as an async iterator that survives dropped connections: it tracks the
 * last `id:` and reconnects with `Last-Event-ID` (with backoff), so the server resumes after it
 * with no gap and no repeat. Comment lines (heartbeats) only keep the connection alive. A refusal
 * of the first connection (429 past the key's stream cap, 401, 403, 400) is thrown as a
 * ProblemError; later, 429 and 5xx answers are waited out (at least their Retry-After).
 */
export async function* eventStream<Event extends StreamEvent>(
  send: Send,
  url: string,
  types: readonly Event["type"][],
  options: EventStreamOptions & ReconnectOptions = {},
): AsyncGenerator<Event, void, undefined> {
  const state: StreamState = {
    lastEventId: options.lastEventId,
    failures: 0,
    serverRetryMs: undefined,
    connected: false,
    lastError: undefined,
  };
  const signal = options.signal;
  while (!signal?.aborted) {
    const connection = new AbortController();
    const stop = () => connection.abort();
    signal?.addEventListener("abort", stop);
    let retryAfterMs = 0;
    try {
      const response = await connect(send, url, state, connection.signal);
      state.connected = true;
      for await (const message of readMessages(response, connection, state, options.idleTimeoutMs ?? 45_000)) {
        if (message.id !== undefined) state.lastEventId = message.id;
        // A change, or `live`, is progress; `closed` or `dropped` at once is not.
        if (message.event !== "closed" && message.event !== "dropped") state.failures = 0;
        const event = eventOf<Event>(message, types);
        if (event !== undefined) yield event;
      }
    } catch (error) {
      if (signal?.aborted) return;
      if (error instanceof ProblemError && !(state.connected && (error.status === 429 || error.status >= 500))) {
        throw error;
      }
      retryAfterMs = error instanceof ProblemError ? (error.retryAfterSeconds ?? 0) * 1000 : 0;
      state.lastError = error;
    } finally {
      signal?.removeEventListener("abort", stop);
      connection.abort();
    }
    state.failures += 1;
    if (state.failures > (options.maxAttempts ?? 10)) {
      throw (
        state.lastError ??
        new Error(`event stream ${url}: ended ${state.failures} times in a row before any change or heartbeat`)
      );
    }
    await sleep(Math.max(retryAfterMs, backoffMs(state, options)), signal);
  }
}

async function connect(send: Send, url: string, state: StreamState, signal: AbortSignal): Promise<Response> {
  const headers = new Headers({ accept: "text/event-stream", "cache-control": "no-cache" });
  if (state.lastEventId !== undefined) headers.set("last-event-id", state.lastEventId);
  const response = await send(new Request(url, { headers, signal }));
  if (!response.ok) throw await readProblem(response);
  if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`event stream ${url}: answered ${response.headers.get("content-type")}, not text/event-stream`);
  }
  return response;
}

/**
 * The messages of one connection, as the parser completes them (an event cut off by a dropped
 * connection is never dispatched). Anything received restarts the idle timer, whose expiry
 * aborts the connection; a heartbeat comment also resets the failure count.
 */
async function* readMessages(
  response: Response,
  connection: AbortController,
  state: StreamState,
  idleTimeoutMs: number,
): AsyncGenerator<EventSourceMessage, void, undefined> {
  if (response.body === null) return;
  const queue: EventSourceMessage[] = [];
  const parser = createParser({
    onEvent: (message) => queue.push(message),
    onRetry: (ms) => {
      state.serverRetryMs = ms;
    },
    // A heartbeat: the connection has lived a while.
    onComment: () => {
      state.failures = 0;
    },
  });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const idle = () => connection.abort(new Error(`no event or heartbeat for ${idleTimeoutMs} ms`));
  let timer = setTimeout(idle, idleTimeoutMs);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      clearTimeout(timer);
      if (done) return;
      timer = setTimeout(idle, idleTimeoutMs);
      parser.feed(decoder.decode(value, { stream: true }));
      for (let message = queue.shift(); message !== undefined; message = queue.shift()) yield message;
    }
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => undefined);
  }
}

function eventOf<Event extends StreamEvent>(
  message: EventSourceMessage,
  types: readonly Event["type"][],
): Event | undefined {
  const type = message.event ?? "message";
  // Event types this client does not know (a newer server's) are skipped, as EventSource does with no listener.
  if (!(types as readonly string[]).includes(type)) return undefined;
  let data: unknown = message.data;
  try {
    data = JSON.parse(message.data);
  } catch {
    // Not JSON: handed over as text.
  }
  return { type, id: message.id, data } as Event;
}

function backoffMs(state: StreamState, options: ReconnectOptions): number {
  const base = state.serverRetryMs ?? options.initialDelayMs ?? 1_000;
  const exponential = base * 2 ** Math.max(0, state.failures - 1);
  // ±20 %, so clients dropped together do not all come back in the same instant.
  return Math.min(options.maxDelayMs ?? 30_000, exponential) * (0.8 + Math.random() * 0.4);
}
