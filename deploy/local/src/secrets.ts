import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { authCli } from "./authCli.js";
import type { ServiceRuntime } from "./serviceProcesses.js";

/**
 * auth's secrets, laid out like its Kubernetes Secret mounts and made fresh for every `up` (the
 * chains and Kafka start empty too): a random pepper and one signing key, active at once. Nothing
 * here is ever committed; the folder is readable by its owner only. Only auth's folders are
 * replaced: the servers' users (serverUsers.ts) are written beside them at the same time.
 */
export async function prepareSecrets(secretsDir: string, runtime: ServiceRuntime): Promise<void> {
  for (const secret of ["auth-pepper", "auth-signing-keys"])
    rmSync(join(secretsDir, secret), { recursive: true, force: true });
  mkdirSync(join(secretsDir, "auth-pepper"), { recursive: true, mode: 0o700 });
  writeFileSync(join(secretsDir, "auth-pepper", "pepper"), randomBytes(48).toString("base64url"), { mode: 0o600 });
  const keysDir = join(secretsDir, "auth-signing-keys");
  mkdirSync(keysDir, { recursive: true, mode: 0o700 });
  await authCli(runtime, [
    "signing-keys",
    "generate",
    "--dir",
    keysDir,
    "--active-from",
    new Date(Date.now() - 60_000).toISOString(),
  ]);
}

export interface DemoKey {
  id: string;
  secret: string;
  scopes: string[];
}

export const DEMO_SCOPES = ["data:read", "intents:read", "intents:write"];

/** Creates the demo API key through auth, as an operator would with `pnpm cli keys create`. */
export async function seedDemoKey(runtime: ServiceRuntime, authAdminGrpcTarget: string): Promise<DemoKey> {
  const output = await authCli(
    runtime,
    ["keys", "create", "--name", "demo", "--scopes", DEMO_SCOPES.join(","), "--tier", "standard", "--json"],
    {
      AUTH_ADMIN_GRPC_TARGET: authAdminGrpcTarget,
    },
  );
  const created = JSON.parse(output) as { id: string; secret: string };
  return { id: created.id, secret: created.secret, scopes: DEMO_SCOPES };
}
