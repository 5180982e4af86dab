import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, test } from "vitest";
import { observabilityFromEnv, prometheusConfig, RULE_FILES, withEvaluationInterval } from "./prometheus.js";

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "stack-prometheus-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the local stack's Prometheus configuration", () => {
  test.each(["production", "short"] as const)(
    "is valid for promtool check config, with the %s rules at a 1 s evaluation interval",
    async (variant) => {
      const rulesFile = join(dir, `${variant}.rules.yaml`);
      const rules = withEvaluationInterval(readFileSync(RULE_FILES[variant], "utf8"), 1);
      expect(rules).toMatch(/^ {4}interval: 1s$/m);
      writeFileSync(rulesFile, rules);
      const configFile = join(dir, `${variant}.yml`);
      writeFileSync(
        configFile,
        prometheusConfig(
          [
            { job: "gateway", address: "127.0.0.1:9470" },
            { job: "projector", address: "127.0.0.1:9476" },
          ],
          1,
          rulesFile,
        ),
      );
      const { stdout } = await run(process.env.PROMTOOL_BIN ?? "promtool", ["check", "config", configFile]).catch(
        (error: { stdout?: string; stderr?: string; message: string }) => {
          throw new Error(`promtool check config failed: ${error.stdout ?? ""}${error.stderr ?? error.message}`);
        },
      );
      expect(stdout).toMatch(/SUCCESS: 12 rules found/);
    },
  );

  test("keeps the rule file's own evaluation interval unless one is given", () => {
    const rules = readFileSync(RULE_FILES.production, "utf8");
    expect(withEvaluationInterval(rules, undefined)).toBe(rules);
    expect(rules).toMatch(/^ {4}interval: 30s$/m);
  });

  test("reads STACK_OBSERVABILITY and its tuning variables, naming a malformed one", () => {
    expect(observabilityFromEnv({})).toBeUndefined();
    expect(observabilityFromEnv({ STACK_OBSERVABILITY: "0" })).toBeUndefined();
    expect(observabilityFromEnv({ STACK_OBSERVABILITY: "1" })).toEqual({});
    expect(
      observabilityFromEnv({
        STACK_OBSERVABILITY: "1",
        STACK_OBSERVABILITY_RULES: "short",
        STACK_PROMETHEUS_SCRAPE_SECONDS: "2",
        STACK_PROMETHEUS_EVALUATION_SECONDS: "3",
      }),
    ).toEqual({ rules: "short", scrapeIntervalSeconds: 2, evaluationIntervalSeconds: 3 });
    expect(() => observabilityFromEnv({ STACK_OBSERVABILITY: "yes" })).toThrow(/^STACK_OBSERVABILITY:/);
    expect(() => observabilityFromEnv({ STACK_OBSERVABILITY: "1", STACK_OBSERVABILITY_RULES: "fast" })).toThrow(
      /^STACK_OBSERVABILITY_RULES:/,
    );
    expect(() => observabilityFromEnv({ STACK_OBSERVABILITY: "1", STACK_PROMETHEUS_SCRAPE_SECONDS: "0.5" })).toThrow(
      /^STACK_PROMETHEUS_SCRAPE_SECONDS:/,
    );
  });
});
