import { ConfigError, loadConfig } from "@platform/config";
import { describe, expect, it } from "vitest";
import { DEFAULT_SIWE_STATEMENT, tcConfigSchema } from "../config.js";
import type { TcVersions } from "../tcVersions.js";
import { resourceOf, siweRules, versionOfResource } from "./siweRules.js";

const env = {
  REDIS_URL: "redis://127.0.0.1:6379",
  KAFKA_BROKERS: "127.0.0.1:9092",
  TC_CURRENT_VERSION: "3",
  CHAINS_FILE: "/etc/chains.json",
  SIWE_DOMAIN: "127.0.0.1:8080",
  SIWE_URI: "http://127.0.0.1:8080",
  SIWE_CHAIN_IDS: "31337, 31338,31337",
};
const document = { documentUrl: "https://example.com/tc/v3.pdf", documentSha256: "ab".repeat(32) };
const versions: TcVersions = new Map([[3, document]]);

function configError(work: () => unknown): ConfigError {
  try {
    work();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("tc configuration", () => {
  it("reads the SIWE settings with their defaults", () => {
    const config = loadConfig(tcConfigSchema, env);
    expect(config).toMatchObject({
      TC_CURRENT_VERSION: 3,
      SIWE_CHAIN_IDS: [31337, 31338],
      SIWE_STATEMENT: DEFAULT_SIWE_STATEMENT,
      SIWE_SCHEME: undefined,
      TC_VERSIONS_FILE: undefined,
      NONCE_TTL_SECONDS: 600,
      KAFKA_REPLICATION_FACTOR: 3,
    });
  });

  it("names the first missing or malformed variable", () => {
    expect(configError(() => loadConfig(tcConfigSchema, { ...env, TC_CURRENT_VERSION: undefined })).variable).toBe(
      "TC_CURRENT_VERSION",
    );
    expect(configError(() => loadConfig(tcConfigSchema, { ...env, CHAINS_FILE: undefined })).variable).toBe(
      "CHAINS_FILE",
    );
    expect(
      configError(() => loadConfig(tcConfigSchema, { ...env, SIWE_DOMAIN: "http://127.0.0.1:8080" })).variable,
    ).toBe("SIWE_DOMAIN");
    expect(configError(() => loadConfig(tcConfigSchema, { ...env, SIWE_URI: "not a uri" })).variable).toBe("SIWE_URI");
    expect(configError(() => loadConfig(tcConfigSchema, { ...env, SIWE_SCHEME: "ht tp" })).variable).toBe(
      "SIWE_SCHEME",
    );
    expect(configError(() => loadConfig(tcConfigSchema, { ...env, SIWE_CHAIN_IDS: "1,two" })).variable).toBe(
      "SIWE_CHAIN_IDS",
    );
    expect(configError(() => loadConfig(tcConfigSchema, { ...env, SIWE_CHAIN_IDS: "0" })).variable).toBe(
      "SIWE_CHAIN_IDS",
    );
    expect(configError(() => loadConfig(tcConfigSchema, { ...env, NONCE_TTL_SECONDS: "0" })).variable).toBe(
      "NONCE_TTL_SECONDS",
    );
  });
});

describe("siweRules", () => {
  const config = loadConfig(tcConfigSchema, env);

  it("takes every field from configuration and renders the statement for the current version", () => {
    expect(siweRules(config, new Map(), [31337, 31338, 31964])).toEqual({
      domain: "127.0.0.1:8080",
      uri: "http://127.0.0.1:8080",
      scheme: undefined,
      statement: "I accept the Terms and Conditions version 3.",
      chainIds: [31337, 31338],
      currentTcVersion: 3,
      resource: "coin-tc:v3",
      document: undefined,
      nonceTtlSeconds: 600,
    });
  });

  it("fills the document placeholders from the versions file", () => {
    const rules = siweRules(
      { ...config, SIWE_STATEMENT: "I accept version {version} ({documentUrl}, sha256 {documentSha256})." },
      versions,
      [31337, 31338],
    );
    expect(rules.statement).toBe(`I accept version 3 (https://example.com/tc/v3.pdf, sha256 ${"ab".repeat(32)}).`);
    expect(rules.document).toEqual(document);
  });

  it("refuses chain ids CHAINS_FILE does not configure", () => {
    const error = configError(() => siweRules(config, new Map(), [31337]));
    expect(error.variable).toBe("SIWE_CHAIN_IDS");
    expect(error.message).toMatch(/31338/);
  });

  it("refuses a versions file without the current version", () => {
    expect(
      configError(() =>
        siweRules({ ...config, TC_VERSIONS_FILE: "/etc/tc.json", TC_CURRENT_VERSION: 4 }, versions, [31337, 31338]),
      ).variable,
    ).toBe("TC_VERSIONS_FILE");
  });

  it("refuses statements EIP-4361 does not allow or that need a missing document", () => {
    expect(
      configError(() => siweRules({ ...config, SIWE_STATEMENT: "I accept {documentUrl}" }, new Map(), [31337, 31338]))
        .variable,
    ).toBe("SIWE_STATEMENT");
    expect(
      configError(() => siweRules({ ...config, SIWE_STATEMENT: "100% agreed" }, new Map(), [31337, 31338])).variable,
    ).toBe("SIWE_STATEMENT");
    expect(
      configError(() => siweRules({ ...config, SIWE_STATEMENT: "Ich stimme zu: Ä" }, new Map(), [31337, 31338]))
        .variable,
    ).toBe("SIWE_STATEMENT");
    expect(
      configError(() => siweRules({ ...config, SIWE_STATEMENT: "I accept {unknown}" }, new Map(), [31337, 31338]))
        .variable,
    ).toBe("SIWE_STATEMENT");
  });
});

describe("T&C resources", () => {
  it("names and reads coin-tc:v<N>", () => {
    expect(resourceOf(7)).toBe("coin-tc:v7");
    expect(versionOfResource("coin-tc:v7")).toBe(7);
    expect(versionOfResource("coin-tc:v0")).toBeUndefined();
    expect(versionOfResource("coin-tc:v07")).toBeUndefined();
    expect(versionOfResource("coin-tc:7")).toBeUndefined();
    expect(versionOfResource(" coin-tc:v7")).toBeUndefined();
  });
});
