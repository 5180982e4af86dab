import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "@platform/config";
import { afterAll, describe, expect, it } from "vitest";
import { kafkaCredentialsOf } from "./kafkaCredentials.js";

const dir = mkdtempSync(join(tmpdir(), "kafka-credentials-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const errorOf = (config: Parameters<typeof kafkaCredentialsOf>[0]) => {
  try {
    kafkaCredentialsOf(config);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("no ConfigError");
};

describe("kafkaCredentialsOf", () => {
  it("is undefined when nothing is set: a broker without SASL", () => {
    expect(kafkaCredentialsOf({})).toBeUndefined();
  });

  it("takes the password from the environment or from a file (an editor's trailing newline dropped)", () => {
    expect(kafkaCredentialsOf({ KAFKA_SASL_USERNAME: "tc", KAFKA_SASL_PASSWORD: "p4ss" })).toEqual({
      username: "tc",
      password: "p4ss",
    });
    const file = join(dir, "password");
    writeFileSync(file, "from-file\n", { mode: 0o600 });
    expect(kafkaCredentialsOf({ KAFKA_SASL_USERNAME: "tc", KAFKA_SASL_PASSWORD_FILE: file })).toEqual({
      username: "tc",
      password: "from-file",
    });
  });

  it("wants both a name and one password, and never shows the password in its errors", () => {
    expect(errorOf({ KAFKA_SASL_PASSWORD: "hunter2-secret" }).variable).toBe("KAFKA_SASL_USERNAME");
    expect(errorOf({ KAFKA_SASL_USERNAME: "tc" }).variable).toBe("KAFKA_SASL_PASSWORD");
    const both = errorOf({
      KAFKA_SASL_USERNAME: "tc",
      KAFKA_SASL_PASSWORD: "hunter2-secret",
      KAFKA_SASL_PASSWORD_FILE: "/x",
    });
    expect(both.variable).toBe("KAFKA_SASL_PASSWORD_FILE");
    for (const error of [both, errorOf({ KAFKA_SASL_PASSWORD: "hunter2-secret" })])
      expect(error.message).not.toContain("hunter2");
  });

  it("names the file when it cannot be read or is empty", () => {
    const missing = errorOf({ KAFKA_SASL_USERNAME: "tc", KAFKA_SASL_PASSWORD_FILE: join(dir, "missing") });
    expect([missing.variable, missing.problem]).toEqual([
      "KAFKA_SASL_PASSWORD_FILE",
      `cannot read ${join(dir, "missing")}: ENOENT`,
    ]);
    const empty = join(dir, "empty");
    writeFileSync(empty, "");
    chmodSync(empty, 0o600);
    expect(errorOf({ KAFKA_SASL_USERNAME: "tc", KAFKA_SASL_PASSWORD_FILE: empty }).problem).toMatch(/is empty/);
  });
});
