import { type ServerWritableStream, status } from "@grpc/grpc-js";
import { invalidArgument } from "@platform/errors";
import { safeGrpcError } from "@platform/grpc";
import type { Logger } from "@platform/log";
import type { ChangeEntry, ChangeFeed } from "@platform/store";

export interface StreamChangesOptions<Response> {
  feed: ChangeFeed;
  log: Logger;
  /** The method's name, for logs. */
  method: string;
  /** Parses the request: which entries it wants and where it resumes; throws an AppError for bad input. */
  parse(): { match(entry: ChangeEntry): boolean; after: string | undefined };
  /** The response for a matching entry. */
  responseOf(entry: ChangeEntry): Response;
  /** The notice that entries after the caller's position were trimmed away (oldest: the first kept). */
  gap(position: string): Response;
  /** The notice that the watch has caught up, at `position`. */
  live(position: string): Response;
  /**
   * A caller that leaves this many bytes unread is ended with RESOURCE_EXHAUSTED: a gateway in
   * front reads as fast as its own clients do, so only a stuck caller gets here.
   */
  maxBufferedBytes: number;
}

/**
 * Serves a server-streaming watch of a read model's change log (libs/store createChangeFeed): the
 * matching entries after the caller's position, then each new one as the feed reads it, until the
 * caller cancels. Bad input ends the call with its status before anything is sent; a log that
 * cannot be read ends it with UNAVAILABLE, and the caller resumes from the last position it got.
 */
export function streamChanges<Request, Response>(
  call: ServerWritableStream<Request, Response>,
  options: StreamChangesOptions<Response>,
): void {
  let parsed: ReturnType<StreamChangesOptions<Response>["parse"]>;
  try {
    parsed = options.parse();
  } catch (error) {
    call.emit("error", safeGrpcError(options.log, options.method, error));
    return;
  }
  const { after } = parsed;
  let ended = false;
  const end = (error?: Parameters<typeof safeGrpcError>[2]) => {
    if (ended) return;
    ended = true;
    watch.close();
    if (error !== undefined) call.emit("error", safeGrpcError(options.log, options.method, error));
  };
  const send = (response: Response) => {
    if (ended) return;
    call.write(response);
    if (call.writableLength > options.maxBufferedBytes)
      end({ code: status.RESOURCE_EXHAUSTED, details: "the caller stopped reading its changes" });
  };
  const watch = options.feed.watch({
    ...(after === undefined ? {} : { after }),
    match: parsed.match,
    deliver: (entry) => send(options.responseOf(entry)),
    gap: (oldest) => send(options.gap(oldest ?? after ?? "0-0")),
    live: (position) => send(options.live(position)),
    failed: (error) => {
      options.log.warn({ err: error, method: options.method }, "the change log could not be read; the watch ended");
      end({ code: status.UNAVAILABLE, details: "the read model is unavailable; resume shortly" });
    },
  });
  call.on("cancelled", () => end());
  call.on("close", () => end());
}

/** A change-log position as the streams give them: a Redis stream id, `<ms>-<seq>`. */
const POSITION = /^\d{1,20}-\d{1,20}$/;

/** The position to resume after (undefined for "from now on"), checked: INVALID_PARAMETER otherwise. */
export function resumePosition(after: string): string | undefined {
  if (after === "") return undefined;
  if (!POSITION.test(after))
    throw invalidArgument("INVALID_PARAMETER", "Last-Event-ID must be a position this stream gave (<ms>-<seq>)", {
      parameter: "Last-Event-ID",
    });
  return after;
}
