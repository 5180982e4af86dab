import { readFileSync, statSync } from "node:fs";
import type { Hex } from "viem";
import { z } from "zod";

/**
 * The simulator's signing keys, written by the launcher after it deployed the devnet (mode 0600 in
 * the stack's secrets folder) as `{"accounts": {"filler": "0x…", "oracle": "0x…", …}}`: one entry per
 * devnet account. Keys never travel on a command line or in the environment, and are never logged.
 */
const keysFileSchema = z.strictObject({
  accounts: z.record(
    z.string().regex(/^[A-Za-z][A-Za-z0-9]*$/),
    z.string().regex(/^0x[0-9a-fA-F]{64}$/, { error: "must be a 32-byte hex private key" }),
  ),
});

export type SimulatorKeys = Readonly<Record<string, Hex>>;

export function readKeysFile(path: string): SimulatorKeys {
  // Group or world access would mean the keys were exposed on the way here: refuse rather than use them.
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) !== 0)
    throw new Error(`${path} must be readable by its owner only (mode 0600), not ${mode.toString(8)}`);
  const parsed = keysFileSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success)
    throw new Error(
      `${path}: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`,
    );
  return parsed.data.accounts as SimulatorKeys;
}

export function requireKey(keys: SimulatorKeys, name: string): Hex {
  const key = keys[name];
  if (key === undefined) throw new Error(`the keys file has no ${name} account`);
  return key;
}
