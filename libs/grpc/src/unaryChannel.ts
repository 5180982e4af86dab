import { lookup } from "node:dns/promises";
import type { ClientHttp2Session, OutgoingHttpHeaders } from "node:http2";
import { isIP } from "node:net";
import { type Metadata, type StatusObject, status } from "@grpc/grpc-js";
import { isTracingEnabled, type Span } from "@platform/telemetry";
import type { QueuedCall } from "./batch/batchAttempt.js";
import { type CallBatcher, createCallBatcher } from "./batch/callBatcher.js";
import { tracedClientCall } from "./tracing.js";
import { type AttemptOutcome, attemptCall } from "./unary/callAttempt.js";
import { failure } from "./unary/callStatus.js";
import { frameMessage } from "./unary/grpcFrame.js";
import { type Address, authorityOf, type ChannelTarget } from "./unary/parseTarget.js";
import { type ConnectionOptions, createSubchannel, type Subchannel } from "./unary/subchannel.js";

export interface UnaryChannelOptions {
  /** Attempts per call when the answer is UNAVAILABLE (1 = no retry); only for idempotent calls. */
  maxAttempts: number;
  maxReceiveBytes?: number;
  /** Calls made to one address in one event-loop turn travel in one stream (libs/grpc/src/batch). */
  batchCalls?: boolean;
  /** Keepalive and TLS of each connection (subchannel.ts). */
  connection?: ConnectionOptions;
  /**
   * Close every connection once no call has been made for this long; the next call opens them
   * again (grpc-js's client_idle_timeout_ms, whose default of 30 minutes this keeps).
   */
  idleTimeoutMs?: number;
}

export type UnaryResult = { ok: true; message: Buffer } | { ok: false; status: StatusObject };

/**
 * Unary gRPC calls over plain node:http2, balanced round-robin over every address of the target.
 *
 * Why not grpc-js's channel: on the gateway's hot path a unary call through it cost more CPU than
 * the whole request of a handler that reads Redis itself (a resolving call, a retrying call, a
 * load-balancing call and a subchannel call, each with its own promises and filters). This keeps
 * what the gateway relies on (round-robin over DNS or listed addresses, reconnection, deadlines,
 * retries of UNAVAILABLE, transparent retries of calls the server never saw, keepalive pings while
 * calls are open and fewer after `too_many_pings`, failures' metadata with grpc-status-details-bin,
 * TLS, an idle timeout) and nothing else; grpc-js still serves everything that is not a unary call.
 * bench/grpc-clients measures it against grpc-js and @connectrpc/connect-node side by side.
 */
export interface UnaryChannel {
  call(path: string, message: Uint8Array, metadata: Metadata, deadline: number): Promise<UnaryResult>;
  close(): void;
}

// The retry policy the grpc-js clients here were given: backoff drawn up to 50 ms, doubling to 500 ms.
const INITIAL_RETRY_BACKOFF_MS = 50;
const MAX_RETRY_BACKOFF_MS = 500;
const MAX_TRANSPARENT_RETRIES = 3;
const MIN_RESOLVE_INTERVAL_MS = 5_000;
// A headless Service gains pods without any connection failing: look again now and then.
const RESOLVE_EVERY_MS = 30_000;
const DEFAULT_MAX_RECEIVE_BYTES = 4 * 1024 * 1024;
const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60_000;

