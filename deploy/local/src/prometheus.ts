import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findBinary, type ManagedProcess, spawnManaged, waitFor } from "@platform/testing";
import { repoRoot } from "./paths.js";

/**
 * The local stack's Prometheus (Debian's `prometheus` package, `STACK_OBSERVABILITY=1`): on loopback,
 * scraping every service's ops port, with the platform's alert rules loaded, its data in the
 * stack's data folder. The rules are the files generated from deploy/k8s/src/observability/alerts.ts:
 * `production` (the windows deployed to Kubernetes) or `short` (windows of seconds, for trying the
 * alerts out and for the end-to-end test), the same expressions either way.
 */

export type RuleVariant = "production" | "short";

export interface ObservabilityOptions {
  rules?: RuleVariant;
  /** Seconds between scrapes; 15 with the production rules, 1 with the short ones by default. */
  scrapeIntervalSeconds?: number;
  /** Seconds between rule evaluations; the rule file's own (30 or 1) by default. */
  evaluationIntervalSeconds?: number;
}

export interface ScrapeTarget {
  /** The `job` label: the process name. */
  job: string;
  /** host:port of its ops server, which serves /metrics. */
  address: string;
}

export interface StartPrometheusOptions extends ObservabilityOptions {
  port: number;
  targets: ScrapeTarget[];
  dataDir: string;
  logFile: string;
  detached: boolean;
}

export interface RunningPrometheus {
  url: string;
  process: ManagedProcess;
  /** The rule file loaded (a copy with the evaluation interval applied). */
  rulesFile: string;
  stop(): Promise<void>;
}

export const RULE_FILES: Record<RuleVariant, string> = {
  production: join(repoRoot, "deploy", "k8s", "observability", "prometheus", "platform-alerts.rules.yaml"),
  short: join(repoRoot, "deploy", "k8s", "observability", "prometheus", "platform-alerts.short.rules.yaml"),
};

/** The effective intervals of a variant. */
export function observabilityIntervals(options: ObservabilityOptions): {
  rules: RuleVariant;
  scrapeIntervalSeconds: number;
  evaluationIntervalSeconds: number | undefined;
} {
  const rules = options.rules ?? "production";
  return {
    rules,
    scrapeIntervalSeconds: options.scrapeIntervalSeconds ?? (rules === "short" ? 1 : 15),
    evaluationIntervalSeconds: options.evaluationIntervalSeconds,
  };
}

/** prometheus.yml: one job per process, every one on loopback. */
export function prometheusConfig(targets: ScrapeTarget[], scrapeSeconds: number, rulesFile: string): string {
  // scrape_timeout may not exceed the interval (Prometheus refuses the config otherwise).
  const timeout = Math.min(scrapeSeconds, 10);
  const jobs = targets
    .map(
      (target) => `  - job_name: ${JSON.stringify(target.job)}
    metrics_path: /metrics
    static_configs:
      - targets: [${JSON.stringify(target.address)}]`,
    )
    .join("\n");
  return `# Written by the local stack (deploy/local/src/prometheus.ts) at each start.
global:
  scrape_interval: ${scrapeSeconds}s
  scrape_timeout: ${timeout}s
  evaluation_interval: ${scrapeSeconds}s
rule_files:
  - ${JSON.stringify(rulesFile)}
scrape_configs:
${jobs}
`;
}

/** The rule file with every group's `interval:` set to `seconds` (the generated files set one per group). */
export function withEvaluationInterval(rules: string, seconds: number | undefined): string {
  if (seconds === undefined) return rules;
  return rules.replace(/^(\s+interval: ).*$/gm, `$1${seconds}s`);
}

export async function startPrometheus(options: StartPrometheusOptions): Promise<RunningPrometheus> {
  const { rules, scrapeIntervalSeconds, evaluationIntervalSeconds } = observabilityIntervals(options);
  mkdirSync(options.dataDir, { recursive: true });
  const rulesFile = join(options.dataDir, "platform-alerts.rules.yaml");
  writeFileSync(rulesFile, withEvaluationInterval(readFileSync(RULE_FILES[rules], "utf8"), evaluationIntervalSeconds));
  const configFile = join(options.dataDir, "prometheus.yml");
  writeFileSync(configFile, prometheusConfig(options.targets, scrapeIntervalSeconds, rulesFile));
  const url = `http://127.0.0.1:${options.port}`;
  const process = spawnManaged({
    name: "prometheus",
    command: findBinary("prometheus", "PROMETHEUS_BIN"),
    args: [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(options.dataDir, "tsdb")}`,
      "--storage.tsdb.retention.time=2d",
      `--web.listen-address=127.0.0.1:${options.port}`,
      `--web.external-url=${url}`,
    ],
    logFile: options.logFile,
    detached: options.detached,
  });
  const exited = process.exited.then((code) => {
    throw new Error(`prometheus exited (${code}) before it was ready; see ${options.logFile}`);
  });
  await Promise.race([
    exited,
    waitFor(
      async () => {
        const response = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1_000) });
        await response.body?.cancel();
        return response.status === 200;
      },
      { what: `prometheus ready at ${url}`, timeoutMs: 30_000, intervalMs: 200 },
    ),
  ]);
  exited.catch(() => undefined);
  return { url, process, rulesFile, stop: () => process.stop() };
}

/**
 * The CLI's settings: `STACK_OBSERVABILITY=1` turns Prometheus on; `STACK_OBSERVABILITY_RULES`
 * (`production` or `short`), `STACK_PROMETHEUS_SCRAPE_SECONDS` and
 * `STACK_PROMETHEUS_EVALUATION_SECONDS` tune it. A malformed value throws naming its variable.
 */
export function observabilityFromEnv(env: NodeJS.ProcessEnv = process.env): ObservabilityOptions | undefined {
  const on = env.STACK_OBSERVABILITY;
  if (on === undefined || on === "" || on === "0" || on === "false") return undefined;
  if (on !== "1" && on !== "true") throw new Error(`STACK_OBSERVABILITY: must be 1 or 0, got "${on}"`);
  const rules = env.STACK_OBSERVABILITY_RULES;
  if (rules !== undefined && rules !== "" && rules !== "production" && rules !== "short")
    throw new Error(`STACK_OBSERVABILITY_RULES: must be production or short, got "${rules}"`);
  const seconds = (name: string): number | undefined => {
    const value = env[name];
    if (value === undefined || value === "") return undefined;
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 1 || parsed > 300)
      throw new Error(`${name}: must be a whole number of seconds between 1 and 300, got "${value}"`);
    return parsed;
  };
  const scrape = seconds("STACK_PROMETHEUS_SCRAPE_SECONDS");
  const evaluation = seconds("STACK_PROMETHEUS_EVALUATION_SECONDS");
  return {
    ...(rules ? { rules: rules as RuleVariant } : {}),
    ...(scrape === undefined ? {} : { scrapeIntervalSeconds: scrape }),
    ...(evaluation === undefined ? {} : { evaluationIntervalSeconds: evaluation }),
  };
}
