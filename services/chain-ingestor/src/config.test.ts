import { ConfigError, loadConfig } from "@platform/config";
import { describe, expect, it } from "vitest";
import { chainIngestorConfigSchema } from "./config.js";

const base = {
  KAFKA_BROKERS: "127.0.0.1:9092",
  NATS_URL: "nats://127.0.0.1:4222",
  CHAINS_FILE: "/etc/platform/chains/chains.json",
};

function problemOf(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(chainIngestorConfigSchema, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("INGEST_SOURCES", () => {
  it("runs every source when unset or blank, as the local stack does", () => {
    expect(loadConfig(chainIngestorConfigSchema, base).INGEST_SOURCES).toEqual(["intents", "native", "price"]);
    expect(loadConfig(chainIngestorConfigSchema, { ...base, INGEST_SOURCES: " " }).INGEST_SOURCES).toEqual([
      "intents",
      "native",
      "price",
    ]);
  });

  it("selects one source or both, ignoring spaces and repeats", () => {
    expect(loadConfig(chainIngestorConfigSchema, { ...base, INGEST_SOURCES: "intents" }).INGEST_SOURCES).toEqual([
      "intents",
    ]);
    expect(loadConfig(chainIngestorConfigSchema, { ...base, INGEST_SOURCES: "native" }).INGEST_SOURCES).toEqual([
      "native",
    ]);
    expect(loadConfig(chainIngestorConfigSchema, { ...base, INGEST_SOURCES: "price" }).INGEST_SOURCES).toEqual([
      "price",
    ]);
    expect(
      loadConfig(chainIngestorConfigSchema, { ...base, INGEST_SOURCES: "intents,native,price" }).INGEST_SOURCES,
    ).toEqual(["intents", "native", "price"]);
    expect(
      loadConfig(chainIngestorConfigSchema, { ...base, INGEST_SOURCES: " native , intents,native" }).INGEST_SOURCES,
    ).toEqual(["native", "intents"]);
  });

  it("names the variable for an unknown source or an empty list", () => {
    expect(problemOf({ ...base, INGEST_SOURCES: "intents,blocks" })).toBe(
      "INGEST_SOURCES: must list sources among intents, native, price",
    );
    // The EVM network source (precompile stand-ins) is gone; a deployment still naming it fails loudly.
    expect(problemOf({ ...base, INGEST_SOURCES: "network" })).toBe(
      "INGEST_SOURCES: must list sources among intents, native, price",
    );
    expect(problemOf({ ...base, INGEST_SOURCES: "," })).toBe(
      "INGEST_SOURCES: must list at least one item, comma separated",
    );
  });
});

describe("NATS_URL", () => {
  it("is needed only by the intents source", () => {
    const { NATS_URL: _unused, ...withoutNats } = base;
    expect(
      loadConfig(chainIngestorConfigSchema, { ...withoutNats, INGEST_SOURCES: "native" }).NATS_URL,
    ).toBeUndefined();
    expect(loadConfig(chainIngestorConfigSchema, { ...withoutNats, INGEST_SOURCES: "price" }).NATS_URL).toBeUndefined();
    expect(problemOf({ ...withoutNats, INGEST_SOURCES: "native,intents" })).toBe("NATS_URL: is required but not set");
    expect(problemOf(withoutNats)).toBe("NATS_URL: is required but not set");
  });

  it("is still checked when given", () => {
    expect(problemOf({ ...base, INGEST_SOURCES: "native", NATS_URL: "http://nats" })).toBe(
      "NATS_URL: must be a URL with scheme nats or tls",
    );
  });
});

describe("NATIVE_START_BLOCK", () => {
  it("is optional and must be a block number", () => {
    expect(loadConfig(chainIngestorConfigSchema, base).NATIVE_START_BLOCK).toBeUndefined();
    expect(loadConfig(chainIngestorConfigSchema, { ...base, NATIVE_START_BLOCK: "4200000" }).NATIVE_START_BLOCK).toBe(
      4_200_000,
    );
    expect(problemOf({ ...base, NATIVE_START_BLOCK: "-1" })).toBe(
      "NATIVE_START_BLOCK: must be a block number (0 or more)",
    );
    expect(problemOf({ ...base, NATIVE_START_BLOCK: "latest" })).toBe("NATIVE_START_BLOCK: must be a block number");
  });
});

describe("PRICE_START_BLOCK", () => {
  it("is optional and must be a block number", () => {
    expect(loadConfig(chainIngestorConfigSchema, base).PRICE_START_BLOCK).toBeUndefined();
    expect(loadConfig(chainIngestorConfigSchema, { ...base, PRICE_START_BLOCK: "22000000" }).PRICE_START_BLOCK).toBe(
      22_000_000,
    );
    expect(problemOf({ ...base, PRICE_START_BLOCK: "-1" })).toBe(
      "PRICE_START_BLOCK: must be a block number (0 or more)",
    );
    expect(problemOf({ ...base, PRICE_START_BLOCK: "latest" })).toBe("PRICE_START_BLOCK: must be a block number");
  });
});

describe("NATIVE_RESCAN_EVERY_BLOCKS", () => {
  it("defaults to a day of blocks and must be a positive whole number", () => {
    expect(loadConfig(chainIngestorConfigSchema, base).NATIVE_RESCAN_EVERY_BLOCKS).toBe(7_200);
    expect(
      loadConfig(chainIngestorConfigSchema, { ...base, NATIVE_RESCAN_EVERY_BLOCKS: "300" }).NATIVE_RESCAN_EVERY_BLOCKS,
    ).toBe(300);
    expect(problemOf({ ...base, NATIVE_RESCAN_EVERY_BLOCKS: "0" })).toMatch(/^NATIVE_RESCAN_EVERY_BLOCKS: /);
  });
});
