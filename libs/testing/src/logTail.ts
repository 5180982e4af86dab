import { readFileSync } from "node:fs";

/** The end of a server's log, for the error that says why it did not start. */
export function logTail(logFile: string): string {
  try {
    return readFileSync(logFile, "utf8").slice(-2_000);
  } catch {
    return "(no log written)";
  }
}
