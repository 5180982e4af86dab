import { createServer, type IncomingMessage, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { frame, openSse, type SseWriter } from "./sseWriter.js";

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server whose one stream the test drives, and a client request to it. */
async function streamPair(options: { maxBufferedBytes: number; heartbeatMs: number }) {
  let writer!: SseWriter;
  let dropped = 0;
  const opened = new Promise<void>((resolve) => {
    server = createServer((_request, response) => {
      writer = openSse(response, { ...options, onDropped: () => (dropped += 1) });
      resolve();
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const { port } = server!.address() as AddressInfo;
  const response = await new Promise<IncomingMessage>((resolve) =>
    request({ port, host: "127.0.0.1", path: "/", headers: { accept: "text/event-stream" } }, resolve).end(),
  );
  await opened;
  return { writer: () => writer, response, dropped: () => dropped };
}

async function readAll(response: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of response) text += String(chunk);
  return text;
}

describe("openSse", () => {
  it("writes events as the WHATWG format says, with heartbeats, and a last event on close", async () => {
    const pair = await streamPair({ maxBufferedBytes: 1 << 20, heartbeatMs: 20 });
    expect(pair.response.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(pair.response.headers["cache-control"]).toBe("no-store");
    const writer = pair.writer();
    expect(writer.send({ id: "1-0", event: "status", data: { a: "x\ny" } })).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 70));
    writer.close({ event: "closed", data: { reason: "done" } });
    const text = await readAll(pair.response);
    expect(text.startsWith("retry: 1000\n\n")).toBe(true);
    expect(text).toContain('id: 1-0\nevent: status\ndata: {"a":"x\\ny"}\n\n');
    expect(text).toContain(": keep-alive\n\n");
    expect(text.endsWith('event: closed\ndata: {"reason":"done"}\n\n')).toBe(true);
    await writer.closed;
    expect(writer.isOpen()).toBe(false);
    expect(writer.send({ event: "late", data: 1 })).toBe(false);
  });

  it("drops a client that stops reading, with a final event, and keeps at most its bound in memory (figure printed)", async () => {
    const bound = 256 * 1024;
    const pair = await streamPair({ maxBufferedBytes: bound, heartbeatMs: 60_000 });
    pair.response.pause();
    const writer = pair.writer();
    const event = { id: "1-0", event: "status", data: { padding: "x".repeat(2_000) } };
    const before = process.memoryUsage().heapUsed;
    let sent = 0;
    // Far more than the bound: a client that stopped reading must not make the server keep it all.
    for (let i = 0; i < 20_000 && writer.send(event); i += 1) sent += 1;
    const held = process.memoryUsage().heapUsed - before;
    const eventBytes = frame(event).length;
    console.log(
      `slow client: dropped after ${sent} events (${((sent * eventBytes) / 1024).toFixed(0)} KiB written, bound ${bound / 1024} KiB, socket buffers included); heap grew ${(held / 1024 / 1024).toFixed(1)} MiB where 20,000 events are ${((20_000 * eventBytes) / 1024 / 1024).toFixed(0)} MiB`,
    );
    expect(pair.dropped()).toBe(1);
    expect(writer.isOpen()).toBe(false);
    // What was written before the drop is the bound plus what the kernel's socket buffers took.
    expect(sent * eventBytes).toBeLessThan(bound + 8 * 1024 * 1024);
    expect(sent).toBeLessThan(20_000);
    pair.response.resume();
    const text = await readAll(pair.response);
    expect(
      text.endsWith('event: dropped\ndata: {"reason":"the client read too slowly; resume with Last-Event-ID"}\n\n'),
    ).toBe(true);
  });
});
