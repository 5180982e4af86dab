import { describe, expect, it } from "vitest";
import { createMessageReader, frameMessage, readUnaryBody } from "./grpcFrame.js";

describe("gRPC message framing", () => {
  it("frames a message and reads it back, from one chunk or many", () => {
    const frame = frameMessage(Buffer.from("hello"));
    expect([...frame.subarray(0, 5)]).toEqual([0, 0, 0, 0, 5]);
    expect(readUnaryBody([frame], 100)).toEqual({ message: Buffer.from("hello") });
    expect(readUnaryBody([frame.subarray(0, 3), frame.subarray(3, 7), frame.subarray(7)], 100)).toEqual({
      message: Buffer.from("hello"),
    });
    expect(readUnaryBody([frameMessage(Buffer.alloc(0))], 100)).toEqual({ message: Buffer.alloc(0) });
  });

  it("names what is wrong with a body that is not exactly one uncompressed message", () => {
    const frame = frameMessage(Buffer.from("hello"));
    expect(readUnaryBody([], 100)).toEqual({ problem: "No message received" });
    expect(readUnaryBody([frame.subarray(0, 3)], 100)).toEqual({ problem: "Truncated message" });
    expect(readUnaryBody([frame.subarray(0, 8)], 100)).toEqual({ problem: "Truncated message" });
    expect(readUnaryBody([frame, frame], 100)).toEqual({ problem: "Too many responses received" });
    expect(readUnaryBody([Buffer.concat([Buffer.from([1]), frame.subarray(1)])], 100)).toMatchObject({
      problem: expect.stringContaining("Compressed"),
    });
    expect(readUnaryBody([frame], 4)).toMatchObject({ problem: expect.stringContaining("larger than max") });
  });

  it("reads a streamed body's messages as they complete, however the chunks cut them", () => {
    const body = Buffer.concat([
      frameMessage(Buffer.from("one")),
      frameMessage(Buffer.alloc(0)),
      frameMessage(Buffer.from("three")),
    ]);
    for (const cuts of [
      [body.length],
      [1, 4, 8, 9, 12, 14, body.length],
      Array.from({ length: body.length }, (_unused, index) => index + 1),
    ]) {
      const reader = createMessageReader(100);
      const messages: string[] = [];
      let from = 0;
      for (const to of cuts) {
        const read = reader.push(body.subarray(from, to));
        if (!Array.isArray(read)) throw new Error(read.problem);
        messages.push(...read.map((message) => message.toString()));
        from = to;
      }
      expect(messages).toEqual(["one", "", "three"]);
      expect(reader.hasPartial()).toBe(false);
    }
    const cut = createMessageReader(100);
    expect(cut.push(body.subarray(0, 6))).toEqual([]);
    expect(cut.hasPartial()).toBe(true);
    expect(createMessageReader(2).push(body)).toMatchObject({ problem: expect.stringContaining("larger than max") });
    expect(createMessageReader(100).push(Buffer.from([1, 0, 0, 0, 0]))).toMatchObject({
      problem: expect.stringContaining("Compressed"),
    });
  });
});
