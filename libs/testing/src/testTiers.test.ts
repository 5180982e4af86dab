import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/*
 * scripts/test --unit runs the `unit` group alone (vitest.config.ts): every *.test.ts that starts no
 * external server. A test that starts one belongs in *.int.test.ts, or the unit run would need
 * Kafka, Redis, NATS, anvil or chopsticks, and stop being fast.
 */
const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const STARTS_A_SERVER =
  /\b(startKafka|startKafkaCluster|startRedis|startNats|startAnvil|startChopsticks|deployDevnet|spawnManaged|ensureKafkaJars|startDataStack)\(|devnetHarness|from "@platform\/local-stack"/;

async function unitTestFiles(): Promise<string[]> {
  const files: string[] = [];
  for (const top of ["libs", "services", "deploy"]) {
    for (const entry of await readdir(join(REPO_ROOT, top), { recursive: true, withFileTypes: true })) {
      const path = join(entry.parentPath, entry.name);
      if (!entry.isFile() || path.includes("node_modules") || path.includes("/dist/") || !path.includes("/src/"))
        continue;
      if (entry.name.endsWith(".test.ts") && !entry.name.endsWith(".int.test.ts")) files.push(path);
    }
  }
  return files;
}

describe("test tiers", () => {
  it("no unit test (*.test.ts) starts an external server; those are *.int.test.ts", async () => {
    const files = await unitTestFiles();
    expect(files.length).toBeGreaterThan(50);
    const offenders: string[] = [];
    for (const file of files) {
      if (file.endsWith("testTiers.test.ts")) continue;
      if (STARTS_A_SERVER.test(await readFile(file, "utf8"))) offenders.push(file.slice(REPO_ROOT.length));
    }
    expect(offenders).toEqual([]);
  });
});
