import type { ServerResponse } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ClientOptions, createClient } from "./client.js";
import type { StreamEvent } from "./events.js";
import { type FakeApi, KEY, type SeenRequest, sendProblem, sleep, startFakeApi } from "./testing/fakeApi.js";

// The event streams against an in-process server that writes `text/event-stream` as API.md
// describes it: resumable ids, heartbeat comments, a final `dropped` event, 429 refusals.
let fake: FakeApi;
const INTENTS = "/intents/v1/events";
const USER = "0x52908400098527886E0F7030069857D2E4169EE7";

beforeEach(async () => {
  fake = await startFakeApi();
});

afterEach(async () => {
  await fake.close();
});

const clientOf = (options: Partial<ClientOptions> = {}) =>
  createClient({ baseUrl: fake.url, apiKey: KEY, streams: { initialDelayMs: 10 }, ...options });

/** The change log the server streams from: ids as the read models' change logs make them. */
const changes = Array.from({ length: 6 }, (_, index) => ({
  id: `17000000000${index}-0`,
  data: { orderId: `0x${String(index).padStart(64, "0")}`, status: "OPEN" },
}));

function openStream(response: ServerResponse): void {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
  response.flushHeaders();
}

function writeChange(response: ServerResponse, index: number): void {
  const change = changes[index]!;
  response.write(`id: ${change.id}\nevent: status\ndata: ${JSON.stringify(change.data)}\n\n`);
}

/** The changes after a `Last-Event-ID`, as the server resumes. */
const after = (request: SeenRequest) => {
  const last = request.headers["last-event-id"];
  return last === undefined ? 0 : changes.findIndex((change) => change.id === last) + 1;
};

async function take<T>(events: AsyncGenerator<T>, count: number): Promise<T[]> {
  const taken: T[] = [];
  for await (const event of events) {
    taken.push(event);
    if (taken.length === count) break;
  }
  return taken;
}

const statusOf = (index: number): StreamEvent => ({
  type: "status",
  id: changes[index]!.id,
  data: changes[index]!.data,
});

describe("resume", () => {
  it("reconnects after a dropped connection with Last-Event-ID: no gap, no repeat, heartbeats ignored", async () => {
    const connections: SeenRequest[] = [];
    let closed: Promise<void> | undefined;
    fake.route("GET", INTENTS, (request, response) => {
      connections.push(request);
      openStream(response);
      if (connections.length === 1) {
        for (const index of [0, 1, 2]) writeChange(response, index);
        // Half of the fourth event, then the connection breaks: it must not be delivered.
        response.write(`id: ${changes[3]!.id}\nevent: status\ndata: {"orderId":`);
        setTimeout(() => response.socket?.destroy(), 20);
        return;
      }
      closed = new Promise((resolve) => response.on("close", resolve));
      response.write(": heartbeat\n\n");
      for (let index = after(request); index < changes.length; index += 1) writeChange(response, index);
    });
    const events = await take(clientOf().events.intents({ userAddress: USER }), 6);
    expect(events).toEqual(changes.map((_, index) => statusOf(index)));
    expect(connections.map((request) => request.url)).toEqual([
      `${INTENTS}?userAddress=${USER}`,
      `${INTENTS}?userAddress=${USER}`,
    ]);
    expect(connections.map((request) => request.headers["last-event-id"])).toEqual([undefined, changes[2]!.id]);
    expect(connections[0]!.headers.accept).toBe("text/event-stream");
    // Leaving the loop closes the connection.
    await closed;
  });

  it("starts after a saved position", async () => {
    const lastIds: unknown[] = [];
    fake.route("GET", INTENTS, (request, response) => {
      lastIds.push(request.headers["last-event-id"]);
      openStream(response);
      for (let index = after(request); index < changes.length; index += 1) writeChange(response, index);
    });
    const events = await take(clientOf().events.intents({ orderId: "0x01" }, { lastEventId: changes[3]!.id }), 2);
    expect(events).toEqual([statusOf(4), statusOf(5)]);
    expect(lastIds).toEqual([changes[3]!.id]);
  });

  it("surfaces the server's dropped and closed events, then resumes after the last delivered event", async () => {
    const lastIds: unknown[] = [];
    fake.route("GET", INTENTS, (request, response) => {
      lastIds.push(request.headers["last-event-id"]);
      openStream(response);
      writeChange(response, after(request));
      if (lastIds.length === 1) response.end(`event: dropped\ndata: {"reason":"slow"}\n\n`);
      if (lastIds.length === 2) response.end(`event: closed\ndata: {"reason":"token expired"}\n\n`);
    });
    const events = await take(clientOf().events.intents({ userAddress: USER }), 5);
    expect(events).toEqual([
      statusOf(0),
      { type: "dropped", id: undefined, data: { reason: "slow" } },
      statusOf(1),
      { type: "closed", id: undefined, data: { reason: "token expired" } },
      statusOf(2),
    ]);
    expect(lastIds).toEqual([undefined, changes[0]!.id, changes[1]!.id]);
  });

  it("takes a connection silent past the idle timeout as dead; heartbeats keep one alive", async () => {
    const lastIds: unknown[] = [];
    fake.route("GET", INTENTS, async (request, response) => {
      lastIds.push(request.headers["last-event-id"]);
      openStream(response);
      if (lastIds.length > 1) return writeChange(response, after(request));
      writeChange(response, 0);
      for (let beat = 0; beat < 6; beat += 1) {
        await sleep(100);
        response.write(":\n\n");
      }
      writeChange(response, 1);
      // Then nothing: neither events nor heartbeats.
    });
    const client = clientOf({ streams: { initialDelayMs: 10, idleTimeoutMs: 300 } });
    const events = await take(client.events.intents({ userAddress: USER }), 3);
    expect(events).toEqual([statusOf(0), statusOf(1), statusOf(2)]);
    expect(lastIds).toEqual([undefined, changes[1]!.id]);
  });
});

