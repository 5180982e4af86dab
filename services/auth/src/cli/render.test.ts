import { type ApiKey, ApiKeyStatus } from "@platform/proto/auth/v1/auth";
import { describe, expect, it } from "vitest";
import { describeKey, keyJson, keyTable } from "./render.js";

const server: ApiKey = {
  id: "ak_0123456789ABCDEFabcdef",
  name: "backend",
  scopes: ["data:read", "intents:write"],
  tier: "standard",
  status: ApiKeyStatus.API_KEY_STATUS_ACTIVE,
  createdAt: "2026-12-06T00:00:00.000Z",
  kind: "server",
  allowedOrigins: [],
};
const browser: ApiKey = {
  ...server,
  id: "ak_0123456789ABCDEFabcdeg",
  name: "web",
  scopes: ["data:read"],
  tier: "browser",
  kind: "browser",
  allowedOrigins: ["https://app.example"],
};

describe("the CLI's view of keys", () => {
  it("shows a key's kind, and a browser key's origins", () => {
    expect(keyJson(server)).toMatchObject({ kind: "server" });
    expect(keyJson(server)).not.toHaveProperty("allowedOrigins");
    expect(keyJson(browser)).toMatchObject({ kind: "browser", allowedOrigins: ["https://app.example"] });
    expect(describeKey(browser)).toContain("browser key for https://app.example");
    const [header, first, second] = keyTable([server, browser]).split("\n");
    expect(header).toMatch(/^ID\s+STATUS\s+KIND\s+TIER/);
    expect(first).toMatch(/active\s+server\s+standard/);
    expect(second).toMatch(/active\s+browser\s+browser/);
  });
});
