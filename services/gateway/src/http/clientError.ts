import type { Socket } from "node:net";
import { PROBLEM_CONTENT_TYPE, problemBody } from "@platform/http";
import { PROBLEM_TITLES } from "./problemTitles.js";

/** What node's refusals become: status, reason phrase, problem code and detail. */
function refusalOf(code: string | undefined): { status: number; reason: string; code: string; detail: string } {
  if (code === "HPE_HEADER_OVERFLOW")
    return {
      status: 431,
      reason: "Request Header Fields Too Large",
      code: "REQUEST_HEADERS_TOO_LARGE",
      detail: "the request line and headers are larger than 16 KB; send fewer or shorter query values",
    };
  if (code === "ERR_HTTP_REQUEST_TIMEOUT")
    return {
      status: 408,
      reason: "Request Timeout",
      code: "REQUEST_TIMEOUT",
      detail: "the request's headers or body did not arrive within the server's timeout",
    };
  return {
    status: 400,
    reason: "Bad Request",
    code: "MALFORMED_REQUEST",
    detail: "the request is not well-formed HTTP/1.1",
  };
}

/**
 * Node answers a request it cannot parse before any handler sees it: a request line and headers
 * over its 16 KB limit (a URL of thousands of list items, say) get a bare 431, a request whose
 * headers or body did not arrive within the server's timeouts (serverLimits.ts) a bare 408,
 * anything else a bare 400. Those answers become documented problems here, as every other refusal
 * is (the OpenAPI document lists 408 and 431 on every operation); a socket already written to, or
 * gone, is only closed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket, publicBaseUrl: string): void {
  if (!socket.writable || (socket as Socket & { _httpMessage?: unknown })._httpMessage) {
    socket.destroy();
    return;
  }
  const { status, reason, code, detail } = refusalOf(error.code);
  const body = JSON.stringify(problemBody({ status, code, title: PROBLEM_TITLES[code]!, detail }, publicBaseUrl));
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\n` +
      `content-type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `x-content-type-options: nosniff\r\nconnection: close\r\n\r\n${body}`,
  );
}
