import { type ClientReadableStream, type ServiceError, status } from "@grpc/grpc-js";
import { backoffDelay, fromGrpcError } from "@platform/errors";

export interface FollowUpstreamOptions<Message> {
  /** Opens the service's watch after a position (undefined: from now on). */
  open(after: string | undefined): ClientReadableStream<Message>;
  /** Where a message leaves the watch (undefined: it does not move it, e.g. a gap notice). */
  positionOf(message: Message): string | undefined;
  onMessage(message: Message): void;
  /** The watch cannot go on: a refusal the service gave (bad input), not a transport failure. */
  onFatal(error: Error): void;
  /** Initial position. */
  after?: string;
}

export interface UpstreamFollow {
  /** Settles with the first message, or rejects with the first attempt's failure (before any answer is sent). */
  readonly started: Promise<void>;
  close(): void;
}

/** Statuses that say the request itself is wrong: trying again cannot help. */
const FATAL = new Set([status.INVALID_ARGUMENT, status.PERMISSION_DENIED, status.NOT_FOUND, status.UNAUTHENTICATED]);

/**
 * Follows a service's server-streaming watch for as long as the client listens: when the stream
 * ends or fails for a reason other than the request itself (a service replica restarts or recycles
 * its connection, a network blip), it is opened again after the last position it gave, with a
 * growing pause, so the client sees neither a gap nor a repeat.
 */
export function followUpstream<Message>(options: FollowUpstreamOptions<Message>): UpstreamFollow {
  let position = options.after;
  let current: ClientReadableStream<Message> | undefined;
  let closed = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;
  let settle: { resolve(): void; reject(error: Error): void } | undefined;
  const started = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));

  const attempt = () => {
    if (closed) return;
    const stream = options.open(position);
    current = stream;
    stream.on("data", (message: Message) => {
      failures = 0;
      position = options.positionOf(message) ?? position;
      settle?.resolve();
      settle = undefined;
      options.onMessage(message);
    });
    let done = false;
    const ended = (error: ServiceError | undefined) => {
      if (done || closed || current !== stream) return;
      done = true;
      if (error !== undefined && (FATAL.has(error.code) || settle !== undefined)) {
        const failure = fromGrpcError(error);
        if (settle !== undefined) settle.reject(failure);
        else options.onFatal(failure);
        settle = undefined;
        closed = true;
        return;
      }
      failures += 1;
      retry = setTimeout(attempt, backoffDelay(failures - 1, { firstMs: 100, maxMs: 5_000 }));
    };
    stream.on("error", (error: ServiceError) => ended(error));
    stream.on("end", () => ended(undefined));
  };
  attempt();
  return {
    started,
    close() {
      closed = true;
      clearTimeout(retry);
      current?.cancel();
    },
  };
}
