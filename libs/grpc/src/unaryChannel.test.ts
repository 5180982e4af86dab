import { createServer as createHttp2Server, type Http2Server } from "node:http2";
import {
  type AddressInfo,
  connect as connectTcp,
  createServer as createTcpServer,
  type Socket,
  type Server as TcpServer,
} from "node:net";
import { Metadata, type StatusObject, status } from "@grpc/grpc-js";
import { createLogger } from "@platform/log";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jsonUnaryService } from "./jsonUnaryService.js";
import { type RunningGrpcServer, startGrpcServer } from "./startGrpcServer.js";
import { parseTarget } from "./unary/parseTarget.js";
import { createUnaryChannel, type UnaryChannel, type UnaryChannelOptions, type UnaryResult } from "./unaryChannel.js";
import { unaryHandler } from "./unaryHandler.js";

// Real grpc-js servers on loopback answer the lean channel: it must speak the same protocol as
// grpc-js's own client, balance, survive restarts and graceful shutdowns, and keep its deadlines.
interface Echo {
  text: string;
  delayMs?: number;
  bytes?: number;
}
const definition = jsonUnaryService({ echo: "/test.Echo/Echo" });
const echoMethod = definition.echo!;
const log = createLogger({ service: "unary-channel-test", level: "silent" });

