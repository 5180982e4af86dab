import { connect, createServer, type Server, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FaultyProxy, startFaultyProxy } from "./faultyProxy.js";
import { waitFor } from "./waitFor.js";

/*
 * The proxy in front of a plain TCP echo server: what the client gets back, and whether the echo
 * server saw the bytes at all, in each mode.
 */

let echo: Server;
let echoed: number;
let proxy: FaultyProxy;
const clients: Socket[] = [];

beforeEach(async () => {
  echoed = 0;
  echo = createServer((socket) => {
    socket.on("error", () => undefined);
    socket.on("data", (chunk) => {
      echoed += chunk.length;
      socket.write(chunk);
    });
  });
  await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
  const address = echo.address();
  if (address === null || typeof address === "string") throw new Error("no echo address");
  proxy = await startFaultyProxy({ targetPort: address.port });
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await proxy.stop();
  await new Promise<void>((resolve) => echo.close(() => resolve()));
});

interface Client {
  socket: Socket;
  received(): Buffer;
  closed(): boolean;
}

function open(): Client {
  const socket = connect({ port: proxy.port, host: "127.0.0.1" });
  clients.push(socket);
  const chunks: Buffer[] = [];
  let closed = false;
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  socket.on("error", () => undefined);
  socket.on("close", () => (closed = true));
  return { socket, received: () => Buffer.concat(chunks), closed: () => closed };
}

async function roundTrip(client: Client, text: string): Promise<void> {
  const before = client.received().length;
  client.socket.write(text);
  await waitFor(async () => client.received().subarray(before).toString() === text, {
    what: `echo of ${text}`,
    timeoutMs: 2_000,
    intervalMs: 10,
  });
}

/** A masked client WebSocket text frame (RFC 6455 §5.2). */
function clientTextFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = Buffer.from([1, 2, 3, 4]);
  return Buffer.concat([
    Buffer.from([0x81, 0x80 | payload.length]),
    mask,
    Buffer.from(payload.map((byte, index) => byte ^ mask[index % 4]!)),
  ]);
}

/** The texts of the unmasked server text frames in `bytes`. */
function serverTexts(bytes: Buffer): string[] {
  const texts: string[] = [];
  for (let at = 0; at + 2 <= bytes.length; ) {
    expect(bytes[at]).toBe(0x81);
    let length = bytes[at + 1]!;
    let offset = at + 2;
    if (length === 126) {
      length = bytes.readUInt16BE(offset);
      offset += 2;
    }
    texts.push(bytes.subarray(offset, offset + length).toString());
    at = offset + length;
  }
  return texts;
}

describe("startFaultyProxy", () => {
  it("passes bytes both ways, and counts connections", async () => {
    expect(proxy.url).toBe(`ws://127.0.0.1:${proxy.port}`);
    const client = open();
    await roundTrip(client, "hello");
    await roundTrip(client, "again");
    expect(proxy.mode()).toBe("pass");
    expect(proxy.connections()).toBe(1);
  });

  it("drop: closes open connections and every new one at once; pass lets new ones through", async () => {
    const before = open();
    await roundTrip(before, "hello");
    proxy.setMode("drop");
    await waitFor(async () => before.closed(), {
      what: "the open connection closed",
      timeoutMs: 2_000,
      intervalMs: 10,
    });
    const during = open();
    during.socket.write("anyone?");
    await waitFor(async () => during.closed(), { what: "the new connection closed", timeoutMs: 2_000, intervalMs: 10 });
    expect(during.received().length).toBe(0);
    expect(proxy.connections()).toBe(2);
    proxy.setMode("pass");
    await roundTrip(open(), "back");
  });

  it("stall: keeps connections open and forwards nothing; a stalled connection stays stalled after pass", async () => {
    const before = open();
    await roundTrip(before, "hello");
    const echoedBefore = echoed;
    proxy.setMode("stall");
    const during = open();
    before.socket.write("lost");
    during.socket.write("lost too");
    await sleep(300);
    expect([before.received().toString(), during.received().length, before.closed(), during.closed()]).toEqual([
      "hello",
      0,
      false,
      false,
    ]);
    expect(echoed).toBe(echoedBefore);

    proxy.setMode("pass");
    before.socket.write("still lost");
    await sleep(200);
    expect(before.received().toString()).toBe("hello");
    await roundTrip(open(), "a new connection works");
  });

  it("garbage: answers each request itself with a wrong-typed answer and a frame that is not JSON", async () => {
    const before = open();
    await roundTrip(before, "hello");
    const echoedBefore = echoed;
    proxy.setMode("garbage");
    before.socket.write(
      clientTextFrame(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "chain_getHeader", params: [] })),
    );
    await waitFor(async () => serverTexts(before.received().subarray(5)).length === 2, {
      what: "two garbage frames",
      timeoutMs: 2_000,
      intervalMs: 10,
    });
    const [answer, notJson] = serverTexts(before.received().subarray(5));
    expect(JSON.parse(answer!)).toEqual({ jsonrpc: "2.0", id: 7, result: { garbage: true } });
    expect(() => JSON.parse(notJson!)).toThrow(SyntaxError);
    expect(echoed).toBe(echoedBefore);

    // Bytes that are no frame still get a frame that is not JSON.
    const raw = open();
    raw.socket.write("not a frame");
    await waitFor(async () => raw.received().length > 0, {
      what: "a garbage answer",
      timeoutMs: 2_000,
      intervalMs: 10,
    });
    expect(() => JSON.parse(serverTexts(raw.received())[0]!)).toThrow(SyntaxError);
    expect(echoed).toBe(echoedBefore);
  });

  it("garbage: a new connection's HTTP upgrade goes through to the server, what follows gets garbage", async () => {
    proxy.setMode("garbage");
    const client = open();
    const upgrade = "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\r\n";
    await roundTrip(client, upgrade);
    client.socket.write(clientTextFrame(JSON.stringify({ jsonrpc: "2.0", id: "a", method: "m" })));
    await waitFor(async () => serverTexts(client.received().subarray(upgrade.length)).length === 2, {
      what: "two garbage frames",
      timeoutMs: 2_000,
      intervalMs: 10,
    });
    expect(JSON.parse(serverTexts(client.received().subarray(upgrade.length))[0]!)).toMatchObject({
      id: "a",
      result: { garbage: true },
    });
    expect(echoed).toBe(upgrade.length);
  });
});