export function createUnaryChannel(target: ChannelTarget, options: UnaryChannelOptions): UnaryChannel {
  const maxReceiveBytes = options.maxReceiveBytes ?? DEFAULT_MAX_RECEIVE_BYTES;
  const pool = createSubchannelPool(target, options.connection ?? {});
  const batchers = new WeakMap<Subchannel, CallBatcher>();
  const idle = idleWatch(options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, () => pool.idle());

  /** One try of a call on the picked connection: alone, or with the turn's other calls to it. */
  function send(subchannel: Subchannel, queued: QueuedCall): void {
    const ended = subchannel.callStarted();
    const call: QueuedCall = {
      ...queued,
      done: (outcome) => {
        ended();
        queued.done(outcome);
      },
    };
    if (options.batchCalls) {
      batcherOf(subchannel).send(call);
      return;
    }
    const session = subchannel.readySession();
    if (session) sendOne(session, call);
    else call.done({ status: failure(status.UNAVAILABLE, "Connection closing"), unsent: true });
  }

  function batcherOf(subchannel: Subchannel): CallBatcher {
    let batcher = batchers.get(subchannel);
    if (!batcher) {
      batcher = createCallBatcher({ session: () => subchannel.readySession(), sendOne, maxReceiveBytes });
      batchers.set(subchannel, batcher);
    }
    return batcher;
  }

  function sendOne(session: ClientHttp2Session, call: QueuedCall): void {
    const headers: OutgoingHttpHeaders = {
      ...call.metadata.toHttp2Headers(),
      ":method": "POST",
      ":path": call.path,
      "content-type": "application/grpc",
      te: "trailers",
      "grpc-accept-encoding": "identity",
    };
    attemptCall(session, headers, frameMessage(call.message), call.deadline, maxReceiveBytes, call.done);
  }

  return {
    async call(path, message, metadata, deadline) {
      const ended = idle.callStarted();
      try {
        if (isTracingEnabled())
          return await tracedClientCall(path, metadata, (traced, span) =>
            callWithRetries(path, message, traced, deadline, span),
          );
        return await callWithRetries(path, message, metadata, deadline);
      } finally {
        ended();
      }
    },
    close() {
      idle.stop();
      pool.close();
    },
  };

  async function callWithRetries(
    path: string,
    message: Uint8Array,
    metadata: Metadata,
    deadline: number,
    span?: Span,
  ): Promise<UnaryResult> {
    let attempts = 0;
    let transparentRetries = 0;
    let backoffMs = INITIAL_RETRY_BACKOFF_MS;
    for (;;) {
      const picked = await pool.pick(deadline);
      const outcome: AttemptOutcome =
        "code" in picked
          ? { status: picked, unsent: false }
          : await new Promise<AttemptOutcome>((done) =>
              send(picked, { path, message, metadata, deadline, done, span }),
            );
      if ("message" in outcome) return { ok: true, message: outcome.message };
      if (outcome.unsent && transparentRetries < MAX_TRANSPARENT_RETRIES && Date.now() < deadline) {
        transparentRetries += 1;
        continue;
      }
      attempts += 1;
      if (outcome.status.code !== status.UNAVAILABLE || attempts >= options.maxAttempts)
        return { ok: false, status: outcome.status };
      const pause = Math.random() * backoffMs;
      backoffMs = Math.min(MAX_RETRY_BACKOFF_MS, backoffMs * 2);
      if (Date.now() + pause >= deadline) return { ok: false, status: outcome.status };
      await new Promise((resume) => setTimeout(resume, pause));
    }
  }
}

/**
 * Calls `goIdle` once no call has been open for `idleTimeoutMs` (checked a few times a period);
 * a call after that starts the clock again.
 */
function idleWatch(idleTimeoutMs: number, goIdle: () => void): { callStarted(): () => void; stop(): void } {
  let openCalls = 0;
  let lastActivity = Date.now();
  let idle = true;
  const timer = setInterval(
    () => {
      if (idle || openCalls > 0 || Date.now() - lastActivity < idleTimeoutMs) return;
      idle = true;
      goIdle();
    },
    Math.max(10, Math.floor(idleTimeoutMs / 4)),
  ).unref();
  return {
    callStarted() {
      openCalls += 1;
      idle = false;
      return () => {
        openCalls -= 1;
        lastActivity = Date.now();
      };
    },
    stop: () => clearInterval(timer),
  };
}

/** The connections to every address of the target: resolved, kept current and handed out round-robin. */
interface SubchannelPool {
  /** A subchannel to try now, or the reason there is none; waits while connections are being made. */
  pick(deadline: number): Promise<Subchannel | StatusObject>;
  /** Closes every connection; the next pick resolves the target and connects again. */
  idle(): void;
  close(): void;
}

