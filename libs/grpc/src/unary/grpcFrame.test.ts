import { describe, expect, it } from "vitest";
import { frameMessage, readUnaryBody } from "./grpcFrame.js";

describe("gRPC message framing", () => {
  it("frames a message and reads it back, from one chunk or many", () => {
    const frame = frameMessage(Buffer.from("hello"));
    expect([...frame.subarray(0, 5)]).toEqual([0, 0, 0, 0, 5]);
    expect(readUnaryBody([frame], 100)).toEqual({ message: Buffer.from("hello") });
    expect(readUnaryBody([frame.subarray(0, 3), frame.subarray(3, 7), frame.subarray(7)], 100)).toEqual({ message: Buffer.from("hello") });
    expect(readUnaryBody([frameMessage(Buffer.alloc(0))], 100)).toEqual({ message: Buffer.alloc(0) });
  });

  it("names what is wrong with a body that is not exactly one uncompressed message", () => {
    const frame = frameMessage(Buffer.from("hello"));
    expect(readUnaryBody([], 100)).toEqual({ problem: "No message received" });
    expect(readUnaryBody([frame.subarray(0, 3)], 100)).toEqual({ problem: "Truncated message" });
    expect(readUnaryBody([frame.subarray(0, 8)], 100)).toEqual({ problem: "Truncated message" });
    expect(readUnaryBody([frame, frame], 100)).toEqual({ problem: "Too many responses received" });
    expect(readUnaryBody([Buffer.concat([Buffer.from([1]), frame.subarray(1)])], 100)).toMatchObject({ problem: expect.stringContaining("Compressed") });
    expect(readUnaryBody([frame], 4)).toMatchObject({ problem: expect.stringContaining("larger than max") });
  });
});
