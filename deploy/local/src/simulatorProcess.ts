import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DevnetAccounts } from "@platform/devnet";
import type { PortPlan } from "./ports.js";
import type { ServiceRuntime } from "./serviceProcesses.js";

/** Where the simulator reads its signing keys: inside the stack's secrets folder, owner-only. */
export function simulatorKeysFile(secretsDir: string): string {
  return join(secretsDir, "simulator", "keys.json");
}

/**
 * Writes the devnet accounts' keys for the simulator, as `{"accounts": {"<name>": "0x…"}}` (the
 * format deploy/simulator/src/intents/keysFile.ts reads): every role account but the deployer, which
 * owns the settlers and the simulator never needs. The keys are non-enumerable on the deployment's
 * accounts, so they are read one by one; the file is mode 0600 in a 0700 folder.
 */
export function writeSimulatorKeys(secretsDir: string, accounts: DevnetAccounts): string {
  const file = simulatorKeysFile(secretsDir);
  mkdirSync(join(secretsDir, "simulator"), { recursive: true, mode: 0o700 });
  const keys = Object.fromEntries(
    Object.entries(accounts)
      .filter(([name]) => name !== "deployer")
      .map(([name, account]) => [name, (account as { privateKey: string }).privateKey]),
  );
  writeFileSync(file, `${JSON.stringify({ accounts: keys })}\n`, { mode: 0o600 });
  // writeFileSync's mode applies only when it creates the file.
  chmodSync(file, 0o600);
  return file;
}

export interface SimulatorProcessSpec {
  env: Record<string, string>;
  readyUrl: string;
}

/** The simulator's environment: the chains file, its keys file (never the keys themselves) and its ops port. */
export function simulatorProcessSpec(
  ports: PortPlan,
  chainsFile: string,
  keysFile: string,
  logLevel: string,
): SimulatorProcessSpec {
  return {
    readyUrl: `http://127.0.0.1:${ports.simulatorOps}/readyz`,
    env: {
      CHAINS_FILE: chainsFile,
      SIMULATOR_KEYS_FILE: keysFile,
      OPS_HOST: "127.0.0.1",
      OPS_PORT: String(ports.simulatorOps),
      LOG_LEVEL: logLevel,
    },
  };
}

export function simulatorCommand(repoRoot: string, runtime: ServiceRuntime): { command: string; args: string[] } {
  if (runtime === "dist")
    return { command: process.execPath, args: [join(repoRoot, "deploy", "simulator", "dist", "main.js")] };
  return {
    command: process.execPath,
    args: ["--conditions=@platform/source", "--import", "tsx", join(repoRoot, "deploy", "simulator", "src", "main.ts")],
  };
}
