import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { DevnetAccounts } from "@platform/devnet";
import { tempDir } from "@platform/testing";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_PORTS } from "./ports.js";
import { simulatorProcessSpec, writeSimulatorKeys } from "./simulatorProcess.js";

const dir = tempDir("simulator-keys");
afterAll(() => dir.remove());

/** Like deployDevnet's accounts: the key is there to read but not enumerable. */
function account(address: string, privateKey: string) {
  const value = { address };
  Object.defineProperty(value, "privateKey", { value: privateKey, enumerable: false });
  return value;
}

describe("the simulator's keys and environment", () => {
  const keys = { deployer: `0x${"11".repeat(32)}`, oracle: `0x${"22".repeat(32)}`, filler: `0x${"33".repeat(32)}` };
  const accounts = {
    deployer: account("0x1", keys.deployer),
    oracle: account("0x2", keys.oracle),
    filler: account("0x3", keys.filler),
  } as unknown as DevnetAccounts;

  it("writes the role accounts' keys but the deployer's to an owner-only file in an owner-only folder", () => {
    const file = writeSimulatorKeys(dir.path, accounts);
    expect(file).toBe(join(dir.path, "simulator", "keys.json"));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir.path, "simulator")).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ accounts: { oracle: keys.oracle, filler: keys.filler } });
  });

  it("passes the keys file's path, never a key, in the environment", () => {
    const spec = simulatorProcessSpec(
      DEFAULT_PORTS,
      "/state/chains.json",
      "/state/secrets/simulator/keys.json",
      "info",
    );
    expect(spec.readyUrl).toBe(`http://127.0.0.1:${DEFAULT_PORTS.simulatorOps}/readyz`);
    expect(spec.env).toMatchObject({
      CHAINS_FILE: "/state/chains.json",
      SIMULATOR_KEYS_FILE: "/state/secrets/simulator/keys.json",
    });
    for (const value of Object.values(spec.env)) expect(value).not.toMatch(/0x[0-9a-f]{64}/);
  });
});
