import { readFileSync } from "node:fs";
import { waitFor } from "@platform/testing";

/** Waits until a /readyz URL answers 200; on timeout the error carries the tail of the process log. */
export async function waitReady(name: string, url: string, logFile: string, timeoutMs: number): Promise<void> {
  try {
    await waitFor(
      async () => {
        const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
        await response.body?.cancel();
        return response.status === 200;
      },
      { what: `${name} ready at ${url}`, timeoutMs, intervalMs: 200 },
    );
  } catch (error) {
    throw new Error(
      `${name} did not become ready within ${timeoutMs} ms. Last lines of ${logFile}:\n${tail(logFile, 15)}`,
      { cause: error },
    );
  }
}

export function tail(file: string, lines: number): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log yet)";
  }
}
