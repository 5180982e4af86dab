import { EventEmitter } from "node:events";
import { type ClientReadableStream, Metadata, status } from "@grpc/grpc-js";
import { waitFor } from "@platform/testing";
import { describe, expect, it } from "vitest";
import { followUpstream } from "./followUpstream.js";

interface Message {
  position: string;
  gap?: boolean;
}

/** Fake server-streaming calls: each open is recorded with the position it asked for. */
function fakeUpstream() {
  const calls: { after: string | undefined; stream: EventEmitter & { cancelled: boolean } }[] = [];
  const open = (after: string | undefined) => {
    const stream = Object.assign(new EventEmitter(), {
      cancelled: false,
      cancel() {
        stream.cancelled = true;
      },
    });
    calls.push({ after, stream });
    return stream as unknown as ClientReadableStream<Message>;
  };
  const failure = (code: number) =>
    Object.assign(new Error(`status ${code}`), { code, details: "", metadata: new Metadata() });
  return { calls, open, failure };
}

describe("followUpstream", () => {
  it("opens the watch again after the last position when it ends or the transport fails, and never after a gap notice", async () => {
    const upstream = fakeUpstream();
    const got: string[] = [];
    const follow = followUpstream<Message>({
      after: "5-0",
      open: upstream.open,
      positionOf: (message) => (message.gap ? undefined : message.position),
      onMessage: (message) => got.push(message.position),
      onFatal: (error) => {
        throw error;
      },
    });
    upstream.calls[0]!.stream.emit("data", { position: "4-0", gap: true });
    await follow.started;
    upstream.calls[0]!.stream.emit("data", { position: "6-0" });
    upstream.calls[0]!.stream.emit("error", upstream.failure(status.UNAVAILABLE));
    await waitFor(async () => upstream.calls.length === 2, { what: "reopened", timeoutMs: 2_000 });
    expect(upstream.calls[1]!.after).toBe("6-0");
    upstream.calls[1]!.stream.emit("data", { position: "7-0" });
    upstream.calls[1]!.stream.emit("end");
    await waitFor(async () => upstream.calls.length === 3, { what: "reopened after end", timeoutMs: 2_000 });
    expect(upstream.calls[2]!.after).toBe("7-0");
    expect(got).toEqual(["4-0", "6-0", "7-0"]);
    follow.close();
    expect(upstream.calls[2]!.stream.cancelled).toBe(true);
  });

  it("rejects `started` when the first attempt fails before any message, and ends on a refusal later", async () => {
    const upstream = fakeUpstream();
    const first = followUpstream<Message>({
      open: upstream.open,
      positionOf: (message) => message.position,
      onMessage: () => undefined,
      onFatal: () => undefined,
    });
    upstream.calls[0]!.stream.emit("error", upstream.failure(status.UNAVAILABLE));
    await expect(first.started).rejects.toMatchObject({ name: expect.any(String) });
    expect(upstream.calls).toHaveLength(1);

    const fatal: Error[] = [];
    const later = followUpstream<Message>({
      open: upstream.open,
      positionOf: (message) => message.position,
      onMessage: () => undefined,
      onFatal: (error) => fatal.push(error),
    });
    upstream.calls[1]!.stream.emit("data", { position: "1-0" });
    await later.started;
    upstream.calls[1]!.stream.emit("error", upstream.failure(status.INVALID_ARGUMENT));
    expect(fatal).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(upstream.calls).toHaveLength(2);
  });
});
