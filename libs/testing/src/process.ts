import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  readonly exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
  kill(signal?: NodeJS.Signals): void;
}

export interface SpawnOptions {
  name: string;
  command: string;
  args: string[];
  /** stdout and stderr are appended here; the folder is created. */
  logFile: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** A detached process outlives its parent (the local stack); tests keep theirs attached. */
  detached?: boolean;
}

/** Starts a server process whose output goes to a log file, never to the test's console. */
export function spawnManaged(options: SpawnOptions): ManagedProcess {
  mkdirSync(dirname(options.logFile), { recursive: true });
  const out = openSync(options.logFile, "a");
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["ignore", out, out],
    detached: options.detached ?? false,
  });
  closeSync(out);
  if (child.pid === undefined) {
    throw new Error(`${options.name}: could not start ${options.command}`);
  }
  if (options.detached) child.unref();
  const pid = child.pid;
  let ended = false;
  const exited = new Promise<number | string>((resolve) => {
    child.once("exit", (code, signal) => {
      ended = true;
      resolve(code ?? signal ?? "unknown");
    });
    child.once("error", () => {
      ended = true;
      resolve("spawn-error");
    });
  });
  return {
    name: options.name,
    pid,
    exited,
    kill(signal = "SIGKILL") {
      if (!ended) child.kill(signal);
    },
    async stop(graceMs = 10_000) {
      if (ended) return;
      child.kill("SIGTERM");
      // An unref'd timer: once the process has exited, nothing keeps the caller alive for the grace period.
      const result = await Promise.race([exited, sleep(graceMs, "timeout" as const, { ref: false })]);
      if (result === "timeout") {
        child.kill("SIGKILL");
        await exited;
      }
    },
  };
}

/** Ends a process known only by its pid (a detached stack process): SIGTERM, then SIGKILL. */
export async function stopPid(pid: number, graceMs = 10_000): Promise<boolean> {
  if (!isAlive(pid)) return false;
  signalGroupOrPid(pid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await sleep(100);
  }
  signalGroupOrPid(pid, "SIGKILL");
  while (isAlive(pid)) await sleep(50);
  return true;
}

/**
 * True while the process runs. A zombie (ended, not yet reaped, as happens to detached stack
 * processes when the container's init does not reap) counts as ended.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) S ..."; the state follows the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true; // no /proc (not Linux): trust the signal check
  }
}

function signalGroupOrPid(pid: number, signal: NodeJS.Signals): void {
  try {
    // Detached processes lead their own group; signalling the group also reaches wrappers' children.
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}
