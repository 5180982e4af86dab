import { Writable } from "node:stream";
import { createLogger } from "@platform/log";
import kafkajs from "kafkajs";
import { describe, expect, it } from "vitest";
import { kafkaLevelToPino, kafkaLogCreator, kafkaLogLevelFor } from "./logCreator.js";

const { logLevel } = kafkajs;

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      callback();
    },
  });
  return { lines, logger: createLogger({ service: "bus-unit", level, destination }) };
}

const entry = (namespace: string, level: number, message: string, extra: Record<string, unknown> = {}) => ({
  namespace,
  level,
  label: "",
  log: { timestamp: "2026-01-01T00:00:00.000Z", message, ...extra },
});

describe("kafkaLevelToPino", () => {
  it("quiets retried responses and routine chatter", () => {
    expect(kafkaLevelToPino(entry("Connection", logLevel.ERROR, "Response Metadata(key: 3, version: 6)"))).toBe(
      "debug",
    );
    expect(kafkaLevelToPino(entry("BrokerPool", logLevel.ERROR, "Failed to connect to seed broker"))).toBe("warn");
    expect(kafkaLevelToPino(entry("Consumer", logLevel.ERROR, "Crash: KafkaJSNumberOfRetriesExceeded"))).toBe("warn");
    expect(
      kafkaLevelToPino(
        entry("Producer", logLevel.WARN, "Limiting retries for the idempotent producer may invalidate EoS guarantees"),
      ),
    ).toBe("debug");
    expect(kafkaLevelToPino(entry("Runner", logLevel.WARN, "The group is rebalancing, re-joining"))).toBe("info");
    expect(kafkaLevelToPino(entry("Consumer", logLevel.INFO, "Starting"))).toBe("debug");
    expect(kafkaLevelToPino(entry("Connection", logLevel.DEBUG, "Request Fetch"))).toBe("trace");
    expect(kafkaLevelToPino(entry("x", logLevel.NOTHING, "nothing"))).toBeUndefined();
  });
});

describe("kafkaLogCreator", () => {
  it("writes kafkajs entries through pino with their fields and error text", () => {
    const { lines, logger } = capture("info");
    const log = kafkaLogCreator(logger)(logLevel.DEBUG);
    log(
      entry("BrokerPool", logLevel.ERROR, "Failed to connect to seed broker", {
        broker: "127.0.0.1:1",
        error: "ECONNREFUSED",
        retryCount: 2,
      }),
    );
    log(entry("Consumer", logLevel.INFO, "Starting", { groupId: "g" }));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: "warn",
      component: "kafkajs",
      namespace: "BrokerPool",
      msg: "Failed to connect to seed broker",
      broker: "127.0.0.1:1",
      kafkaError: "ECONNREFUSED",
      retryCount: 2,
    });
    expect(lines[0]).not.toHaveProperty("timestamp");
  });

  it("accepts an Error as the message, as kafkajs passes in places", () => {
    const { lines, logger } = capture("info");
    const log = kafkaLogCreator(logger)(logLevel.DEBUG);
    log(entry("BrokerPool", logLevel.ERROR, new Error("Connection refused") as unknown as string));
    expect(lines[0]).toMatchObject({ level: "warn", msg: "Error: Connection refused" });
  });

  it("asks kafkajs only for the entries pino would print", () => {
    expect(kafkaLogLevelFor(capture("info").logger)).toBe(logLevel.WARN);
    expect(kafkaLogLevelFor(capture("debug").logger)).toBe(logLevel.INFO);
    expect(kafkaLogLevelFor(capture("trace").logger)).toBe(logLevel.DEBUG);
  });
});
