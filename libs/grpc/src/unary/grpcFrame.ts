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

/**
 * Splits a streamed response body into its length-prefixed messages as the chunks arrive. A
 * message's chunks are joined once, when the last one arrives (HTTP/2 delivers a large message in
 * frames of 16 KiB: joining on every chunk would copy it over and over).
 */
export function createMessageReader(maxMessageBytes: number): MessageReader {
  let chunks: Buffer[] = [];
  let buffered = 0;
  // The size of the message being read, header included, once its header is in.
  let needed = -1;
  return {
    push(chunk) {
      chunks.push(chunk);
      buffered += chunk.length;
      const messages: Buffer[] = [];
      for (;;) {
        if (needed < 0) {
          if (buffered < 5) break;
          if (chunks[0]!.length < 5) chunks = [Buffer.concat(chunks, buffered)];
          const head = chunks[0]!;
          if (head[0] !== 0) return { problem: "Compressed message received without a negotiated encoding" };
          const length = head.readUInt32BE(1);
          if (length > maxMessageBytes)
            return { problem: `Received message larger than max (${length} vs. ${maxMessageBytes})` };
          needed = 5 + length;
        }
        if (buffered < needed) break;
        const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, buffered);
        messages.push(body.subarray(5, needed));
        const rest = body.subarray(needed);
        chunks = rest.length > 0 ? [rest] : [];
        buffered = rest.length;
        needed = -1;
      }
      return messages;
    },
    hasPartial: () => buffered > 0,
  };
}
