import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { OBSERVABILITY_DIR } from "../paths.js";
import { dashboardQueries } from "./dashboards.js";
import { RULE_VARIANTS } from "./files.js";

/*
 * The generated rule files pass `promtool check rules`, and their alerts behave as the scenarios of
 * alertTests.ts say under `promtool test rules` (fires after its `for:`, not one evaluation
 * before, clears), for the production windows and the short ones alike. promtool is Debian's
 * `prometheus` package, which deploy/local/install-deps.sh installs.
 */

const run = promisify(execFile);
const PROMTOOL = process.env.PROMTOOL_BIN ?? "promtool";
const RULES_DIR = join(OBSERVABILITY_DIR, "prometheus");

async function promtool(args: string[], cwd: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(PROMTOOL, args, { cwd, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stdout?: string; stderr?: string; code?: number | string };
    if (failure.code === "ENOENT")
      throw new Error(
        `${PROMTOOL} not found: install Debian's prometheus package (deploy/local/install-deps.sh does) or set PROMTOOL_BIN`,
      );
    return { code: Number(failure.code ?? 1), output: `${failure.stdout ?? ""}${failure.stderr ?? ""}` };
  }
}

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "promtool-"));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test("promtool is installed", async () => {
  const { code, output } = await promtool(["--version"], RULES_DIR);
  expect(code, output).toBe(0);
  expect(output).toMatch(/promtool, version 2\./);
});

describe.each(RULE_VARIANTS)("the $name rules", (variant) => {
  test(`promtool check rules ${variant.file}`, async () => {
    const { code, output } = await promtool(["check", "rules", variant.file], RULES_DIR);
    expect(code, output).toBe(0);
    expect(output).toMatch(/SUCCESS: 12 rules found/);
  });

  test(`promtool test rules ${variant.test}: every alert fires after its for:, not before, and clears`, async () => {
    const { code, output } = await promtool(["test", "rules", variant.test], RULES_DIR);
    expect(code, output).toBe(0);
    expect(output).toMatch(/SUCCESS/);
  });

  test("the tests bite: an alert that fires a step early, or a gone projection never reported, fails them", async () => {
    const dir = mkdtempSync(join(scratch, `${variant.name}-`));
    copyFileSync(join(RULES_DIR, variant.test), join(dir, variant.test));
    const rules = readFileSync(join(RULES_DIR, variant.file), "utf8");

    // ServiceNotReady's `for:` one evaluation shorter.
    const interval = variant.settings.evaluationIntervalSeconds;
    const notReadyFor = variant.settings.notReadyForSeconds;
    const shorter = rules.replace(
      /(- alert: ServiceNotReady\n\s+expr: service_ready == 0\n\s+for: )\S+/,
      `$1${notReadyFor - interval}s`,
    );
    expect(shorter).not.toBe(rules);
    writeFileSync(join(dir, variant.file), shorter);
    const early = await promtool(["test", "rules", variant.test], dir);
    expect(early.code).not.toBe(0);
    expect(early.output).toMatch(/alertname: ServiceNotReady/);

    // ProjectionBehind without its estimate for a projection whose processes are gone.
    const liveOnly = rules.replace(
      /(- alert: ProjectionBehind\n\s+expr: \|-\n\s+)(max by \(projection\) \(projection_consumer_lag_seconds\) > \S+)\n[\s\S]*?\n(\s+for: )/,
      "$1$2\n$3",
    );
    expect(liveOnly).not.toBe(rules);
    writeFileSync(join(dir, variant.file), liveOnly);
    const blind = await promtool(["test", "rules", variant.test], dir);
    expect(blind.code).not.toBe(0);
    expect(blind.output).toMatch(/alertname: ProjectionBehind/);
  });
});

test("every dashboard query parses: promtool check rules over them as recording rules", async () => {
  const queries = dashboardQueries();
  // Grafana's variables as a query would get them; each query becomes a recording rule promtool parses.
  const rules = queries.map((query, index) => ({
    record: `dashboard:query_${index}`,
    expr: query.expr.replaceAll("$__rate_interval", "5m").replaceAll("$__range", "1h"),
  }));
  const file = join(scratch, "dashboards.rules.yaml");
  writeFileSync(file, JSON.stringify({ groups: [{ name: "dashboards", rules }] }));
  const { code, output } = await promtool(["check", "rules", file], scratch);
  expect(code, output).toBe(0);
  expect(output).toContain(`SUCCESS: ${queries.length} rules found`);
  // And a broken query fails it.
  writeFileSync(
    file,
    JSON.stringify({ groups: [{ name: "dashboards", rules: [{ record: "x:y", expr: "sum by (a (b)" }] }] }),
  );
  expect((await promtool(["check", "rules", file], scratch)).code).not.toBe(0);
});
