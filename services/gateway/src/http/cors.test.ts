import { describe, expect, it } from "vitest";
import { gatewayConfigSchema } from "../config.js";
import { isOrigin } from "./cors.js";

describe("CORS_ALLOWED_ORIGINS", () => {
  it("takes origins exactly as browsers send them, and nothing else", () => {
    for (const origin of ["https://app.example", "http://127.0.0.1:5173", "https://xn--bcher-kva.example"])
      expect(isOrigin(origin), origin).toBe(true);
    for (const value of ["https://app.example/", "https://app.example/path", "app.example", "ftp://app.example", "*"])
      expect(isOrigin(value), value).toBe(false);
  });

  it("defaults to none and refuses a value that is not a list of origins", () => {
    const base = {
      AUTH_GRPC_TARGET: "127.0.0.1:1",
      TC_GRPC_TARGET: "127.0.0.1:2",
      INTENTS_GRPC_TARGET: "127.0.0.1:3",
      DATA_ACCOUNTS_GRPC_TARGET: "127.0.0.1:4",
      DATA_MARKET_GRPC_TARGET: "127.0.0.1:5",
      DATA_SUBNETS_GRPC_TARGET: "127.0.0.1:6",
      REDIS_URL: "redis://127.0.0.1:6379",
    };
    const parsed = (env: Record<string, string>) => gatewayConfigSchema.safeParse({ ...base, ...env });
    const fallback = parsed({});
    expect(fallback.success && fallback.data.CORS_ALLOWED_ORIGINS).toEqual([]);
    const two = parsed({ CORS_ALLOWED_ORIGINS: "https://a.example, http://localhost:3000" });
    expect(two.success && two.data.CORS_ALLOWED_ORIGINS).toEqual(["https://a.example", "http://localhost:3000"]);
    expect(parsed({ CORS_ALLOWED_ORIGINS: "https://a.example/" }).success).toBe(false);
  });
});
