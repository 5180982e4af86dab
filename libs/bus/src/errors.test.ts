import kafkajs from "kafkajs";
import { describe, expect, it } from "vitest";
import { isProducerFencedError, ProducerFencedError } from "./errors.js";

describe("isProducerFencedError", () => {
  it("finds a fencing error through causes and aggregates", () => {
    const epoch = new kafkajs.KafkaJSProtocolError({
      type: "INVALID_PRODUCER_EPOCH",
      code: 47,
      retriable: false,
      message: "old epoch",
    } as never);
    expect(isProducerFencedError(epoch)).toBe(true);
    expect(isProducerFencedError(new Error("commit failed", { cause: epoch }))).toBe(true);
    expect(
      isProducerFencedError(new AggregateError([new Error("x"), Object.assign(new Error("y"), { code: 90 })])),
    ).toBe(true);
    expect(isProducerFencedError(new Error("broker down"))).toBe(false);
    expect(isProducerFencedError(undefined)).toBe(false);
  });

  it("names the transactional id", () => {
    const error = new ProducerFencedError("ingestor-1");
    expect(error.message).toContain("ingestor-1");
    expect(error.name).toBe("ProducerFencedError");
  });
});
