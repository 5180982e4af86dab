import { join } from "node:path";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { type RunningNats, startNats, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectSignals, type Signals } from "./connectSignals.js";
import { subjects } from "./subjects.js";

const dir = tempDir("signals");
let server: RunningNats;
let signals: Signals;

beforeAll(async () => {
  server = await startNats({ dir: join(dir.path, "js"), logFile: join(dir.path, "nats.log") });
  signals = connectSignals({ servers: [server.url], name: "signals-test" });
  await waitFor(() => signals.ready(), { what: "nats ready" });
});

afterAll(async () => {
  await signals.close();
  await server.stop();
  dir.remove();
});

describe("NATS signals against a real nats-server", () => {
  it("delivers a published signal to a wildcard subscriber", async () => {
    const received: Array<[unknown, string]> = [];
    const unsubscribe = signals.subscribe("readmodel.changed.*", (payload, subject) =>
      received.push([payload, subject]),
    );
    const other = connectSignals({ servers: [server.url], name: "signals-test-2" });
    await waitFor(() => other.ready(), { what: "second connection" });
    expect(other.publish(subjects.readModelChanged("intents"), { orderId: "0x01" })).toBe(true);
    await waitFor(async () => received.length === 1, { what: "signal delivery", timeoutMs: 2_000 });
    expect(received[0]).toEqual([{ orderId: "0x01" }, "readmodel.changed.intents"]);
    unsubscribe();
    await other.close();
  });

  it("runs with JetStream enabled (stream with de-duplication)", async () => {
    const nc = await connect({ servers: [server.url] });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: "SIGNALS_TEST", subjects: ["signals-test.>"] });
    const js = jetstream(nc);
    const first = await js.publish("signals-test.a", "x", { msgID: "m1" });
    const second = await js.publish("signals-test.a", "x", { msgID: "m1" });
    expect(second.duplicate).toBe(true);
    expect(second.seq).toBe(first.seq);
    await nc.close();
  });

  it("reports not-ready while NATS is down, drops signals, and resubscribes after it returns", async () => {
    const received: unknown[] = [];
    signals.subscribe(subjects.intentsNotified, (payload) => received.push(payload));
    await server.stop();
    await waitFor(async () => !(await signals.ready(200)), { what: "nats not ready", timeoutMs: 5_000 });
    server = await startNats({ port: server.port, dir: join(dir.path, "js"), logFile: join(dir.path, "nats.log") });
    await waitFor(() => signals.ready(200), { what: "nats ready again", timeoutMs: 10_000 });
    const publisher = connectSignals({ servers: [server.url], name: "signals-test-3" });
    await waitFor(() => publisher.ready(), { what: "publisher" });
    await waitFor(
      async () => {
        publisher.publish(subjects.intentsNotified, { chainId: 1, txHash: "0xab" });
        await new Promise((resolve) => setTimeout(resolve, 50));
        return received.length > 0;
      },
      { what: "signal after reconnect", timeoutMs: 5_000 },
    );
    expect(received[0]).toEqual({ chainId: 1, txHash: "0xab" });
    await publisher.close();
  });
});
