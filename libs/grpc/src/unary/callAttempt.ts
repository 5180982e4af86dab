import { type ClientHttp2Session, constants, type OutgoingHttpHeaders } from "node:http2";
import { type StatusObject, status } from "@grpc/grpc-js";
import { failure, statusOfHttp, statusOfReset, statusOfTrailers } from "./callStatus.js";
import { readUnaryBody } from "./grpcFrame.js";
import { timeoutHeader } from "./timeoutHeader.js";

export type AttemptOutcome =
  | { message: Buffer }
  /** `unsent`: the server never saw the call (refused stream, draining connection); any call may be tried again. */
  | { status: StatusObject; unsent: boolean };

/**
 * One try of a unary call on one connection: a POST with the gRPC headers and the framed request,
 * then the single framed answer and the status in the trailers (or a trailers-only response).
 * The deadline travels as grpc-timeout, so the server stops working on a call nobody waits for.
 */
export function attemptCall(
  session: ClientHttp2Session,
  headers: OutgoingHttpHeaders,
  frame: Buffer,
  deadline: number,
  maxReceiveBytes: number,
  done: (outcome: AttemptOutcome) => void,
): void {
  const remainingMs = deadline - Date.now();
  if (remainingMs <= 0) {
    done({ status: failure(status.DEADLINE_EXCEEDED, "Deadline exceeded"), unsent: false });
    return;
  }
  headers["grpc-timeout"] = timeoutHeader(remainingMs);
  let stream: ReturnType<ClientHttp2Session["request"]>;
  try {
    stream = session.request(headers, { endStream: false });
  } catch (error) {
    // The session is closing or was told to go away between the pick and now.
    done({ status: failure(status.UNAVAILABLE, error instanceof Error ? error.message : String(error)), unsent: true });
    return;
  }

  let settled = false;
  let outcome: StatusObject | undefined;
  let httpStatus = 0;
  let received = 0;
  const chunks: Buffer[] = [];
  const timer = setTimeout(() => {
    outcome ??= failure(status.DEADLINE_EXCEEDED, "Deadline exceeded");
    stream.close(constants.NGHTTP2_CANCEL);
  }, remainingMs);

  stream.on("response", (responseHeaders) => {
    httpStatus = Number(responseHeaders[":status"]);
    // A trailers-only response: the status comes with the headers, and there is no body.
    if (responseHeaders["grpc-status"] !== undefined) outcome ??= statusOfTrailers(responseHeaders);
  });
  stream.on("data", (chunk: Buffer) => {
    received += chunk.length;
    if (received > maxReceiveBytes + 5 && outcome === undefined) {
      outcome = failure(
        status.RESOURCE_EXHAUSTED,
        `Received message larger than max (${received - 5} vs. ${maxReceiveBytes})`,
      );
      stream.close(constants.NGHTTP2_CANCEL);
      return;
    }
    chunks.push(chunk);
  });
  stream.on("trailers", (trailers) => {
    outcome ??= statusOfTrailers(trailers) ?? failure(status.UNKNOWN, "Trailers without grpc-status");
  });
  // Every failure also ends in "close"; the outcome is decided there, once.
  stream.on("error", () => undefined);
  stream.on("close", () => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    done(finish());
  });
  stream.end(frame);

  function finish(): AttemptOutcome {
    if (outcome === undefined) {
      if (httpStatus !== 0 && httpStatus !== 200) return { status: statusOfHttp(httpStatus), unsent: false };
      const reset = statusOfReset(
        stream.rstCode,
        session.destroyed && stream.rstCode !== constants.NGHTTP2_REFUSED_STREAM,
      );
      return { status: reset, unsent: stream.rstCode === constants.NGHTTP2_REFUSED_STREAM && httpStatus === 0 };
    }
    if (outcome.code !== status.OK) return { status: outcome, unsent: false };
    const body = readUnaryBody(chunks, maxReceiveBytes);
    if ("problem" in body)
      return {
        status: failure(body.problem === "No message received" ? status.UNIMPLEMENTED : status.INTERNAL, body.problem),
        unsent: false,
      };
    return body;
  }
}
