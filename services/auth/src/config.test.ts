import { REFRESH_TOKEN_RETENTION_MS } from "@platform/proto/topics";
import { describe, expect, it } from "vitest";
import { authConfigSchema } from "./config.js";

const required = {
  REDIS_URL: "redis://127.0.0.1:6379",
  KAFKA_BROKERS: "127.0.0.1:9092",
  AUTH_PEPPER_FILE: "/p",
  AUTH_SIGNING_KEYS_DIR: "/k",
};

describe("auth configuration", () => {
  it("refuses a refresh-token lifetime longer than auth.refresh-tokens.v1 keeps an issued token", () => {
    const longest = REFRESH_TOKEN_RETENTION_MS / 1_000;
    expect(authConfigSchema.safeParse({ ...required, REFRESH_TOKEN_TTL_SECONDS: String(longest) }).success).toBe(true);
    const tooLong = authConfigSchema.safeParse({ ...required, REFRESH_TOKEN_TTL_SECONDS: String(longest + 1) });
    expect(tooLong.success).toBe(false);
    expect(tooLong.error?.issues.map((issue) => issue.path.join("."))).toEqual(["REFRESH_TOKEN_TTL_SECONDS"]);
  });
});
