import { connect, type ClientHttp2Session } from "node:http2";

/**
 * One HTTP/2 connection to one backend address, kept open: reconnected at once after the server
 * says GOAWAY (a graceful restart, or its connection-age limit), and after a lost connection or a
 * failed attempt with a backoff of 200 ms growing to 2 s, the same bounds the grpc-js channels here
 * used. A ping every minute finds connections that died silently.
 */
export interface Subchannel {
  readonly authority: string;
  /** A connected session that takes new streams, if there is one now. */
  readySession(): ClientHttp2Session | undefined;
  /** Connecting, or waiting to connect again: calls may wait for it. */
  isPending(): boolean;
  lastError(): string | undefined;
  /** Lets streams already started finish, then closes; no reconnection after this. */
  close(): void;
}

export interface SubchannelEvents {
  /** Readiness changed: the channel recomputes which subchannels take calls. */
  onStateChange(): void;
  /** The connection was lost or refused: the backend's address may have changed. */
  onConnectionLost(): void;
}

const INITIAL_BACKOFF_MS = 200;
const MAX_BACKOFF_MS = 2_000;
const BACKOFF_MULTIPLIER = 1.6;
const KEEPALIVE_INTERVAL_MS = 60_000;
const KEEPALIVE_TIMEOUT_MS = 20_000;
// Large windows so a big answer (every subnet with its metagraph) is not paced by WINDOW_UPDATEs.
const WINDOW_BYTES = 16 * 1024 * 1024;

type State = "connecting" | "ready" | "backoff" | "closed";

export function createSubchannel(authority: string, events: SubchannelEvents): Subchannel {
  let state: State = "connecting";
  let session: ClientHttp2Session | undefined;
  let backoffMs = INITIAL_BACKOFF_MS;
  let retryTimer: NodeJS.Timeout | undefined;
  let lastError: string | undefined;

  const keepalive = setInterval(() => {
    const current = session;
    if (state !== "ready" || !current) return;
    const timeout = setTimeout(() => current.destroy(), KEEPALIVE_TIMEOUT_MS).unref();
    try {
      current.ping((error) => {
        clearTimeout(timeout);
        if (error) current.destroy();
      });
    } catch {
      clearTimeout(timeout);
    }
  }, KEEPALIVE_INTERVAL_MS).unref();

  function setState(next: State): void {
    if (state === next) return;
    state = next;
    events.onStateChange();
  }

  function open(): void {
    retryTimer = undefined;
    if (state === "closed") return;
    setState("connecting");
    const opened = connect(`http://${authority}`, { settings: { enablePush: false, initialWindowSize: WINDOW_BYTES } });
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
    opened.once("goaway", () => {
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
    close() {
      if (state === "closed") return;
      const connected = state === "ready";
      state = "closed";
      clearInterval(keepalive);
      if (retryTimer) clearTimeout(retryTimer);
      // A connection still being made has no streams to finish.
      if (connected) session?.close();
      else session?.destroy();
      session = undefined;
      events.onStateChange();
    },
  };
}
