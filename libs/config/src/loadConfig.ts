import { PlatformError } from "@platform/errors/base";
import type { z } from "zod";

/** A configuration problem, always naming the environment variable at fault. */
export class ConfigError extends PlatformError {
  constructor(
    readonly variable: string,
    readonly problem: string,
  ) {
    super(`${variable}: ${problem}`, { code: "INVALID_CONFIG", retryable: false });
  }
}

type EnvSchema = z.ZodObject<z.ZodRawShape>;

/**
 * Parses the environment against a schema whose keys are the variable names.
 * Throws a ConfigError for the first bad variable, so the message names exactly one thing to fix.
 */
export function loadConfig<S extends EnvSchema>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const input: Record<string, string | undefined> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = env[key];
    // An empty variable is as good as a missing one; treating "" as a value hides typos in manifests.
    input[key] = value === undefined || value.trim() === "" ? undefined : value;
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const variable = String(issue.path[0] ?? "configuration");
  const missing = input[variable] === undefined;
  throw new ConfigError(variable, missing ? "is required but not set" : issue.message);
}

/**
 * The entry-point form: a bad configuration prints one line naming the variable and exits with
 * EX_CONFIG (78), before any connection is opened.
 */
export function loadConfigOrExit<S extends EnvSchema>(
  service: string,
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<S> {
  try {
    return loadConfig(schema, env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${service}: configuration error: ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}

/**
 * For configuration that lives in a file named by a variable (CHAINS_FILE): runs the loader and,
 * if it throws, prints one line naming the variable and the problem, and exits with EX_CONFIG.
 */
export async function loadFromVariableOrExit<T>(
  service: string,
  variable: string,
  load: () => T | Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const problem = error instanceof Error ? error.message.split("\n").join("; ") : String(error);
    process.stderr.write(`${service}: configuration error: ${variable}: ${problem}\n`);
    process.exit(78);
  }
}
