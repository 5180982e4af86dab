import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@platform/testing";
import { afterAll, describe, expect, it } from "vitest";
import { readKeysFile, requireKey } from "./keysFile.js";

const dir = tempDir("simulator-keys-file");
afterAll(() => dir.remove());

describe("the simulator's keys file", () => {
  const key = `0x${"ab".repeat(32)}`;

  it("reads an owner-only file and names a missing account", () => {
    const file = join(dir.path, "keys.json");
    writeFileSync(file, JSON.stringify({ accounts: { filler: key } }), { mode: 0o600 });
    const keys = readKeysFile(file);
    expect(requireKey(keys, "filler")).toBe(key);
    expect(() => requireKey(keys, "oracle")).toThrow("the keys file has no oracle account");
  });

  it("refuses a file others can read, and a malformed key without echoing it", () => {
    const open = join(dir.path, "open.json");
    writeFileSync(open, JSON.stringify({ accounts: { filler: key } }));
    chmodSync(open, 0o644);
    expect(() => readKeysFile(open)).toThrow(/mode 0600/);

    const malformed = join(dir.path, "malformed.json");
    writeFileSync(malformed, JSON.stringify({ accounts: { filler: "0x1234" } }), { mode: 0o600 });
    expect(() => readKeysFile(malformed)).toThrow("accounts.filler: must be a 32-byte hex private key");
  });
});