async function echoServer(name: string, port = 0): Promise<RunningGrpcServer> {
  const server = await startGrpcServer({
    host: "127.0.0.1",
    port,
    services: [
      {
        name: "test.Echo",
        definition,
        implementation: {
          echo: unaryHandler<
            Echo,
            { from: string; text: string; requestId: unknown; deadlineInMs: number; padding?: string }
          >(log, "Echo", async (request, call) => {
            if (request.delayMs) await new Promise((resolve) => setTimeout(resolve, request.delayMs));
            const deadline = call.getDeadline();
            const deadlineInMs = (deadline instanceof Date ? deadline.getTime() : deadline) - Date.now();
            return {
              from: name,
              text: request.text,
              requestId: call.metadata.get("x-request-id")[0],
              deadlineInMs,
              ...(request.bytes ? { padding: "x".repeat(request.bytes) } : {}),
            };
          }),
        },
      },
    ],
  });
  server.setServing(true);
  return server;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

// Every behaviour below holds whether the calls of a turn travel in one stream or one stream each.
let batchCalls = false;

function channel(
  target: string,
  maxAttempts = 1,
  maxReceiveBytes?: number,
  extra: Partial<UnaryChannelOptions> = {},
): UnaryChannel {
  const parsed = parseTarget(target);
  if (!parsed) throw new Error(`unparsable target ${target}`);
  const created = createUnaryChannel(parsed, {
    maxAttempts,
    batchCalls,
    ...(maxReceiveBytes ? { maxReceiveBytes } : {}),
    ...extra,
  });
  cleanups.push(() => created.close());
  return created;
}

async function echo(
  on: UnaryChannel,
  request: Echo,
  deadlineMs = 2_000,
  metadata = new Metadata(),
): Promise<
  UnaryResult & { body?: { from: string; text: string; requestId?: string; deadlineInMs?: number; padding?: string } }
> {
  const result = await on.call(
    "/test.Echo/Echo",
    echoMethod.requestSerialize(request),
    metadata,
    Date.now() + deadlineMs,
  );
  return result.ok
    ? { ...result, body: echoMethod.responseDeserialize(result.message) as { from: string; text: string } }
    : result;
}

const codeOf = (result: UnaryResult) => (result.ok ? status.OK : result.status.code);

describe.each([
  { mode: "one stream per call", batched: false },
  { mode: "a turn's calls in one stream", batched: true },
])("unary channel, $mode", ({ batched }) => {
  beforeEach(() => {
    batchCalls = batched;
  });

  describe("connecting, balancing and failing over", connectingBalancingAndFailover);
  describe("deadlines, limits, failures and idle connections", deadlinesLimitsFailuresAndIdle);
});

// The tests of one mode, registered inside the describe.each above so that both modes run each.
function connectingBalancingAndFailover(): void {
  it("calls a grpc-js server, carrying metadata, the deadline (as grpc-timeout) and the answer", async () => {
    const server = await echoServer("a");
    cleanups.push(() => server.shutdown(100));
    const metadata = new Metadata();
    metadata.set("x-request-id", "req-1");
    const result = await echo(channel(`127.0.0.1:${server.port}`), { text: "hi" }, 2_000, metadata);
    expect(result.body).toMatchObject({ from: "a", text: "hi", requestId: "req-1" });
    expect(result.body?.deadlineInMs).toBeGreaterThan(1_500);
    expect(result.body?.deadlineInMs).toBeLessThanOrEqual(2_000);
  });

  it("resolves a DNS name", async () => {
    const server = await echoServer("a");
    cleanups.push(() => server.shutdown(100));
    // localhost may also resolve to ::1, where nothing listens: that address just never becomes ready.
    expect((await echo(channel(`dns:///localhost:${server.port}`), { text: "dns" })).body?.from).toBe("a");
  });

  it("spreads calls round-robin over every listed address", async () => {
    const a = await echoServer("a");
    const b = await echoServer("b");
    cleanups.push(
      () => a.shutdown(100),
      () => b.shutdown(100),
    );
    const both = channel(`ipv4:127.0.0.1:${a.port},127.0.0.1:${b.port}`);
    await echo(both, { text: "warm" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const froms = await Promise.all(
      Array.from({ length: 20 }, () => echo(both, { text: "x" }).then((result) => result.body?.from)),
    );
    expect(froms.filter((from) => from === "a").length).toBe(10);
    expect(froms.filter((from) => from === "b").length).toBe(10);
  });

  it("moves new calls to the other server while one shuts down gracefully, and loses none", async () => {
    const a = await echoServer("a");
    const b = await echoServer("b");
    cleanups.push(() => b.shutdown(100));
    const both = channel(`ipv4:127.0.0.1:${a.port},127.0.0.1:${b.port}`);
    await echo(both, { text: "warm" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const inFlight = Array.from({ length: 10 }, () => echo(both, { text: "slow", delayMs: 300 }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stopping = a.shutdown(5_000);
    const during = await Promise.all(Array.from({ length: 20 }, () => echo(both, { text: "during" })));
    const finished = await Promise.all(inFlight);
    await stopping;
    expect([...finished, ...during].map(codeOf).every((code) => code === status.OK)).toBe(true);
    expect(during.every((result) => result.body?.from === "b")).toBe(true);
  });

  it("fails calls to a vanished server as UNAVAILABLE, retries them when allowed, and uses the server again once it is back", async () => {
    // The server sits behind a TCP relay that can vanish the way a killed process does: every
    // connection cut at once, nothing listening, then back on the same port.
    const server = await echoServer("a");
    cleanups.push(() => server.shutdown(100));
    const relay = await tcpRelay(server.port);
    cleanups.push(() => relay.close());
    const single = channel(`127.0.0.1:${relay.port}`);
    expect(codeOf(await echo(single, { text: "first" }))).toBe(status.OK);
    const inFlight = echo(single, { text: "slow", delayMs: 2_000 }, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await relay.vanish();
    expect(codeOf(await inFlight)).toBe(status.UNAVAILABLE);
    expect(codeOf(await echo(single, { text: "nobody" }))).toBe(status.UNAVAILABLE);

    await relay.restore();
    const start = Date.now();
    let result = await echo(single, { text: "again" });
    while (!result.ok && Date.now() - start < 5_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      result = await echo(single, { text: "again" });
    }
    expect(result.body?.from).toBe("a");
    // Reconnection backoff is at most 2 s (plus jitter): the server is used again without a new channel.
    expect(Date.now() - start).toBeLessThan(4_000);

    // With retries allowed, calls cut off with the vanished server are answered by the one that stayed.
    const stayed = await echoServer("stayed");
    cleanups.push(() => stayed.shutdown(100));
    const retrying = channel(`ipv4:127.0.0.1:${relay.port},127.0.0.1:${stayed.port}`, 3);
    await echo(retrying, { text: "warm" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const slow = Array.from({ length: 4 }, () => echo(retrying, { text: "slow", delayMs: 500 }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await relay.vanish();
    const outcomes = await Promise.all(slow);
    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([]);
    expect(outcomes.every((outcome) => outcome.body?.from === "stayed")).toBe(true);
    // Without retries the same cut is the caller's UNAVAILABLE.
    await relay.restore();
    const plain = channel(`127.0.0.1:${relay.port}`);
    expect(codeOf(await echo(plain, { text: "warm" }))).toBe(status.OK);
    const cut = echo(plain, { text: "slow", delayMs: 500 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await relay.vanish();
    expect(codeOf(await cut)).toBe(status.UNAVAILABLE);
  });
}

function deadlinesLimitsFailuresAndIdle(): void {
  it("keeps the deadline while connecting and while waiting for the answer", async () => {
    // A TCP server that accepts and never speaks HTTP/2: the connection stays "connecting".
    const sockets = new Set<Socket>();
    const silent: TcpServer = createTcpServer((socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          silent.close(() => resolve());
        }),
    );
    const started = Date.now();
    const waited = await echo(channel(`127.0.0.1:${(silent.address() as AddressInfo).port}`), { text: "x" }, 200);
    expect(codeOf(waited)).toBe(status.DEADLINE_EXCEEDED);
    expect(Date.now() - started).toBeLessThan(1_000);

    const server = await echoServer("a");
    cleanups.push(() => server.shutdown(100));
    const slow = await echo(channel(`127.0.0.1:${server.port}`), { text: "slow", delayMs: 500 }, 100);
    expect(codeOf(slow)).toBe(status.DEADLINE_EXCEEDED);
  });

  it("refuses an answer over the size limit, and maps non-gRPC answers and resets to gRPC codes", async () => {
    const server = await echoServer("a");
    cleanups.push(() => server.shutdown(100));
    expect(codeOf(await echo(channel(`127.0.0.1:${server.port}`, 1, 1_000), { text: "big", bytes: 5_000 }))).toBe(
      status.RESOURCE_EXHAUSTED,
    );

    const http: Http2Server = createHttp2Server();
    http.on("stream", (stream, headers) => {
      if (headers[":path"] === "/proxy/Unavailable") stream.respond({ ":status": 503 }, { endStream: true });
      else if (headers[":path"] === "/proxy/Missing") stream.respond({ ":status": 404 }, { endStream: true });
      else if (headers[":path"] === "/proxy/Reset") stream.close(8);
      else {
        stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
        stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
        stream.end();
      }
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => http.close(() => resolve())));
    const proxy = channel(`127.0.0.1:${(http.address() as AddressInfo).port}`);
    const call = (path: string) => proxy.call(path, Buffer.from("{}"), new Metadata(), Date.now() + 2_000);
    expect(codeOf(await call("/proxy/Unavailable"))).toBe(status.UNAVAILABLE);
    expect(codeOf(await call("/proxy/Missing"))).toBe(status.UNIMPLEMENTED);
    expect(codeOf(await call("/proxy/Reset"))).toBe(status.CANCELLED);
    // OK without a message is not an answer.
    expect(codeOf(await call("/proxy/Empty"))).toBe(status.UNIMPLEMENTED);
  });

  it("hands on a failure's metadata, grpc-status-details-bin included, as grpc-js does", async () => {
    const details = Buffer.from([8, 9, 18, 3, 110, 111, 33]);
    const server = await startGrpcServer({
      host: "127.0.0.1",
      port: 0,
      services: [
        {
          name: "test.Echo",
          definition,
          implementation: {
            echo: (_call: unknown, callback: (error: Partial<StatusObject>) => void) => {
              const metadata = new Metadata();
              metadata.set("grpc-status-details-bin", details);
              metadata.set("x-problem-code", "REFUSED");
              callback({ code: status.FAILED_PRECONDITION, details: "refused", metadata });
            },
          },
        },
      ],
    });
    server.setServing(true);
    cleanups.push(() => server.shutdown(100));
    const result = await echo(channel(`127.0.0.1:${server.port}`), { text: "x" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.status.code).toBe(status.FAILED_PRECONDITION);
    expect(result.status.details).toBe("refused");
    expect(result.status.metadata.get("grpc-status-details-bin")).toEqual([details]);
    expect(result.status.metadata.get("x-problem-code")).toEqual(["REFUSED"]);
  });

  it("closes its connections after the idle timeout, and opens them again for the next call", async () => {
    const server = await echoServer("a");
    cleanups.push(() => server.shutdown(100));
    const relay = await tcpRelay(server.port);
    cleanups.push(() => relay.close());
    const idle = channel(`127.0.0.1:${relay.port}`, 1, undefined, { idleTimeoutMs: 150 });
    expect((await echo(idle, { text: "one" })).body?.text).toBe("one");
    expect(relay.accepted()).toBe(1);
    // Calls keep it busy: no idle close while they come more often than the timeout.
    for (let call = 0; call < 4; call += 1) {
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect((await echo(idle, { text: "busy" })).ok).toBe(true);
    }
    expect(relay.accepted()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(relay.openConnections()).toBe(0);
    expect((await echo(idle, { text: "two" })).body?.text).toBe("two");
    expect(relay.accepted()).toBe(2);
  });

  it("fails at once, as UNAVAILABLE, when nothing listens, and after close", async () => {
    const nowhere = channel("127.0.0.1:1");
    const started = Date.now();
    expect(codeOf(await echo(nowhere, { text: "x" }, 5_000))).toBe(status.UNAVAILABLE);
    expect(Date.now() - started).toBeLessThan(2_000);
    const server = await echoServer("a");
    cleanups.push(() => server.shutdown(100));
    const closed = channel(`127.0.0.1:${server.port}`);
    closed.close();
    expect(codeOf(await echo(closed, { text: "x" }))).toBe(status.UNAVAILABLE);
  });
}

describe("parseTarget", () => {
  it("reads the target forms grpc-js accepts, and refuses the others", () => {
    expect(parseTarget("data-query:50051")).toEqual({ kind: "dns", host: "data-query", port: 50051 });
    expect(parseTarget("dns:///data-query.ns.svc:50051")).toEqual({
      kind: "dns",
      host: "data-query.ns.svc",
      port: 50051,
    });
    expect(parseTarget("127.0.0.1:7")).toEqual({ kind: "dns", host: "127.0.0.1", port: 7 });
    expect(parseTarget("ipv4:10.0.0.1:1,10.0.0.2:2")).toEqual({
      kind: "static",
      addresses: [
        { host: "10.0.0.1", port: 1 },
        { host: "10.0.0.2", port: 2 },
      ],
    });
    expect(parseTarget("ipv6:[::1]:9")).toEqual({ kind: "static", addresses: [{ host: "::1", port: 9 }] });
    for (const unsupported of [
      "unix:/tmp/socket",
      "dns://8.8.8.8/name:1",
      "xds:///svc",
      "name",
      "name:0",
      "name:70000",
      "ipv4:",
      "ipv4:1.2.3.4",
    ]) {
      expect(parseTarget(unsupported), unsupported).toBeUndefined();
    }
  });
});

/** A loopback TCP relay to `port` that can drop every connection and stop listening, then listen again. */
async function tcpRelay(port: number): Promise<{
  port: number;
  /** Client connections accepted so far. */
  accepted(): number;
  /** Client connections open now. */
  openConnections(): number;
  vanish(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  const clients = new Set<Socket>();
  let accepted = 0;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
  };
  const server = createTcpServer((client) => {
    const upstream = connectTcp(port, "127.0.0.1");
    accepted += 1;
    clients.add(client);
    client.on("close", () => clients.delete(client));
    track(client);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  const listen = (on: number) => new Promise<void>((resolve) => server.listen(on, "127.0.0.1", resolve));
  await listen(0);
  const relayPort = (server.address() as AddressInfo).port;
  const vanish = async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.resetAndDestroy();
    });
  };
  return {
    port: relayPort,
    accepted: () => accepted,
    openConnections: () => clients.size,
    vanish,
    restore: () => listen(relayPort),
    close: async () => {
      if (server.listening) await vanish();
    },
  };
}
