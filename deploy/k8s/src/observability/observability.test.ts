import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { DEPLOYABLES } from "../deployables.js";
import { K8S_DIR, REPO_ROOT } from "../paths.js";
import { StrictSchema } from "../schema.js";
import { alertRuleGroups, duration, PRODUCTION_ALERT_SETTINGS, SHORT_ALERT_SETTINGS } from "./alerts.js";
import { DASHBOARDS, dashboardQueries } from "./dashboards.js";
import { DASHBOARD_LABEL, observabilityManifests } from "./files.js";
import { familyOf, metricNames } from "./promql.js";

const rules = alertRuleGroups(PRODUCTION_ALERT_SETTINGS).flatMap((group) => group.rules);

describe("alert rules", () => {
  test("every alert has a severity, a summary, a description and a runbook link to its own README section", () => {
    const readme = readFileSync(join(K8S_DIR, "README.md"), "utf8");
    const headings = new Set([...readme.matchAll(/^#{2,4} (.+)$/gm)].map((match) => match[1]!.trim().toLowerCase()));
    for (const rule of rules) {
      expect(["critical", "warning", "info"]).toContain(rule.labels.severity);
      expect(rule.annotations.summary.length, rule.alert).toBeGreaterThan(10);
      expect(rule.annotations.description.length, rule.alert).toBeGreaterThan(20);
      expect(rule.annotations.runbook_url).toMatch(new RegExp(`README\\.md#${rule.alert.toLowerCase()}$`));
      expect(headings, `deploy/k8s/README.md has no heading "${rule.alert}"`).toContain(rule.alert.toLowerCase());
    }
  });

  test("the brief's alerts are all there", () => {
    expect(rules.map((rule) => rule.alert)).toEqual([
      "ProjectionBehind",
      "ProjectionBacklogRecords",
      "ProjectionRebuilding",
      "ProjectionMetricsAbsent",
      "IngestionStalled",
      "IngestorBehindHead",
      "IngestorBehindFinality",
      "ReadModelStale",
      "ReadinessFlapping",
      "ServiceNotReady",
      "GatewayHigh5xxRate",
      "GatewayRateLimited",
    ]);
  });

  test("the short variant differs from production only in thresholds and windows, never in what it reads", () => {
    const short = alertRuleGroups(SHORT_ALERT_SETTINGS).flatMap((group) => group.rules);
    expect(short.map((rule) => rule.alert)).toEqual(rules.map((rule) => rule.alert));
    short.forEach((rule, index) => expect(metricNames(rule.expr)).toEqual(metricNames(rules[index]!.expr)));
  });

  test("durations are Prometheus durations", () => {
    expect(duration(0)).toBe("0s");
    expect(duration(90)).toBe("1m30s");
    expect(duration(3_600)).toBe("1h");
  });
});

describe("metric names", () => {
  test("are read from expressions: strings, matchers, ranges, grouping labels and functions left out", () => {
    expect(
      metricNames(
        'label_replace(max(a_total{x="y"}[5m]) - on () max(last_over_time(b_seconds[1h])) > 3 unless on (p) count(c{p="d"}), "p", "q", "", "")',
      ),
    ).toEqual(["a_total", "b_seconds", "c"]);
    expect(metricNames("histogram_quantile(0.99, sum by (route, le) (rate(h_bucket[$__rate_interval])))")).toEqual([
      "h_bucket",
    ]);
    expect(familyOf("h_bucket")).toBe("h");
  });

  test("every metric a rule or dashboard reads is registered by some service or is one of prom-client's defaults", () => {
    const registered = new Set([...sourceMetricNames(), ...defaultMetricNames()]);
    const used = new Set([
      ...rules.flatMap((rule) => metricNames(rule.expr)),
      ...dashboardQueries().flatMap((query) => metricNames(query.expr)),
    ]);
    const unknown = [...used].filter((name) => !registered.has(name) && !registered.has(familyOf(name)));
    expect(unknown).toEqual([]);
  });
});

describe("dashboards", () => {
  test("one per deployable group, each about services that are deployed", () => {
    expect(DASHBOARDS.map((dashboard) => dashboard.name)).toEqual([
      "gateway",
      "data-query",
      "intents-gateway",
      "auth-tc",
      "projector",
      "chain-ingestor",
    ]);
    const deployed = new Set(DEPLOYABLES.map((deployable) => deployable.service));
    for (const dashboard of DASHBOARDS) for (const service of dashboard.services) expect(deployed).toContain(service);
  });

  test("ship as ConfigMaps labelled for Grafana's sidecar, beside a PrometheusRule the strict schema accepts", async () => {
    const manifests = observabilityManifests();
    const configMaps = manifests.filter((manifest) => manifest.kind === "ConfigMap");
    expect(configMaps).toHaveLength(DASHBOARDS.length);
    for (const configMap of configMaps) {
      expect((configMap.metadata.labels as Record<string, string>)[DASHBOARD_LABEL]).toBe("1");
      const [json] = Object.values(configMap.data as Record<string, string>);
      expect(JSON.parse(json!)).toMatchObject({ uid: expect.stringMatching(/^platform-/), panels: expect.any(Array) });
    }
    const schema = await StrictSchema.load();
    expect(manifests.flatMap((manifest) => schema.validate(manifest))).toEqual([]);
    // The custom check bites: an unknown field in a rule, a bad duration.
    const rule = structuredClone(manifests.find((manifest) => manifest.kind === "PrometheusRule")!) as any;
    rule.spec.groups[0].rules[0].severity = "critical";
    rule.spec.groups[0].rules[1].for = "ten minutes";
    expect(schema.validate(rule).map((problem) => `${problem.path}: ${problem.message}`)).toEqual([
      '.spec.groups[0].rules[0].severity: unknown field "severity"',
      '.spec.groups[0].rules[1].for: must be a Prometheus duration, not "ten minutes"',
    ]);
  });
});

/** Metric names given to prom-client constructors in the services' and libs' sources (`name: "…"`). */
function sourceMetricNames(): string[] {
  const names: string[] = [];
  const visit = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (entry === "node_modules" || entry === "dist") continue;
      if (statSync(path).isDirectory()) visit(path);
      else if (entry.endsWith(".ts") && !entry.endsWith(".test.ts")) {
        const text = readFileSync(path, "utf8");
        if (!text.includes("prom-client")) continue;
        // Every string literal shaped like a metric name: names are passed as `name:` or to helpers.
        for (const match of text.matchAll(/"([a-z][a-z0-9]*(?:_[a-z0-9]+)+)"/g)) names.push(match[1]!);
      }
    }
  };
  for (const root of ["libs", "services"])
    for (const pkg of readdirSync(join(REPO_ROOT, root))) {
      const src = join(REPO_ROOT, root, pkg, "src");
      if (statSync(join(REPO_ROOT, root, pkg)).isDirectory() && safeIsDir(src)) visit(src);
    }
  return names;
}

function safeIsDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** prom-client's default metrics, as libs/runtime registers them. */
function defaultMetricNames(): string[] {
  const require = createRequire(join(REPO_ROOT, "libs", "runtime", "package.json"));
  // prom-client is a dependency of libs/runtime, not of this package: loaded from there, typed by hand.
  const { Registry, collectDefaultMetrics } = require("prom-client") as {
    Registry: new () => { getMetricsAsArray(): Array<{ name: string }> };
    collectDefaultMetrics(options: { register: unknown }): void;
  };
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry.getMetricsAsArray().map((metric) => metric.name);
}
