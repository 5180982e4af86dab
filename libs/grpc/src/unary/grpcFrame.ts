/**
 * gRPC's length-prefixed messages: a compressed flag byte and a 4-byte big-endian length before
 * each message. A unary call carries exactly one each way.
 */
export function frameMessage(message: Buffer | Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

export type UnaryBody = { message: Buffer } | { problem: string };

/** The single uncompressed message of a unary response body, or what is wrong with the body. */
export function readUnaryBody(chunks: Buffer[], maxBytes: number): UnaryBody {
  const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  if (body.length < 5) return { problem: body.length === 0 ? "No message received" : "Truncated message" };
  if (body[0] !== 0) return { problem: "Compressed message received without a negotiated encoding" };
  const length = body.readUInt32BE(1);
  if (length > maxBytes) return { problem: `Received message larger than max (${length} vs. ${maxBytes})` };
  if (body.length < 5 + length) return { problem: "Truncated message" };
  if (body.length > 5 + length) return { problem: "Too many responses received" };
  return { message: body.subarray(5) };
}

export interface MessageReader {
  /** Takes the next chunk of a response body; answers the messages it completed, or what is wrong. */
  push(chunk: Buffer): Buffer[] | { problem: string };
  /** Part of a message is still waiting for the rest (at the end of a body: it was truncated). */
  hasPartial(): boolean;
}

/** Splits a streamed response body into its length-prefixed messages as the chunks arrive. */
export function createMessageReader(maxMessageBytes: number): MessageReader {
  let pending: Buffer | undefined;
  return {
    push(chunk) {
      let body = pending === undefined ? chunk : Buffer.concat([pending, chunk]);
      pending = undefined;
      const messages: Buffer[] = [];
      while (body.length >= 5) {
        if (body[0] !== 0) return { problem: "Compressed message received without a negotiated encoding" };
        const length = body.readUInt32BE(1);
        if (length > maxMessageBytes) return { problem: `Received message larger than max (${length} vs. ${maxMessageBytes})` };
        if (body.length < 5 + length) break;
        messages.push(body.subarray(5, 5 + length));
        body = body.subarray(5 + length);
      }
      if (body.length > 0) pending = body;
      return messages;
    },
    hasPartial: () => pending !== undefined,
  };
}
