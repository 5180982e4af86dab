import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "@platform/log";
import { parseSigningKeyFile, type SigningKey } from "./signingKeyFile.js";

/**
 * Reads every key file of the folder. Hidden entries are skipped: a Kubernetes Secret volume
 * holds its files as symlinks next to `..data` and timestamped folders, which are followed only
 * through the visible names. Throws, naming the file and the problem, on an unreadable folder,
 * a bad file, a repeated kid, or no key at all.
 */
export function loadSigningKeys(dir: string): SigningKey[] {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((name) => !name.startsWith("."))
      .sort();
  } catch (error) {
    throw new Error(`cannot read the folder ${dir}: ${(error as NodeJS.ErrnoException).code ?? "error"}`);
  }
  const keys: SigningKey[] = [];
  for (const name of names) {
    const path = join(dir, name);
    if (!statSync(path, { throwIfNoEntry: false })?.isFile()) continue;
    let key: SigningKey;
    try {
      key = parseSigningKeyFile(readFileSync(path, "utf8"));
    } catch (error) {
      throw new Error(`${path}: ${(error as Error).message}`);
    }
    if (keys.some((known) => known.kid === key.kid)) throw new Error(`${path}: kid ${key.kid} appears in two files`);
    keys.push(key);
  }
  if (keys.length === 0) throw new Error(`no signing-key file in ${dir}`);
  return keys;
}

/** The key tokens are signed with at `now`: the newest whose activeFrom has passed. */
export function activeKeyOf(keys: readonly SigningKey[], now: number): SigningKey | undefined {
  let active: SigningKey | undefined;
  for (const key of keys) {
    if (key.activeFrom > now) continue;
    if (
      active === undefined ||
      key.activeFrom > active.activeFrom ||
      (key.activeFrom === active.activeFrom && key.kid > active.kid)
    )
      active = key;
  }
  return active;
}

/** Start-up check: the folder loads and a key can sign now. */
export function loadSigningKeysForStart(dir: string, now: number = Date.now()): SigningKey[] {
  const keys = loadSigningKeys(dir);
  if (activeKeyOf(keys, now) === undefined) {
    const earliest = new Date(Math.min(...keys.map((key) => key.activeFrom))).toISOString();
    throw new Error(`no signing key is active yet in ${dir} (the earliest activeFrom is ${earliest})`);
  }
  return keys;
}

export interface SigningKeyStore {
  /** The key to sign with now; undefined when none is active (only possible after a bad reload). */
  signingKey(now?: number): SigningKey | undefined;
  /** Every key in the folder, published for verification (future keys included, so they are known before they sign). */
  keys(): readonly SigningKey[];
  /** Reads the folder again now. */
  reload(): void;
  stop(): void;
}

/**
 * The signing keys, read again every `intervalMs`: a key file added is published at the next
 * read and signs from its activeFrom; a file removed stops being published. A folder that fails
 * to load (a bad file, emptied) keeps the keys last loaded, and says so once per problem.
 */
export function watchSigningKeys(
  dir: string,
  initial: SigningKey[],
  options: { intervalMs: number; log: Logger },
): SigningKeyStore {
  let keys = initial;
  let lastProblem: string | undefined;

  const reload = (): void => {
    try {
      const loaded = loadSigningKeys(dir);
      const before = keys.map((key) => key.kid).join(",");
      keys = loaded;
      lastProblem = undefined;
      const after = keys.map((key) => key.kid).join(",");
      if (before !== after) options.log.info({ kids: keys.map((key) => key.kid) }, "signing keys changed");
    } catch (error) {
      const problem = (error as Error).message;
      if (problem !== lastProblem)
        options.log.error({ problem }, "cannot reload the signing keys; keeping the ones loaded before");
      lastProblem = problem;
    }
  };

  const timer = setInterval(reload, options.intervalMs);
  timer.unref();

  return {
    signingKey: (now = Date.now()) => activeKeyOf(keys, now),
    keys: () => keys,
    reload,
    stop: () => clearInterval(timer),
  };
}
