import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { waitReady } from "./waitReady.js";

describe("waitReady", () => {
  it("gives up as soon as the process has exited, naming that and the log's last lines", async () => {
    const logFile = join(mkdtempSync(join(tmpdir(), "wait-ready-")), "svc.log");
    writeFileSync(logFile, "starting\nError: listen EADDRINUSE 127.0.0.1:41011\n");
    const started = Date.now();
    const failure = waitReady("svc", "http://127.0.0.1:9/readyz", logFile, 60_000, Promise.resolve(1));
    await expect(failure).rejects.toThrow(/svc exited before it became ready[\s\S]*EADDRINUSE/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("still times out when the process lives but never answers", async () => {
    const logFile = join(mkdtempSync(join(tmpdir(), "wait-ready-")), "svc.log");
    const alive = new Promise<number>(() => {});
    await expect(waitReady("svc", "http://127.0.0.1:9/readyz", logFile, 300, alive)).rejects.toThrow(
      /svc did not become ready within 300 ms[\s\S]*\(no log yet\)/,
    );
  });
});
