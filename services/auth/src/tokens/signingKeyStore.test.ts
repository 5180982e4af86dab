import { mkdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLogger } from "@platform/log";
import { tempDir } from "@platform/testing";
import { afterEach, describe, expect, it } from "vitest";
import { generateSigningKeyFile, parseSigningKeyFile, writeSigningKeyFile } from "./signingKeyFile.js";
import { activeKeyOf, loadSigningKeys, loadSigningKeysForStart, watchSigningKeys } from "./signingKeyStore.js";

const log = createLogger({ service: "auth-test", level: "silent" });
const dirs: { remove(): void }[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => dir.remove()));

function folder(): string {
  const dir = tempDir("auth-keys");
  dirs.push(dir);
  return join(dir.path, "keys");
}

describe("signing-key files", () => {
  it("are written owner-only and never over an existing file", () => {
    const dir = folder();
    const file = generateSigningKeyFile(new Date("2026-01-01T00:00:00Z"));
    const path = writeSigningKeyFile(dir, file);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(() => writeSigningKeyFile(dir, file)).toThrow(/EEXIST/);
    expect(loadSigningKeys(dir).map((key) => key.kid)).toEqual([file.kid]);
  });

  it("are refused, naming the problem and never the key material", () => {
    const file = generateSigningKeyFile(new Date(0));
    const problems: [unknown, RegExp][] = [
      ["{", /not valid JSON/],
      [{ ...file, kid: "bad kid" }, /kid must be/],
      [{ ...file, activeFrom: "yesterday" }, /activeFrom must be an RFC 3339 time/],
      [{ ...file, privateJwk: { ...file.privateJwk, crv: "P-256" } }, /crv must be "Ed25519"/],
      [{ ...file, privateJwk: { ...file.privateJwk, d: undefined } }, /privateJwk\.d/],
      [
        { ...file, privateJwk: { ...file.privateJwk, x: generateSigningKeyFile(new Date(0)).privateJwk.x } },
        /does not match/,
      ],
    ];
    for (const [content, message] of problems) {
      const text = typeof content === "string" ? content : JSON.stringify(content);
      let thrown: Error | undefined;
      try {
        parseSigningKeyFile(text);
      } catch (error) {
        thrown = error as Error;
      }
      expect(thrown?.message).toMatch(message);
      expect(thrown?.message).not.toContain(file.privateJwk.d);
    }
  });
});

describe("loading the folder", () => {
  it("follows Kubernetes Secret symlinks and skips hidden entries", () => {
    const dir = folder();
    const data = join(dir, "..2026_01_01");
    const file = generateSigningKeyFile(new Date(0));
    writeSigningKeyFile(data, file);
    symlinkSync("..2026_01_01", join(dir, "..data"));
    symlinkSync(join("..data", `${file.kid}.json`), join(dir, `${file.kid}.json`));
    expect(loadSigningKeys(dir).map((key) => key.kid)).toEqual([file.kid]);
  });

  it("fails on a missing or empty folder, a bad file, a repeated kid, or no active key", () => {
    const dir = folder();
    expect(() => loadSigningKeys(dir)).toThrow(/cannot read the folder .*ENOENT/);
    mkdirSync(dir, { recursive: true });
    expect(() => loadSigningKeys(dir)).toThrow(/no signing-key file/);
    const file = generateSigningKeyFile(new Date(Date.now() + 60_000));
    writeSigningKeyFile(dir, file);
    expect(() => loadSigningKeysForStart(dir)).toThrow(/no signing key is active yet/);
    writeFileSync(join(dir, "copy.json"), JSON.stringify(file));
    expect(() => loadSigningKeys(dir)).toThrow(/appears in two files/);
    writeFileSync(join(dir, "copy.json"), "nonsense");
    expect(() => loadSigningKeys(dir)).toThrow(/copy\.json: not valid JSON/);
  });
});

describe("the active key", () => {
  it("is the newest whose activeFrom has passed", () => {
    const at = (iso: string) => parseSigningKeyFile(JSON.stringify(generateSigningKeyFile(new Date(iso))));
    const old = at("2026-01-01T00:00:00Z");
    const current = at("2026-02-01T00:00:00Z");
    const future = at("2026-03-01T00:00:00Z");
    const keys = [future, old, current];
    expect(activeKeyOf(keys, Date.parse("2026-02-15T00:00:00Z"))?.kid).toBe(current.kid);
    expect(activeKeyOf(keys, Date.parse("2026-03-01T00:00:00Z"))?.kid).toBe(future.kid);
    expect(activeKeyOf(keys, Date.parse("2025-12-31T00:00:00Z"))).toBeUndefined();
  });

  it("follows the folder on reload, and keeps the last good keys when the folder breaks", () => {
    const dir = folder();
    const first = generateSigningKeyFile(new Date(0));
    writeSigningKeyFile(dir, first);
    const store = watchSigningKeys(dir, loadSigningKeys(dir), { intervalMs: 60_000, log });
    const next = generateSigningKeyFile(new Date(Date.now() + 60_000));
    writeSigningKeyFile(dir, next);
    store.reload();
    expect(
      store
        .keys()
        .map((key) => key.kid)
        .sort(),
    ).toEqual([first.kid, next.kid].sort());
    expect(store.signingKey()?.kid).toBe(first.kid);
    expect(store.signingKey(Date.now() + 120_000)?.kid).toBe(next.kid);

    writeFileSync(join(dir, "broken.json"), "{");
    store.reload();
    expect(store.keys()).toHaveLength(2);
    rmSync(join(dir, "broken.json"));
    rmSync(join(dir, `${first.kid}.json`));
    store.reload();
    expect(store.keys().map((key) => key.kid)).toEqual([next.kid]);
    store.stop();
  });
});
