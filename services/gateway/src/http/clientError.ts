import type { Socket } from "node:net";
import { problemBody, PROBLEM_CONTENT_TYPE } from "@platform/http";
import { PROBLEM_TITLES } from "./problemTitles.js";

/**
 * Node answers a request it cannot parse before any handler sees it: a request line and headers
 * over its 16 KB limit (a URL of thousands of list items, say) get a bare 431, anything else a
 * bare 400. Those answers become documented problems here, as every other refusal is (the
 * OpenAPI document lists 431 REQUEST_HEADERS_TOO_LARGE on every operation); a socket already
 * written to, or gone, is only closed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket, publicBaseUrl: string): void {
  if (!socket.writable || (socket as Socket & { _httpMessage?: unknown })._httpMessage) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === "HPE_HEADER_OVERFLOW";
  const status = tooLarge ? 431 : 400;
  const code = tooLarge ? "REQUEST_HEADERS_TOO_LARGE" : "MALFORMED_REQUEST";
  const detail = tooLarge
    ? "the request line and headers are larger than 16 KB; send fewer or shorter query values"
    : "the request is not well-formed HTTP/1.1";
  const body = JSON.stringify(problemBody({ status, code, title: PROBLEM_TITLES[code]!, detail }, publicBaseUrl));
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? "Request Header Fields Too Large" : "Bad Request"}\r\n` +
      `content-type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `x-content-type-options: nosniff\r\nconnection: close\r\n\r\n${body}`,
  );
}