describe("refusals", () => {
  it("throws a refused first connection (429 past the key's stream cap) as ProblemError", async () => {
    let connections = 0;
    fake.route("GET", INTENTS, (_request, response) => {
      connections += 1;
      sendProblem(response, 429, "RATE_LIMITED", "at most 2 streams per key", { "retry-after": "1" });
    });
    const events = clientOf().events.intents({ userAddress: USER });
    await expect(events.next()).rejects.toMatchObject({ status: 429, code: "RATE_LIMITED", retryAfterSeconds: 1 });
    expect(connections).toBe(1);
  });

  it("waits out a 429 when reconnecting", async () => {
    const lastIds: unknown[] = [];
    fake.route("GET", INTENTS, (request, response) => {
      lastIds.push(request.headers["last-event-id"]);
      if (lastIds.length === 2)
        return sendProblem(response, 429, "RATE_LIMITED", "old stream not closed yet", { "retry-after": "0" });
      openStream(response);
      if (lastIds.length === 1) return void response.end(`id: ${changes[0]!.id}\nevent: status\ndata: {}\n\n`);
      writeChange(response, after(request));
    });
    const events = await take(clientOf().events.intents({ userAddress: USER }), 2);
    expect(events.map((event) => event.id)).toEqual([changes[0]!.id, changes[1]!.id]);
    expect(lastIds).toEqual([undefined, changes[0]!.id, changes[0]!.id]);
  });

  it("renews the token after 401 INVALID_TOKEN and connects", async () => {
    fake.route("GET", INTENTS, (request, response) => {
      openStream(response);
      writeChange(response, after(request));
    });
    const client = clientOf();
    await client.accessToken();
    fake.revokeTokens();
    expect(await take(client.events.intents({ userAddress: USER }), 1)).toEqual([statusOf(0)]);
    expect(fake.refused.map((request) => request.token)).toEqual(["at-1"]);
  });

  it("gives up after maxAttempts connections in a row that bring no change", async () => {
    let connections = 0;
    fake.route("GET", INTENTS, (_request, response) => {
      connections += 1;
      openStream(response);
      // Accepted, then ended at once, as a stream whose source has failed is.
      response.end(`retry: 5\n\nevent: closed\ndata: {"reason":"the stream cannot go on"}\n\n`);
    });
    const client = clientOf({ streams: { initialDelayMs: 5, maxAttempts: 3 } });
    const seen: string[] = [];
    const consume = async () => {
      for await (const event of client.events.intents({ userAddress: USER })) seen.push(event.type);
    };
    await expect(consume()).rejects.toThrow(/ended 4 times in a row before any change or heartbeat/);
    expect(connections).toBe(4);
    expect(seen).toEqual(["closed", "closed", "closed", "closed"]);
  });

  it("ends when its signal aborts, closing the connection", async () => {
    let closed: Promise<void> | undefined;
    fake.route("GET", INTENTS, (_request, response) => {
      closed = new Promise((resolve) => response.on("close", resolve));
      openStream(response);
    });
    const abort = new AbortController();
    const events = clientOf().events.intents({ userAddress: USER }, { signal: abort.signal });
    const next = events.next();
    await sleep(100);
    abort.abort();
    await expect(next).resolves.toEqual({ done: true, value: undefined });
    await closed;
  });
});

describe("data stream", () => {
  it("asks for its topics and yields head, pool and price events, skipping types it does not know", async () => {
    let url = "";
    fake.route("GET", "/data/v1/events", (request, response) => {
      url = request.url;
      openStream(response);
      response.write(`id: 1-0\nevent: head\ndata: {"projection":"accounts","block_number":7}\n\n`);
      response.write(`id: 2-0\nevent: surprise\ndata: {}\n\n`);
      response.write(`id: 2-1\nevent: live\ndata: {"position":"2-1"}\n\n`);
      response.write(`id: 3-0\ndata: no event name\n\n`);
      response.write(`id: 4-0\nevent: pool\ndata: {"netuid":1}\n\n`);
      response.write(`id: 5-0\nevent: price\ndata: not json\n\n`);
    });
    const events = await take(clientOf().events.data({ topics: ["heads", "pools", "prices"] }), 4);
    expect(url).toBe("/data/v1/events?topics=heads,pools,prices");
    expect(events).toEqual([
      { type: "head", id: "1-0", data: { projection: "accounts", block_number: 7 } },
      { type: "live", id: "2-1", data: { position: "2-1" } },
      { type: "pool", id: "4-0", data: { netuid: 1 } },
      { type: "price", id: "5-0", data: "not json" },
    ]);
  });
});
