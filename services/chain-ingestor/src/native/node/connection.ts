import { LegacyClient } from "@dedot/api";
import { WsProvider } from "@dedot/providers";
import type { SubstrateNetwork } from "@platform/chain";
import { backoffDelay, PlatformError, TransientError } from "@platform/errors/base";

// The WebSocket to the network's Substrate RPC: opened, guarded, kept working, every read bounded.
// The storage reads over it are chainReader.ts.

/**
 * dedot's WebSocket provider with two of its faults taken care of:
 * - a frame that is not JSON (or not JSON-RPC) threw out of the socket's message handler: an
 *   uncaught exception, which ends the process. Now it marks the connection `garbled` and closes
 *   it (a node that sends garbage is not trusted again on that socket);
 * - `disconnect()` threw once the socket had closed by itself, and closing a socket still in its
 *   handshake made `ws` emit an error event nobody listened to (another uncaught exception).
 */
class GuardedWsProvider extends WsProvider {
  garbled = false;

  constructor(endpoint: string) {
    // No reconnection inside dedot (`keepConnected` replaces broken connections), and no request
    // timeout: reads are bounded by `keepConnected`, and dedot's timeout would reject requests it
    // makes by itself and never awaits (its new-heads subscription) as unhandled rejections.
    super({ endpoint, retryDelayMs: 0, timeout: 0 });
    const receive = this._onReceiveResponse;
    this._onReceiveResponse = (response) => {
      try {
        receive(response);
      } catch {
        this.garbled = true;
        void this.disconnect();
      }
    };
  }

  override async disconnect(switchEndpoint?: boolean): Promise<void> {
    const ws = this.__unsafeWs();
    if (ws === undefined) {
      this._cleanUp();
      return;
    }
    ws.addEventListener("error", () => undefined);
    await super.disconnect(switchEndpoint).catch(() => undefined);
  }
}

interface Connection {
  client: LegacyClient;
  /** Still usable: open, and nothing unreadable came over it. */
  usable(): boolean;
  close(): Promise<void>;
}

async function openConnection(network: SubstrateNetwork): Promise<Connection> {
  const provider = new GuardedWsProvider(network.rpcUrl);
  const client = await withTimeout(
    // No staling detection either: it would reconnect a quiet chain (a dev chain builds blocks on demand).
    LegacyClient.new({ provider, cacheMetadata: false, throwOnUnknownApi: false, stalingDetectionTimeout: 0 }),
    network.rpc.timeoutMs * 3,
    `connecting to ${network.rpcUrl}`,
  ).catch(async (error: unknown) => {
    await provider.disconnect();
    // dedot rejects a failed WebSocket with `new Error(String(event))`: "[object Object]".
    throw new TransientError(`could not connect to ${network.rpcUrl}`, { code: "NODE_UNAVAILABLE", cause: error });
  });
  return {
    client,
    usable: () => provider.status === "connected" && !provider.garbled,
    close: () => client.disconnect().catch(() => undefined),
  };
}

export interface KeptConnection {
  /** Runs a read on a usable connection; it fails when no answer comes within `rpc.timeoutMs`. */
  read<T>(what: string, run: () => Promise<T>): Promise<T>;
  /** Subscribes `onHead` to new heads, now and on every later connection. */
  onNewHead(onHead: () => void): Promise<void>;
  close(): Promise<void>;
}

/**
 * Keeps the reader on a working WebSocket. dedot's own reconnection is off, because requests made
 * while it reconnected could wait forever (each failed attempt replaced the promise they waited on,
 * so the follower's step hung and the source stood still while it reported itself following), and
 * it never gave up a socket that stays open but answers nothing. Here every read must answer within
 * `rpc.timeoutMs`, and a connection that closed, sent garbage, or failed 3 reads in a row with no
 * answer for `rpc.timeoutMs` is closed and replaced at the next read: at most one attempt per
 * back-off delay (doubling from `rpc.retryDelayMs`, at least 250 ms, up to 5 s), so a node that is
 * down is not hammered; reads in between fail at once.
 */
export async function keepConnected(
  network: SubstrateNetwork,
  use: (client: LegacyClient) => void,
): Promise<KeptConnection> {
  const { timeoutMs } = network.rpc;
  const headListeners: (() => void)[] = [];
  let current = await openConnection(network);
  use(current.client);
  let replacing: Promise<Connection> | undefined;
  let attempts = 0;
  let nextAttemptAt = 0;
  let failures = 0;
  let lastAnswerAt = Date.now();
  let closed = false;

  const subscribeHeads = (connection: Connection, onHead: () => void): Promise<unknown> =>
    connection.client.rpc.chain_subscribeNewHeads(() => onHead());

  const replace = (broken: Connection): Promise<Connection> => {
    const attempt = (async () => {
      await withTimeout(broken.close(), timeoutMs, "closing a broken connection").catch(() => undefined);
      try {
        const next = await openConnection(network);
        if (closed) {
          await next.close();
          throw readerClosed(network.rpcUrl);
        }
        current = next;
        use(next.client);
        [attempts, failures, lastAnswerAt] = [0, 0, Date.now()];
        // The follower polls anyway: a subscription that fails only costs the hint.
        for (const onHead of headListeners) subscribeHeads(next, onHead).catch(() => undefined);
        return next;
      } catch (error) {
        attempts += 1;
        nextAttemptAt =
          Date.now() + backoffDelay(attempts - 1, { firstMs: Math.max(250, network.rpc.retryDelayMs), maxMs: 5_000 });
        throw error;
      } finally {
        replacing = undefined;
      }
    })();
    replacing = attempt;
    return attempt;
  };

  const usable = async (): Promise<Connection> => {
    if (closed) throw readerClosed(network.rpcUrl);
    const stuck = failures >= 3 && Date.now() - lastAnswerAt >= timeoutMs;
    if (current.usable() && !stuck) return current;
    if (replacing !== undefined) return replacing;
    if (Date.now() < nextAttemptAt)
      throw new TransientError(`${network.rpcUrl} does not answer; reconnecting in ${nextAttemptAt - Date.now()} ms`, {
        code: "NODE_UNAVAILABLE",
      });
    return replace(current);
  };

  return {
    async read(what, run) {
      const connection = await usable();
      try {
        const result = await withTimeout(run(), timeoutMs, what);
        if (connection === current) [failures, lastAnswerAt] = [0, Date.now()];
        return result;
      } catch (error) {
        if (connection === current) failures += 1;
        throw error;
      }
    },
    async onNewHead(onHead) {
      headListeners.push(onHead);
      await withTimeout(subscribeHeads(current, onHead), timeoutMs, "subscribing to new heads");
    },
    async close() {
      closed = true;
      await replacing?.catch(() => undefined);
      await current.close();
    },
  };
}

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TransientError(`${what}: no answer within ${ms} ms`, { code: "TIMEOUT" })), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Closed on purpose (shutting down): reading again cannot succeed. */
const readerClosed = (rpcUrl: string) =>
  new PlatformError(`the reader of ${rpcUrl} is closed`, { code: "READER_CLOSED", retryable: false });
