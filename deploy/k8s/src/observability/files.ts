import { stringify } from "yaml";
import type { Manifest } from "../manifests.js";
import { type AlertSettings, alertRuleGroups, PRODUCTION_ALERT_SETTINGS, SHORT_ALERT_SETTINGS } from "./alerts.js";
import { promtoolTests } from "./alertTests.js";
import { DASHBOARDS, grafanaJson } from "./dashboards.js";

/**
 * The generated observability files: plain Prometheus rule files (what promtool checks and the
 * local stack loads), their promtool tests, and the Grafana dashboards as JSON, under
 * deploy/k8s/observability/; and the same rules and dashboards as Kubernetes objects for the base
 * (a PrometheusRule, one ConfigMap per dashboard).
 */

const YAML_OPTIONS = { lineWidth: 0, aliasDuplicateObjects: false } as const;

const RULES_HEADER = [
  "# Generated from deploy/k8s/src/observability/alerts.ts by `pnpm --filter @platform/k8s gen`.",
  "# Edit it there and regenerate; a test fails when this file is stale.",
].join("\n");

/** The rule-file variants: production windows, and short ones for the local stack and its tests. */
export const RULE_VARIANTS: Array<{
  name: "production" | "short";
  file: string;
  test: string;
  settings: AlertSettings;
}> = [
  {
    name: "production",
    file: "platform-alerts.rules.yaml",
    test: "platform-alerts.test.yaml",
    settings: PRODUCTION_ALERT_SETTINGS,
  },
  {
    name: "short",
    file: "platform-alerts.short.rules.yaml",
    test: "platform-alerts.short.test.yaml",
    settings: SHORT_ALERT_SETTINGS,
  },
];

export const PROMETHEUS_RULE_NAME = "platform-alerts";
export const DASHBOARD_LABEL = "grafana_dashboard";

export function dashboardConfigMapName(dashboard: string): string {
  return `grafana-dashboard-${dashboard}`;
}

function dashboardText(dashboard: (typeof DASHBOARDS)[number]): string {
  return `${JSON.stringify(grafanaJson(dashboard), null, 2)}\n`;
}

/** deploy/k8s/observability's generated files, by path relative to it. */
export function generateObservability(): Map<string, string> {
  const files = new Map<string, string>();
  for (const variant of RULE_VARIANTS) {
    files.set(
      `prometheus/${variant.file}`,
      `${RULES_HEADER}\n${stringify({ groups: alertRuleGroups(variant.settings) }, YAML_OPTIONS)}`,
    );
    files.set(
      `prometheus/${variant.test}`,
      `${RULES_HEADER}\n${stringify(promtoolTests(variant.settings, variant.file), YAML_OPTIONS)}`,
    );
  }
  for (const dashboard of DASHBOARDS) files.set(`grafana/${dashboard.name}.json`, dashboardText(dashboard));
  return files;
}

/** The base's observability objects: the production rules as a PrometheusRule, the dashboards as ConfigMaps. */
export function observabilityManifests(): Manifest[] {
  const prometheusRule: Manifest = {
    apiVersion: "monitoring.coreos.com/v1",
    kind: "PrometheusRule",
    metadata: {
      name: PROMETHEUS_RULE_NAME,
      labels: { "app.kubernetes.io/name": PROMETHEUS_RULE_NAME, "app.kubernetes.io/component": "monitoring" },
    },
    spec: { groups: alertRuleGroups(PRODUCTION_ALERT_SETTINGS) },
  };
  const configMaps: Manifest[] = DASHBOARDS.map((dashboard) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: dashboardConfigMapName(dashboard.name),
      labels: {
        "app.kubernetes.io/name": dashboardConfigMapName(dashboard.name),
        "app.kubernetes.io/component": "monitoring",
        [DASHBOARD_LABEL]: "1",
      },
    },
    data: { [`${dashboard.name}.json`]: dashboardText(dashboard) },
  }));
  return [prometheusRule, ...configMaps];
}
