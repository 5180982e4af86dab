import { connect, type NatsConnection, type Subscription } from "@nats-io/transport-node";
import { signalHeaders } from "./signalSpan.js";

export interface Signals {
  /**
   * Publishes a JSON signal. Signals are hints, never facts: while NATS is away the signal is
   * dropped and `false` is returned, because the chain and Kafka remain the truth.
   */
  publish(subject: string, payload: unknown): boolean;
  /** Calls `handler` for each signal on the subject (wildcards allowed); survives reconnects. */
  subscribe(subject: string, handler: (payload: unknown, subject: string) => void): () => void;
  /** Resolves true once NATS answers a round trip within the timeout; never throws. */
  ready(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface ConnectSignalsOptions {
  servers: string[];
  /** Connection name shown by the server's monitoring. */
  name: string;
  /** The service's own NATS user (natsPermissions.ts), when the server has users. */
  user?: string | undefined;
  password?: string | undefined;
  onError?: (error: unknown) => void;
}

interface PendingSubscription {
  subject: string;
  handler: (payload: unknown, subject: string) => void;
  active?: Subscription;
  cancelled: boolean;
}

/**
 * Connects to NATS in the background and keeps reconnecting forever, so a service starts (and
 * reports not-ready) while NATS is down instead of failing to boot.
 */
export function connectSignals(options: ConnectSignalsOptions): Signals {
  let connection: NatsConnection | undefined;
  let closing = false;
  const subscriptions = new Set<PendingSubscription>();

  const attach = (entry: PendingSubscription, nc: NatsConnection) => {
    entry.active = nc.subscribe(entry.subject, {
      callback: (error, message) => {
        if (error) {
          options.onError?.(error);
          return;
        }
        let payload: unknown;
        try {
          payload = message.json();
        } catch {
          return; // a malformed signal is ignored; it carries nothing we must keep
        }
        entry.handler(payload, message.subject);
      },
    });
  };

  const connected = (async () => {
    while (!closing) {
      try {
        const nc = await connect({
          servers: options.servers,
          name: options.name,
          ...(options.user === undefined ? {} : { user: options.user }),
          ...(options.password === undefined ? {} : { pass: options.password }),
          maxReconnectAttempts: -1,
          reconnectTimeWait: 250,
          waitOnFirstConnect: true,
          timeout: 2_000,
        });
        connection = nc;
        for (const entry of subscriptions) if (!entry.cancelled) attach(entry, nc);
        return nc;
      } catch (error) {
        options.onError?.(error);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    return undefined;
  })();

  return {
    publish(subject, payload) {
      if (!connection || connection.isClosed()) return false;
      try {
        const headers = signalHeaders(subject);
        if (headers === undefined) connection.publish(subject, JSON.stringify(payload));
        else connection.publish(subject, JSON.stringify(payload), { headers });
        return true;
      } catch (error) {
        options.onError?.(error);
        return false;
      }
    },
    subscribe(subject, handler) {
      const entry: PendingSubscription = { subject, handler, cancelled: false };
      subscriptions.add(entry);
      if (connection) attach(entry, connection);
      return () => {
        entry.cancelled = true;
        entry.active?.unsubscribe();
        subscriptions.delete(entry);
      };
    },
    async ready(timeoutMs = 1_000) {
      if (!connection || connection.isClosed()) return false;
      let timer: NodeJS.Timeout | undefined;
      try {
        const timeout = new Promise<false>((resolve) => {
          timer = setTimeout(() => resolve(false), timeoutMs);
        });
        return await Promise.race([connection.flush().then(() => true), timeout]);
      } catch {
        return false;
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      closing = true;
      const nc = connection ?? (await Promise.race([connected, Promise.resolve(undefined)]));
      if (nc && !nc.isClosed()) await nc.drain().catch(() => nc.close());
    },
  };
}
