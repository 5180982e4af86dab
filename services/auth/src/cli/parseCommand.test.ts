import { describe, expect, it } from "vitest";
import { parseCommand, UsageError } from "./parseCommand.js";

const id = "ak_0123456789ABCDEFabcdef";
const now = new Date("2026-05-01T00:00:00.000Z");
const fails = (argv: string[]) => {
  try {
    parseCommand(argv, now);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).not.toContain("\n");
    return (error as Error).message;
  }
  throw new Error(`accepted ${argv.join(" ")}`);
};

describe("CLI arguments", () => {
  it("creates a browser key with --kind browser and its --origin list, and refuses what it may not be", () => {
    expect(
      parseCommand(
        [
          "keys",
          "create",
          "--name",
          "web",
          "--scopes",
          "data:read",
          "--kind",
          "browser",
          "--origin",
          "https://app.example",
          "--origin",
          "http://localhost:5173",
        ],
        now,
      ),
    ).toEqual({
      kind: "keys create",
      name: "web",
      scopes: ["data:read"],
      tier: "",
      keyKind: "browser",
      origins: ["https://app.example", "http://localhost:5173"],
      json: false,
    });
    const create = ["keys", "create", "--name", "web", "--scopes"];
    expect(fails([...create, "data:read", "--kind", "browser"])).toMatch(/at least one --origin/);
    expect(fails([...create, "intents:write", "--kind", "browser", "--origin", "https://a.example"])).toMatch(
      /read scopes only; leave out intents:write/,
    );
    expect(fails([...create, "data:read", "--kind", "browser", "--origin", "https://a.example/"])).toMatch(
      /not an origin/,
    );
    expect(fails([...create, "data:read", "--kind", "browser", "--origin", "http://a.example"])).toMatch(
      /not an origin/,
    );
    expect(fails([...create, "data:read", "--origin", "https://a.example"])).toMatch(/browser keys only/);
    expect(fails([...create, "data:read", "--kind", "public"])).toMatch(/server or browser/);
  });

  it("parses every command", () => {
    expect(
      parseCommand(
        ["keys", "create", "--name", "Demo app", "--scopes", "data:read, intents:read,data:read", "--json"],
        now,
      ),
    ).toEqual({
      kind: "keys create",
      name: "Demo app",
      scopes: ["data:read", "intents:read"],
      tier: "",
      keyKind: "server",
      origins: [],
      json: true,
    });
    expect(
      parseCommand(["keys", "create", "--name", "x", "--scopes", "intents:write", "--tier", "free"], now),
    ).toMatchObject({ tier: "free", json: false });
    expect(parseCommand(["keys", "list", "--all"], now)).toEqual({ kind: "keys list", all: true, json: false });
    expect(parseCommand(["keys", "revoke", id, "--reason", "leaked"], now)).toEqual({
      kind: "keys revoke",
      id,
      reason: "leaked",
      json: false,
    });
    expect(parseCommand(["keys", "rotate", id, "--json"], now)).toEqual({ kind: "keys rotate", id, json: true });
    expect(parseCommand(["signing-keys", "generate", "--dir", "/tmp/k"], now)).toEqual({
      kind: "signing-keys generate",
      dir: "/tmp/k",
      activeFrom: now,
      json: false,
    });
    expect(
      parseCommand(["signing-keys", "generate", "--dir", "k", "--active-from", "2026-06-01T00:00:00Z"], now),
    ).toMatchObject({
      activeFrom: new Date("2026-06-01T00:00:00Z"),
    });
    expect(parseCommand([], now)).toEqual({ kind: "help" });
  });

  it("refuses bad input with one line", () => {
    expect(fails(["keys", "create", "--scopes", "data:read"])).toBe("--name is required");
    expect(fails(["keys", "create", "--name", "x"])).toBe("--scopes is required");
    expect(fails(["keys", "create", "--name", "x", "--scopes", "data:write"])).toBe(
      'unknown scope "data:write"; valid scopes: data:read, intents:read, intents:write',
    );
    expect(fails(["keys", "create", "--name", "x", "--scopes", ","])).toMatch(/at least one/);
    expect(fails(["keys", "revoke"])).toBe("the key id is missing");
    expect(fails(["keys", "revoke", "sk_nope"])).toMatch(/is not an API key id/);
    expect(fails(["keys", "rotate", id, id])).toMatch(/expected one key id/);
    expect(fails(["keys", "list", "--bogus"])).toBe("Unknown option '--bogus'");
    expect(fails(["keys", "delete"])).toMatch(/unknown command "keys delete"/);
    expect(fails(["signing-keys", "generate"])).toBe("--dir is required");
    expect(fails(["signing-keys", "generate", "--dir", "d", "--active-from", "tomorrow"])).toMatch(/RFC 3339/);
  });

  it("names one refresh token by its id or hash, never by the token itself", () => {
    const hash = "ab".repeat(32);
    expect(parseCommand(["refresh-tokens", "list", id, "--json"], now)).toEqual({
      kind: "refresh-tokens list",
      keyId: id,
      json: true,
    });
    expect(parseCommand(["refresh-tokens", "revoke", id, hash.slice(0, 16), "--reason", "leaked"], now)).toEqual({
      kind: "refresh-tokens revoke",
      keyId: id,
      token: hash.slice(0, 16),
      reason: "leaked",
      json: false,
    });
    expect(parseCommand(["refresh-tokens", "revoke", id, hash.toUpperCase()], now)).toMatchObject({ token: hash });
    expect(fails(["refresh-tokens", "revoke", id, "rt_0123456789"])).toMatch(/by its id .* or hash/);
    expect(fails(["refresh-tokens", "revoke", id])).toMatch(/a key id and a refresh token/);
  });
});
