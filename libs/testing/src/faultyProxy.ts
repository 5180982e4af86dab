import { connect, createServer, type Socket } from "node:net";

/**
 * What the proxy does to the traffic, switchable at run time:
 * - `pass`: forwards both ways.
 * - `drop`: destroys every open connection, and closes each new one as soon as it is accepted.
 * - `stall`: keeps every connection open but forwards nothing either way, as a dead network path
 *   or a hung server would; new connections are accepted and stall the same way.
 * - `garbage`: answers whatever the client sends itself, with bytes no JSON-RPC server would send
 *   (see `garbageFor`), and forwards nothing either way. A new connection that opens with an HTTP
 *   request (a WebSocket upgrade) first gets the server's real handshake answer, so the garbage
 *   arrives on a working WebSocket.
 *
 * A connection that stalled or saw garbage never forwards again, even once the mode is back at
 * `pass`: its stream is as good as lost (a WebSocket frame may have been cut), so the client has
 * to notice and open a new one. Only connections opened in `pass` mode forward.
 */
export type FaultMode = "pass" | "drop" | "stall" | "garbage";

export interface StartFaultyProxyOptions {
  /** The loopback port the proxy stands in front of. */
  targetPort: number;
  targetHost?: string;
  mode?: FaultMode;
}

export interface FaultyProxy {
  port: number;
  /** `ws://127.0.0.1:<port>`: the proxy in front of a WebSocket JSON-RPC server. */
  url: string;
  mode(): FaultMode;
  setMode(mode: FaultMode): void;
  /** Connections accepted since the start, those closed at once in `drop` mode included: how often clients tried. */
  connections(): number;
  stop(): Promise<void>;
}

/** How one accepted connection is treated; `handshake` forwards until the server's HTTP answer, then turns to `garbage`. */
type LinkState = "pass" | "handshake" | "stalled" | "garbage";

interface Link {
  client: Socket;
  upstream?: Socket;
  state: LinkState;
  /** The server's answer so far while in `handshake`. */
  answered: Buffer;
}

/** Starts a TCP proxy on a free loopback port in front of `targetPort`. */
export async function startFaultyProxy(options: StartFaultyProxyOptions): Promise<FaultyProxy> {
  const host = options.targetHost ?? "127.0.0.1";
  let mode: FaultMode = options.mode ?? "pass";
  let accepted = 0;
  const links = new Set<Link>();

  const close = (link: Link) => {
    links.delete(link);
    link.client.destroy();
    link.upstream?.destroy();
  };

  const openUpstream = (link: Link) => {
    const upstream = connect({ port: options.targetPort, host });
    link.upstream = upstream;
    upstream.on("data", (chunk: Buffer) => {
      if (link.state === "pass") link.client.write(chunk);
      else if (link.state === "handshake") {
        // Forward the server's HTTP answer up to its blank line, then answer the client ourselves.
        const seen = Buffer.concat([link.answered, chunk]);
        const end = seen.indexOf("\r\n\r\n");
        if (end < 0) {
          link.answered = seen;
          link.client.write(chunk);
          return;
        }
        link.client.write(chunk.subarray(0, end + 4 - link.answered.length));
        link.state = "garbage";
      }
    });
    // A stalled or garbage link keeps the client's side open whatever the server does.
    upstream.on("error", () => undefined);
    upstream.on("close", () => {
      if (link.state === "pass" || link.state === "handshake") close(link);
    });
  };

  const server = createServer((client) => {
    accepted += 1;
    client.on("error", () => undefined);
    if (mode === "drop") {
      client.destroy();
      return;
    }
    const link: Link = {
      client,
      state: mode === "stall" ? "stalled" : mode === "garbage" ? "handshake" : "pass",
      answered: Buffer.alloc(0),
    };
    links.add(link);
    client.on("close", () => close(link));
    if (link.state !== "stalled") openUpstream(link);
    let first = true;
    client.on("data", (chunk: Buffer) => {
      if (first && link.state === "handshake" && !chunk.subarray(0, 4).equals(Buffer.from("GET ")))
        link.state = "garbage";
      first = false;
      if (link.state === "pass" || link.state === "handshake") link.upstream?.write(chunk);
      else if (link.state === "garbage") link.client.write(garbageFor(chunk));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("faulty proxy: no TCP address");

  return {
    port: address.port,
    url: `ws://127.0.0.1:${address.port}`,
    mode: () => mode,
    setMode(next) {
      mode = next;
      for (const link of [...links]) {
        if (next === "drop") close(link);
        else if (next === "stall") link.state = "stalled";
        else if (next === "garbage" && link.state !== "handshake") link.state = "garbage";
      }
    },
    connections: () => accepted,
    async stop() {
      for (const link of [...links]) close(link);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The proxy's answer to one chunk from a client in `garbage` mode, as server WebSocket text
 * frames: for every JSON-RPC request in the chunk, an answer with the request's id whose result
 * has the wrong type (an object where a header, hash or hex bytes belong), then one frame that is
 * not JSON at all. So a client sees both kinds of garbage: a well-formed answer it must not
 * trust, and a frame it cannot even parse.
 */
export function garbageFor(chunk: Buffer): Buffer {
  const frames: Buffer[] = [];
  for (const frame of clientFrames(chunk)) {
    if (frame.opcode !== 1) continue;
    const id = requestId(frame.payload);
    if (id !== undefined) frames.push(textFrame(JSON.stringify({ jsonrpc: "2.0", id, result: { garbage: true } })));
  }
  frames.push(textFrame("garbage: this is not JSON {"));
  return Buffer.concat(frames);
}

function requestId(payload: Buffer): string | number | undefined {
  try {
    const id = (JSON.parse(payload.toString("utf8")) as { id?: unknown }).id;
    return typeof id === "string" || typeof id === "number" ? id : undefined;
  } catch {
    return undefined;
  }
}

/** The whole frames a client sent in one chunk (RFC 6455 §5.2; client frames are masked), unmasked. */
function* clientFrames(chunk: Buffer): Generator<{ opcode: number; payload: Buffer }> {
  let at = 0;
  while (at + 2 <= chunk.length) {
    const opcode = chunk[at]! & 0x0f;
    const masked = (chunk[at + 1]! & 0x80) !== 0;
    let length = chunk[at + 1]! & 0x7f;
    let offset = at + 2;
    if (length === 126) {
      if (offset + 2 > chunk.length) return;
      length = chunk.readUInt16BE(offset);
      offset += 2;
    } else if (length === 127) {
      if (offset + 8 > chunk.length) return;
      length = Number(chunk.readBigUInt64BE(offset));
      offset += 8;
    }
    const mask = masked ? chunk.subarray(offset, offset + 4) : undefined;
    if (masked) offset += 4;
    if (offset + length > chunk.length) return;
    const payload = Buffer.from(chunk.subarray(offset, offset + length));
    if (mask !== undefined)
      for (let index = 0; index < payload.length; index++) payload[index] = payload[index]! ^ mask[index % 4]!;
    yield { opcode, payload };
    at = offset + length;
  }
}

/** An unmasked (server to client) WebSocket text frame. */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text, "utf8");
  const header =
    payload.length < 126
      ? Buffer.from([0x81, payload.length])
      : Buffer.from([0x81, 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([header, payload]);
}
