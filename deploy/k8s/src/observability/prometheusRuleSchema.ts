/**
 * Strict validation of a `monitoring.coreos.com/v1` PrometheusRule, the Prometheus Operator's
 * custom resource, which the pinned Kubernetes API catalogue does not know. The fields are those of
 * the operator's CRD (`spec.groups[].rules[]`); anything else is reported as the API server's
 * strict field validation would. The rules' expressions themselves are checked by promtool
 * (src/observability/promtool.test.ts) on the plain rule files rendered from the same source.
 */

export const PROMETHEUS_RULE_API = "monitoring.coreos.com/v1";

const DURATION = /^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$/;
const GROUP_FIELDS = new Set([
  "name",
  "interval",
  "rules",
  "limit",
  "partial_response_strategy",
  "query_offset",
  "labels",
]);
const RULE_FIELDS = new Set(["alert", "record", "expr", "for", "keep_firing_for", "labels", "annotations"]);

type Report = (path: string, message: string) => void;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkStringMap(value: unknown, path: string, report: Report): void {
  if (value === undefined) return;
  if (!isObject(value)) {
    report(path, "must be a map of strings");
    return;
  }
  for (const [key, item] of Object.entries(value))
    if (typeof item !== "string") report(`${path}.${key}`, "must be a string");
}

function checkDuration(value: unknown, path: string, report: Report): void {
  if (value === undefined) return;
  if (typeof value !== "string" || value === "" || !DURATION.test(value))
    report(path, `must be a Prometheus duration, not ${JSON.stringify(value)}`);
}

/** Problems of a PrometheusRule's `spec` (metadata is checked against the Kubernetes schema). */
export function checkPrometheusRuleSpec(spec: unknown, report: Report): void {
  if (!isObject(spec)) {
    report(".spec", "is required (an object)");
    return;
  }
  for (const key of Object.keys(spec)) if (key !== "groups") report(`.spec.${key}`, `unknown field "${key}"`);
  const groups = spec.groups;
  if (!Array.isArray(groups)) {
    report(".spec.groups", "must be an array");
    return;
  }
  const names = new Set<string>();
  groups.forEach((group, g) => {
    const at = `.spec.groups[${g}]`;
    if (!isObject(group)) {
      report(at, "must be an object");
      return;
    }
    for (const key of Object.keys(group)) if (!GROUP_FIELDS.has(key)) report(`${at}.${key}`, `unknown field "${key}"`);
    if (typeof group.name !== "string" || group.name === "") report(`${at}.name`, "is required");
    else if (names.has(group.name)) report(`${at}.name`, `duplicate group name ${group.name}`);
    else names.add(group.name);
    checkDuration(group.interval, `${at}.interval`, report);
    if (!Array.isArray(group.rules)) {
      report(`${at}.rules`, "must be an array");
      return;
    }
    group.rules.forEach((rule, r) => {
      const ruleAt = `${at}.rules[${r}]`;
      if (!isObject(rule)) {
        report(ruleAt, "must be an object");
        return;
      }
      for (const key of Object.keys(rule))
        if (!RULE_FIELDS.has(key)) report(`${ruleAt}.${key}`, `unknown field "${key}"`);
      if ((rule.alert === undefined) === (rule.record === undefined))
        report(ruleAt, "must have exactly one of alert and record");
      if (typeof rule.expr !== "string" || rule.expr.trim() === "") report(`${ruleAt}.expr`, "is required (a string)");
      checkDuration(rule.for, `${ruleAt}.for`, report);
      checkDuration(rule.keep_firing_for, `${ruleAt}.keep_firing_for`, report);
      checkStringMap(rule.labels, `${ruleAt}.labels`, report);
      checkStringMap(rule.annotations, `${ruleAt}.annotations`, report);
    });
  });
}
