/**
 * The metric names a PromQL expression reads. Not a parser: enough for the expressions of this
 * project's rules and dashboards (no `__name__` matchers, no metric names that clash with function
 * or keyword names). Strings, label matchers, ranges, grouping clauses and function calls are
 * removed; every identifier left is a metric name.
 */

const KEYWORDS = new Set([
  "and",
  "or",
  "unless",
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "bool",
  "offset",
  "inf",
  "nan",
]);

export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, " ") // strings (label_replace arguments)
    .replace(/\{[^}]*\}/g, " ") // label matchers
    .replace(/\[[^\]]*\]/g, " ") // ranges and subqueries
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ") // grouping labels
    .replace(/\$__[a-z_]+/g, " "); // Grafana's variables
  const names = new Set<string>();
  for (const match of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*(\s*\()?/g)) {
    const [token, call] = [match[0].replace(/\s*\($/, ""), match[1]];
    if (call !== undefined) continue; // a function
    if (KEYWORDS.has(token.toLowerCase())) continue;
    if (/^[0-9]/.test(token)) continue;
    names.add(token);
  }
  return [...names].sort();
}

/** The name a histogram's or summary's series belong to: `x_bucket`, `x_count`, `x_sum` → `x`. */
export function familyOf(name: string): string {
  return name.replace(/_(bucket|count|sum)$/, "");
}
