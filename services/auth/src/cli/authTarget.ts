import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PlatformError } from "@platform/errors/base";

/** The repository's `.local`, where the local stack writes stack.json. */
export const defaultStateDir = fileURLToPath(new URL("../../../../.local", import.meta.url));

/** The CLI cannot find auth: printed on one line, exit 1. */
export class TargetError extends PlatformError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, { code: "CLI_TARGET", retryable: false, cause: options?.cause });
  }
}

/**
 * Where auth's key administration (AuthAdminService, its own listener) answers:
 * AUTH_ADMIN_GRPC_TARGET, else the `auth` process of the local stack's descriptor
 * (`<STACK_STATE_DIR or .local>/stack.json`, field `adminGrpcTarget`).
 */
export function resolveAuthTarget(env: NodeJS.ProcessEnv = process.env, stateDir: string = defaultStateDir): string {
  const explicit = env.AUTH_ADMIN_GRPC_TARGET?.trim();
  if (explicit) return explicit;
  const dir = env.STACK_STATE_DIR?.trim()
    ? isAbsolute(env.STACK_STATE_DIR)
      ? env.STACK_STATE_DIR
      : resolve(env.STACK_STATE_DIR)
    : stateDir;
  const path = join(dir, "stack.json");
  if (!existsSync(path))
    throw new TargetError(
      `AUTH_GRPC_TARGET is not set and ${path} does not exist; start the stack (pnpm stack) or set AUTH_ADMIN_GRPC_TARGET`,
    );
  let descriptor: unknown;
  try {
    descriptor = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    throw new TargetError(`${path} is not valid JSON`);
  }
  const processes = (descriptor as { processes?: unknown }).processes;
  const auth = Array.isArray(processes)
    ? processes.find((entry) => (entry as { name?: unknown })?.name === "auth")
    : undefined;
  const target = (auth as { adminGrpcTarget?: unknown } | undefined)?.adminGrpcTarget;
  if (typeof target !== "string" || target === "")
    throw new TargetError(`${path} lists no auth process with an adminGrpcTarget; set AUTH_ADMIN_GRPC_TARGET`);
  return target;
}
