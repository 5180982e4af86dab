import { readFileSync } from "node:fs";
import { waitFor } from "@platform/testing";

/**
 * Waits until a /readyz URL answers 200. It gives up at once when `exited` settles first (the process
 * died: a port taken, a bad setting) and otherwise after `timeoutMs`; the error carries the log's tail.
 */
export async function waitReady(
  name: string,
  url: string,
  logFile: string,
  timeoutMs: number,
  exited?: Promise<number | string>,
): Promise<void> {
  const died = new AbortController();
  void exited?.then((code) => died.abort(new Error(`${name} exited (${code})`)));
  try {
    await waitFor(
      async () => {
        const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
        await response.body?.cancel();
        return response.status === 200;
      },
      { what: `${name} ready at ${url}`, timeoutMs, intervalMs: 200, signal: died.signal },
    );
  } catch (error) {
    const outcome = died.signal.aborted
      ? "exited before it became ready"
      : `did not become ready within ${timeoutMs} ms`;
    throw new Error(`${name} ${outcome}. Last lines of ${logFile}:\n${tail(logFile, 15)}`, { cause: error });
  }
}

export function tail(file: string, lines: number): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log yet)";
  }
}
