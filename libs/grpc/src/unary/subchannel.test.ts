import { constants, createServer, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createSubchannel, type Subchannel } from "./subchannel.js";

// A bare HTTP/2 server on loopback that counts the pings and the connections a subchannel makes.
interface PingCountingServer {
  authority: string;
  pings(): number;
  sessions: ServerHttp2Session[];
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function pingCountingServer(onPing?: (session: ServerHttp2Session) => void): Promise<PingCountingServer> {
  const server: Http2Server = createServer();
  const sessions: ServerHttp2Session[] = [];
  let pings = 0;
  server.on("session", (session) => {
    sessions.push(session);
    session.on("ping", () => {
      pings += 1;
      onPing?.(session);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const session of sessions) session.destroy();
        server.close(() => resolve());
      }),
  );
  return { authority: `127.0.0.1:${(server.address() as AddressInfo).port}`, pings: () => pings, sessions };
}

function subchannel(authority: string, keepaliveMs: number): Subchannel {
  const created = createSubchannel(
    authority,
    { onStateChange: () => undefined, onConnectionLost: () => undefined },
    { keepaliveMs },
  );
  cleanups.push(() => created.close());
  return created;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function ready(channel: Subchannel): Promise<void> {
  for (let waited = 0; channel.readySession() === undefined; waited += 10) {
    if (waited > 2_000) throw new Error("the subchannel never connected");
    await sleep(10);
  }
}

describe("subchannel keepalive", () => {
  it("pings only while calls are open", async () => {
    const server = await pingCountingServer();
    const channel = subchannel(server.authority, 40);
    await ready(channel);
    await sleep(250);
    expect(server.pings()).toBe(0);

    const ended = channel.callStarted();
    await sleep(250);
    const whileOpen = server.pings();
    expect(whileOpen).toBeGreaterThanOrEqual(3);

    ended();
    await sleep(250);
    expect(server.pings()).toBeLessThanOrEqual(whileOpen + 1);
  });

  it("pings half as often after the server answers GOAWAY too_many_pings, and connects again", async () => {
    const server = await pingCountingServer((session) => {
      if (server.sessions.length === 1)
        session.goaway(constants.NGHTTP2_ENHANCE_YOUR_CALM, 0, Buffer.from("too_many_pings"));
    });
    const channel = subchannel(server.authority, 40);
    await ready(channel);
    const ended = channel.callStarted();
    for (let waited = 0; server.sessions.length < 2; waited += 10) {
      if (waited > 2_000) throw new Error("no second connection after the GOAWAY");
      await sleep(10);
    }
    expect(channel.keepaliveMs()).toBe(80);
    await ready(channel);
    ended();
  });
});
