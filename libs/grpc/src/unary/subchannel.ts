import { type ClientHttp2Session, connect, constants, type SecureClientSessionOptions } from "node:http2";

/**
 * One HTTP/2 connection to one backend address, kept open: reconnected at once after the server
 * says GOAWAY (a graceful restart, or its connection-age limit), and after a lost connection or a
 * failed attempt with a backoff of 200 ms growing to 2 s, the same bounds the grpc-js channels here
 * used. While calls are open a ping every minute finds a connection that died silently; an idle
 * connection is not pinged (grpc-js's keepalive_permit_without_calls 0, which servers' ping
 * policies expect), and a server that answers pings with GOAWAY `too_many_pings` gets them half as
 * often from then on, as grpc-js does.
 */
export interface Subchannel {
  readonly authority: string;
  /** A connected session that takes new streams, if there is one now. */
  readySession(): ClientHttp2Session | undefined;
  /** Connecting, or waiting to connect again: calls may wait for it. */
  isPending(): boolean;
  lastError(): string | undefined;
  /** A call starts on this connection; the function returned says it ended. */
  callStarted(): () => void;
  /** Milliseconds between pings while calls are open (grows after `too_many_pings`). */
  keepaliveMs(): number;
  /** Lets streams already started finish, then closes; no reconnection after this. */
  close(): void;
}

export interface SubchannelEvents {
  /** Readiness changed: the channel recomputes which subchannels take calls. */
  onStateChange(): void;
  /** The connection was lost or refused: the backend's address may have changed. */
  onConnectionLost(): void;
}

export interface ConnectionOptions {
  /** Ping a connection with calls open this often (grpc-js keepalive_time_ms); 60 s. */
  keepaliveMs?: number;
  /** Close the connection when a ping is not answered within this (keepalive_timeout_ms); 20 s. */
  keepaliveTimeoutMs?: number;
  /** Speak TLS (https) with these options (a `ca` for a private authority, `servername`...); plain text without. */
  tls?: SecureClientSessionOptions;
}

const INITIAL_BACKOFF_MS = 200;
const MAX_BACKOFF_MS = 2_000;
const BACKOFF_MULTIPLIER = 1.6;
const KEEPALIVE_MS = 60_000;
const KEEPALIVE_TIMEOUT_MS = 20_000;
// grpc-js's ceiling for a keepalive time doubled by too_many_pings.
const MAX_KEEPALIVE_MS = 2 ** 31 - 1;
// Large windows so a big answer (every subnet with its metagraph) is not paced by WINDOW_UPDATEs.
const WINDOW_BYTES = 16 * 1024 * 1024;

type State = "connecting" | "ready" | "backoff" | "closed";

export function createSubchannel(
  authority: string,
  events: SubchannelEvents,
  options: ConnectionOptions = {},
): Subchannel {
  let state: State = "connecting";
  let session: ClientHttp2Session | undefined;
  let backoffMs = INITIAL_BACKOFF_MS;
  let retryTimer: NodeJS.Timeout | undefined;
  let lastError: string | undefined;
  let openCalls = 0;
  let keepaliveMs = options.keepaliveMs ?? KEEPALIVE_MS;
  const keepaliveTimeoutMs = options.keepaliveTimeoutMs ?? KEEPALIVE_TIMEOUT_MS;
  let keepaliveTimer: NodeJS.Timeout | undefined;

  /** Pings while calls are open; the timer runs only then. */
  function scheduleKeepalive(): void {
    if (keepaliveTimer || openCalls === 0 || state === "closed") return;
    keepaliveTimer = setTimeout(ping, keepaliveMs).unref();
  }

  function ping(): void {
    keepaliveTimer = undefined;
    const current = session;
    if (openCalls === 0 || state !== "ready" || !current) return;
    const timeout = setTimeout(() => current.destroy(), keepaliveTimeoutMs).unref();
    try {
      current.ping((error) => {
        clearTimeout(timeout);
        if (error) current.destroy();
      });
    } catch {
      clearTimeout(timeout);
    }
    scheduleKeepalive();
  }

  function setState(next: State): void {
    if (state === next) return;
    state = next;
    events.onStateChange();
  }

  function open(): void {
    retryTimer = undefined;
    if (state === "closed") return;
    setState("connecting");
    const settings = { enablePush: false, initialWindowSize: WINDOW_BYTES };
    const opened = options.tls
      ? connect(`https://${authority}`, { ...options.tls, settings })
      : connect(`http://${authority}`, { settings });
    session = opened;
    // The process stays up for its own reasons (a server, a pending call's deadline timer), never
    // for an idle connection.
    opened.unref();
    opened.on("error", (error: Error) => {
      lastError = error.message;
    });
    opened.once("connect", () => {
      if (session !== opened) return;
      backoffMs = INITIAL_BACKOFF_MS;
      lastError = undefined;
      try {
        opened.setLocalWindowSize(WINDOW_BYTES);
      } catch {
        // Only an optimisation.
      }
      setState("ready");
    });
    opened.once("goaway", (errorCode: number, _lastStreamId: number, debugData?: Buffer) => {
      if (errorCode === constants.NGHTTP2_ENHANCE_YOUR_CALM && debugData?.toString("utf8") === "too_many_pings")
        keepaliveMs = Math.min(MAX_KEEPALIVE_MS, keepaliveMs * 2);
      // Streams already running finish on this session; new ones go to a fresh connection.
      if (session !== opened) return;
      session = undefined;
      opened.close();
      if (state !== "closed") open();
    });
    opened.once("close", () => {
      if (session !== opened) return;
      session = undefined;
      if (state === "closed") return;
      setState("backoff");
      const delay = backoffMs * (0.8 + Math.random() * 0.4);
      backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * BACKOFF_MULTIPLIER);
      retryTimer = setTimeout(open, delay).unref();
      events.onConnectionLost();
    });
  }

  open();

  return {
    authority,
    readySession: () => (state === "ready" && session && !session.closed && !session.destroyed ? session : undefined),
    isPending: () => state === "connecting",
    lastError: () => lastError,
    callStarted() {
      openCalls += 1;
      scheduleKeepalive();
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        openCalls -= 1;
        if (openCalls === 0 && keepaliveTimer) {
          clearTimeout(keepaliveTimer);
          keepaliveTimer = undefined;
        }
      };
    },
    keepaliveMs: () => keepaliveMs,
    close() {
      if (state === "closed") return;
      const connected = state === "ready";
      state = "closed";
      if (keepaliveTimer) clearTimeout(keepaliveTimer);
      if (retryTimer) clearTimeout(retryTimer);
      // A connection still being made has no streams to finish.
      if (connected) session?.close();
      else session?.destroy();
      session = undefined;
      events.onStateChange();
    },
  };
}
