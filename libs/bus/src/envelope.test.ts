import { describe, expect, it } from "vitest";
import { fromKafkaMessage, headerNames, toKafkaMessage } from "./envelope.js";

const record = {
  topic: "chain.intents.v1",
  key: "0xorder",
  value: new Uint8Array([1, 2, 3]),
  eventType: "OrderOpened",
  schema: "platform.events.v1.OrderOpened",
};

describe("toKafkaMessage", () => {
  it("carries key, bytes and the envelope headers, with a fresh event id", () => {
    const message = toKafkaMessage({
      ...record,
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    });
    expect(message.key).toBe("0xorder");
    expect(Buffer.isBuffer(message.value)).toBe(true);
    expect([...(message.value as Buffer)]).toEqual([1, 2, 3]);
    expect(message.headers).toMatchObject({
      [headerNames.eventType]: "OrderOpened",
      [headerNames.schema]: "platform.events.v1.OrderOpened",
      [headerNames.traceparent]: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    });
    expect(message.headers?.[headerNames.eventId]).toMatch(/^[0-9a-f-]{36}$/);
    expect(toKafkaMessage(record).headers?.[headerNames.eventId]).not.toBe(message.headers?.[headerNames.eventId]);
    expect(message.headers).not.toHaveProperty(headerNames.tracestate);
  });

  it("keeps a given event id and wraps a Uint8Array view without copying its bytes", () => {
    const backing = new Uint8Array([9, 9, 4, 5, 9]);
    const message = toKafkaMessage({ ...record, value: backing.subarray(2, 4), eventId: "e-1" });
    expect(message.headers?.[headerNames.eventId]).toBe("e-1");
    const value = message.value as Buffer;
    expect([...value]).toEqual([4, 5]);
    expect(value.buffer).toBe(backing.buffer);
  });

  it("refuses records without an event type or schema", () => {
    expect(() => toKafkaMessage({ ...record, eventType: "" })).toThrow(/eventType/);
    expect(() => toKafkaMessage({ ...record, schema: "" })).toThrow(/schema/);
  });
});

describe("fromKafkaMessage", () => {
  it("reads the envelope back from Buffer headers", () => {
    const consumed = fromKafkaMessage("t", 2, {
      key: Buffer.from("k"),
      value: Buffer.from([7]),
      offset: "41",
      timestamp: "1700000000000",
      attributes: 0,
      headers: {
        "event-id": Buffer.from("e-9"),
        "event-type": Buffer.from("PriceObserved"),
        schema: Buffer.from("platform.events.v1.PriceObserved"),
        extra: [Buffer.from("first"), Buffer.from("second")],
      },
    });
    expect(consumed).toMatchObject({
      topic: "t",
      partition: 2,
      offset: "41",
      key: "k",
      eventId: "e-9",
      eventType: "PriceObserved",
      schema: "platform.events.v1.PriceObserved",
      traceparent: undefined,
      headers: { extra: "first" },
    });
  });

  it("leaves missing envelope fields and keys undefined", () => {
    const consumed = fromKafkaMessage("t", 0, {
      key: null,
      value: null,
      offset: "0",
      timestamp: "0",
      attributes: 0,
      headers: {},
    });
    expect(consumed.key).toBeUndefined();
    expect(consumed.eventType).toBeUndefined();
    expect(consumed.headers).toEqual({});
  });
});