function createSubchannelPool(target: ChannelTarget, connection: ConnectionOptions): SubchannelPool {
  const subchannels = new Map<string, Subchannel>();
  let ready: Subchannel[] = [];
  let next = 0;
  let waiters: Array<() => void> = [];
  let started = false;
  let closed = false;
  let resolving = false;
  let lastResolveAt = 0;
  let resolveTimer: NodeJS.Timeout | undefined;
  let resolveError: string | undefined;
  let periodic: NodeJS.Timeout | undefined;

  const events = {
    onStateChange() {
      ready = [...subchannels.values()].filter((subchannel) => subchannel.readySession() !== undefined);
      wake();
    },
    onConnectionLost() {
      requestResolve();
    },
  };

  function wake(): void {
    if (waiters.length === 0) return;
    const woken = waiters;
    waiters = [];
    for (const waiter of woken) waiter();
  }

  function start(): void {
    started = true;
    void resolve();
    if (target.kind === "dns" && isIP(target.host) === 0)
      periodic = setInterval(requestResolve, RESOLVE_EVERY_MS).unref();
  }

  function requestResolve(): void {
    if (closed || resolving || resolveTimer || target.kind === "static") return;
    const wait = lastResolveAt + MIN_RESOLVE_INTERVAL_MS - Date.now();
    if (wait <= 0) void resolve();
    else resolveAfter(wait);
  }

  function resolveAfter(ms: number): void {
    resolveTimer = setTimeout(() => {
      resolveTimer = undefined;
      void resolve();
    }, ms).unref();
  }

  async function resolve(): Promise<void> {
    resolving = true;
    lastResolveAt = Date.now();
    try {
      useAddresses(await addressesOf(target));
      resolveError = undefined;
    } catch (error) {
      resolveError = `DNS resolution failed: ${error instanceof Error ? error.message : String(error)}`;
      // With no address yet nothing else would ask again.
      if (subchannels.size === 0) resolveAfter(1_000);
    } finally {
      resolving = false;
      wake();
    }
  }

  function useAddresses(addresses: Address[]): void {
    if (closed) return;
    const wanted = new Set(addresses.map(authorityOf));
    for (const [authority, subchannel] of subchannels) {
      if (wanted.has(authority)) continue;
      subchannels.delete(authority);
      subchannel.close();
    }
    for (const authority of wanted)
      if (!subchannels.has(authority)) subchannels.set(authority, createSubchannel(authority, events, connection));
    events.onStateChange();
  }

  /** A subchannel to try now, or the reason there is none; waits while connections are being made. */
  async function pick(deadline: number): Promise<Subchannel | StatusObject> {
    if (!started) start();
    for (;;) {
      if (closed) return failure(status.UNAVAILABLE, "Channel closed");
      if (ready.length > 0) {
        next = (next + 1) % ready.length;
        return ready[next]!;
      }
      const pending = resolving || [...subchannels.values()].some((subchannel) => subchannel.isPending());
      if (!pending) {
        const lastError =
          resolveError ??
          [...subchannels.values()].map((subchannel) => subchannel.lastError()).find((text) => text !== undefined);
        return failure(status.UNAVAILABLE, `No connection established${lastError ? `. Last error: ${lastError}` : ""}`);
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) return failure(status.DEADLINE_EXCEEDED, "Deadline exceeded while waiting for a connection");
      await new Promise<void>((woken) => {
        const timer = setTimeout(woken, remaining);
        waiters.push(() => {
          clearTimeout(timer);
          woken();
        });
      });
    }
  }

  function closeConnections(): void {
    if (periodic) clearInterval(periodic);
    if (resolveTimer) clearTimeout(resolveTimer);
    periodic = undefined;
    resolveTimer = undefined;
    for (const subchannel of subchannels.values()) subchannel.close();
    subchannels.clear();
    ready = [];
  }

  return {
    pick,
    idle() {
      if (closed || !started) return;
      started = false;
      closeConnections();
    },
    close() {
      closed = true;
      closeConnections();
      wake();
    },
  };
}

async function addressesOf(target: ChannelTarget): Promise<Address[]> {
  if (target.kind === "static") return target.addresses;
  if (isIP(target.host) !== 0) return [{ host: target.host, port: target.port }];
  const found = await lookup(target.host, { all: true });
  if (found.length === 0) throw new Error(`no address for ${target.host}`);
  return found.map((entry) => ({ host: entry.address, port: target.port }));
}
