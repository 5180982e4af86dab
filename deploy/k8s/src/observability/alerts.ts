import { type INGEST_SOURCES, PROJECTIONS } from "../deployables.js";

/**
 * The platform's Prometheus alert rules, as data. `files.ts` renders them twice from this one
 * source: with the production settings (deploy/k8s/observability/prometheus/platform-alerts.rules.yaml,
 * and the PrometheusRule in deploy/k8s/base/observability.yaml) and with short windows for the local
 * stack and its end-to-end test (platform-alerts.short.rules.yaml). Only thresholds and windows
 * differ between the two; the expressions are the same.
 *
 * The expressions use only the metric names of the services' registries and the `service` label
 * every registry sets, never `job`, `pod` or `instance` names, which depend on the scrape config.
 */

/**
 * Where the runbook lives, as a path in this repository; each alert links to its section (the heading
 * is the alert's name). A path, not an address: where the repository is hosted is the operator's
 * business, and an overlay that wants clickable links patches the annotation with its own base.
 */
export const RUNBOOK_BASE_URL = "deploy/k8s/README.md";

export type Severity = "critical" | "warning" | "info";

export interface AlertSettings {
  /** How often the rule group is evaluated (and the step of the generated promtool tests). */
  evaluationIntervalSeconds: number;
  projectionLagSeconds: number;
  projectionLagForSeconds: number;
  projectionLagRecords: number;
  projectionBacklogForSeconds: number;
  /** How far back a projection that stopped reporting is remembered (its last commit). */
  projectionGoneLookbackSeconds: number;
  projectionAbsentForSeconds: number;
  rebuildForSeconds: number;
  /** Nothing published for this long while the chain has blocks the ingestor has not published. */
  ingestStalledSeconds: number;
  ingestStalledForSeconds: number;
  ingestBehindHeadBlocks: number;
  ingestBehindHeadForSeconds: number;
  ingestBehindFinalizedBlocks: number;
  ingestBehindFinalizedForSeconds: number;
  readModelAgeSeconds: number;
  readModelAgeForSeconds: number;
  readinessChanges: number;
  readinessWindowSeconds: number;
  notReadyForSeconds: number;
  /** The window of every rate(). */
  rateWindowSeconds: number;
  /** Share of a route's answers that are 5xx. */
  errorRatio: number;
  /** Below this many 5xx a second on a route, no alert (a single failure on a quiet route is noise). */
  errorMinPerSecond: number;
  errorForSeconds: number;
  /** 429s a second per tier above which someone should look; tiers not listed use `default`. */
  rateLimitedPerSecond: Record<string, number> & { default: number };
  rateLimitedForSeconds: number;
}

export const PRODUCTION_ALERT_SETTINGS: AlertSettings = {
  evaluationIntervalSeconds: 30,
  projectionLagSeconds: 120,
  projectionLagForSeconds: 300,
  projectionLagRecords: 10_000,
  projectionBacklogForSeconds: 600,
  projectionGoneLookbackSeconds: 3_600,
  projectionAbsentForSeconds: 600,
  rebuildForSeconds: 1_800,
  ingestStalledSeconds: 300,
  ingestStalledForSeconds: 300,
  ingestBehindHeadBlocks: 100,
  ingestBehindHeadForSeconds: 900,
  ingestBehindFinalizedBlocks: 20,
  ingestBehindFinalizedForSeconds: 900,
  readModelAgeSeconds: 900,
  readModelAgeForSeconds: 600,
  readinessChanges: 4,
  readinessWindowSeconds: 900,
  notReadyForSeconds: 300,
  rateWindowSeconds: 300,
  errorRatio: 0.05,
  errorMinPerSecond: 0.1,
  errorForSeconds: 300,
  rateLimitedPerSecond: { free: 5, standard: 2, default: 1 },
  rateLimitedForSeconds: 900,
};

/**
 * The local stack's and the end-to-end test's variant: the same rules with windows of seconds, for
 * Prometheus scraping and evaluating every second (`STACK_OBSERVABILITY_RULES=short`).
 */
export const SHORT_ALERT_SETTINGS: AlertSettings = {
  ...PRODUCTION_ALERT_SETTINGS,
  evaluationIntervalSeconds: 1,
  projectionLagSeconds: 10,
  projectionLagForSeconds: 10,
  projectionBacklogForSeconds: 20,
  projectionGoneLookbackSeconds: 600,
  projectionAbsentForSeconds: 20,
  rebuildForSeconds: 60,
  ingestStalledSeconds: 20,
  ingestStalledForSeconds: 10,
  ingestBehindHeadForSeconds: 30,
  ingestBehindFinalizedForSeconds: 30,
  readModelAgeForSeconds: 20,
  readinessWindowSeconds: 60,
  notReadyForSeconds: 15,
  rateWindowSeconds: 30,
  errorForSeconds: 15,
  rateLimitedForSeconds: 30,
};

/**
 * Which ingestor sources feed each projection's topics (libs/bus topics; the projector's projections).
 * The ingestor labels a source `<chainId>:<kind>` (its checkpoint id: one intents source per EVM
 * chain), so the rules match the kind at the end.
 */
export const PROJECTION_SOURCES: Record<(typeof PROJECTIONS)[number], Array<(typeof INGEST_SOURCES)[number]>> = {
  intents: ["intents"],
  accounts: ["native"],
  market: ["native", "price"],
  subnets: ["native"],
};

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: Severity };
  annotations: { summary: string; description: string; runbook_url: string };
}

export interface RuleGroup {
  name: string;
  interval: string;
  rules: AlertRule[];
}

/** Seconds as a Prometheus duration: `90` → `1m30s`. */
export function duration(seconds: number): string {
  if (seconds === 0) return "0s";
  const parts: string[] = [];
  let rest = seconds;
  for (const [unit, size] of [
    ["h", 3_600],
    ["m", 60],
    ["s", 1],
  ] as const) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(`${count}${unit}`);
    rest -= count * size;
  }
  return parts.join("");
}

/** The runbook section of an alert (GitHub-style anchor of its `### Name` heading). */
export function runbookUrl(alert: string): string {
  return `${RUNBOOK_BASE_URL}#${alert.toLowerCase()}`;
}

function rule(
  alert: string,
  severity: Severity,
  expr: string,
  forSeconds: number,
  summary: string,
  description: string,
): AlertRule {
  return {
    alert,
    expr,
    ...(forSeconds > 0 ? { for: duration(forSeconds) } : {}),
    labels: { severity },
    annotations: { summary, description, runbook_url: runbookUrl(alert) },
  };
}

const alternatives = (values: readonly string[]) => values.join("|");
/** A `source` matcher for these kinds: `(.+:)?(native|price)` (the chain id prefix optional). */
const sourceKinds = (kinds: readonly string[]) => `(.+:)?(${alternatives(kinds)})`;

/**
 * "The projection is behind", whether its process is slow or gone. A live projection reports its
 * lag itself. A projection whose metrics have vanished (every replica stopped, crashed or hung: a
 * failed scrape marks its series stale at once) reports nothing, so its lag is estimated from
 * outside: how long the ingestor sources that feed its topics kept publishing after its last
 * commit to Redis.
 */
function projectionBehindExpr(settings: AlertSettings): string {
  const live = `max by (projection) (projection_consumer_lag_seconds) > ${settings.projectionLagSeconds}`;
  const lookback = duration(settings.projectionGoneLookbackSeconds);
  const gone = PROJECTIONS.map(
    (projection) => `label_replace(
    (
      max(ingest_last_publish_timestamp_seconds{source=~"${sourceKinds(PROJECTION_SOURCES[projection])}"})
      - max(last_over_time(projection_last_commit_timestamp_seconds{projection="${projection}"}[${lookback}]))
      > ${settings.projectionLagSeconds}
    )
    unless on () count(projection_consumer_lag_records{projection="${projection}"}),
    "projection", "${projection}", "", ""
  )`,
  );
  return `${live}
or
  ${gone.join("\nor\n  ")}`;
}

function rateLimitedExpr(settings: AlertSettings): string {
  const window = duration(settings.rateWindowSeconds);
  const named = Object.entries(settings.rateLimitedPerSecond).filter(([tier]) => tier !== "default");
  const perTier = named.map(
    ([tier, limit]) => `sum by (tier) (rate(gateway_rate_limited_total{tier="${tier}"}[${window}])) > ${limit}`,
  );
  const others = `sum by (tier) (rate(gateway_rate_limited_total{tier!~"${alternatives(named.map(([tier]) => tier))}"}[${window}])) > ${settings.rateLimitedPerSecond.default}`;
  return [...perTier, others].join("\nor\n");
}

/** Every alert of the platform, in one group. */
export function alertRuleGroups(settings: AlertSettings): RuleGroup[] {
  const s = settings;
  const window = duration(s.rateWindowSeconds);
  const fiveXx = `sum by (route) (rate(http_request_duration_seconds_count{status=~"5.."}[${window}]))`;
  const all = `sum by (route) (rate(http_request_duration_seconds_count[${window}]))`;
  const rules: AlertRule[] = [
    rule(
      "ProjectionBehind",
      "critical",
      projectionBehindExpr(s),
      s.projectionLagForSeconds,
      "Projection {{ $labels.projection }} is more than " + `${s.projectionLagSeconds} s behind its topics`,
      "Reads served from the {{ $labels.projection }} read models are stale: the oldest record it has not applied is " +
        `more than ${s.projectionLagSeconds} s old, or its processes report nothing while the ingestor kept ` +
        "publishing to its topics after its last commit.",
    ),
    rule(
      "ProjectionBacklogRecords",
      "warning",
      `sum by (projection) (projection_consumer_lag_records) > ${s.projectionLagRecords}`,
      s.projectionBacklogForSeconds,
      `Projection {{ $labels.projection }} has more than ${s.projectionLagRecords} records to apply`,
      "The {{ $labels.projection }} projection's consumer group is that many records behind the high watermarks of its topics (summed over topics and over the processes, each of which reports the partitions assigned to it).",
    ),
    rule(
      "ProjectionRebuilding",
      "warning",
      "max by (projection) (projection_rebuilding) == 1",
      s.rebuildForSeconds,
      "Projection {{ $labels.projection }} has been rebuilding for a long time",
      "The {{ $labels.projection }} read models were lost and are being replayed from offset 0; the routes over them answer 503 REBUILDING until the replay reaches where they stood.",
    ),
    rule(
      "ProjectionMetricsAbsent",
      "critical",
      PROJECTIONS.map((projection) => `absent(projection_consumer_lag_records{projection="${projection}"})`).join(
        "\nor\n",
      ),
      s.projectionAbsentForSeconds,
      "No process reports projection {{ $labels.projection }}",
      "No scraped process exports the {{ $labels.projection }} projection's metrics: its projector Deployment is gone, crash-looping or not scraped, so nothing updates those read models.",
    ),
    rule(
      "IngestionStalled",
      "critical",
      `(time() - max by (source) (ingest_last_publish_timestamp_seconds) > ${s.ingestStalledSeconds})
and on (source)
(max by (source) (ingest_blocks_behind_head) > 0)`,
      s.ingestStalledForSeconds,
      "Ingestor source {{ $labels.source }} has published nothing for " + `${s.ingestStalledSeconds} s`,
      "The chain has blocks the {{ $labels.source }} source has not published, yet nothing reached Kafka for a while: every read model fed by it stands still.",
    ),
    rule(
      "IngestorBehindHead",
      "warning",
      `max by (source) (ingest_blocks_behind_head) > ${s.ingestBehindHeadBlocks}`,
      s.ingestBehindHeadForSeconds,
      `Ingestor source {{ $labels.source }} is more than ${s.ingestBehindHeadBlocks} blocks behind the chain head`,
      "The {{ $labels.source }} source publishes slower than the chain grows, or is catching up after a pause.",
    ),
    rule(
      "IngestorBehindFinality",
      "warning",
      `max by (source) (ingest_blocks_behind_finalized) > ${s.ingestBehindFinalizedBlocks}`,
      s.ingestBehindFinalizedForSeconds,
      `Ingestor source {{ $labels.source }} is more than ${s.ingestBehindFinalizedBlocks} blocks behind finality`,
      "Blocks the chain has already finalized are not yet published by the {{ $labels.source }} source.",
    ),
    rule(
      "ReadModelStale",
      "warning",
      `min by (read_model) (read_model_as_of_age_seconds) > ${s.readModelAgeSeconds}`,
      s.readModelAgeForSeconds,
      `Read model {{ $labels.read_model }} is more than ${s.readModelAgeSeconds} s old`,
      "The block the {{ $labels.read_model }} read model stands at was made that long ago (chain time): answers carry an old as_of.",
    ),
    rule(
      "ReadinessFlapping",
      "warning",
      `increase(service_readiness_changes_total[${duration(s.readinessWindowSeconds)}]) > ${s.readinessChanges}`,
      0,
      "{{ $labels.service }} ({{ $labels.instance }}) keeps changing readiness",
      `It went ready <-> not ready more than ${s.readinessChanges} times in ${duration(s.readinessWindowSeconds)}: a dependency is intermittently failing its checks.`,
    ),
    rule(
      "ServiceNotReady",
      "warning",
      "service_ready == 0",
      s.notReadyForSeconds,
      "{{ $labels.service }} ({{ $labels.instance }}) is not ready",
      "The process runs but a dependency check fails; it is out of its Service's endpoints (backends) or the load balancer (gateway).",
    ),
    rule(
      "GatewayHigh5xxRate",
      "critical",
      `(${fiveXx} / ${all} > ${s.errorRatio})
and
(${fiveXx} > ${s.errorMinPerSecond})`,
      s.errorForSeconds,
      "Gateway route {{ $labels.route }} answers more than " + `${s.errorRatio * 100}% 5xx`,
      "Clients of {{ $labels.route }} get server errors (502/503/504 from a backend that is down, rebuilding or too slow, or 500).",
    ),
    rule(
      "GatewayRateLimited",
      "info",
      rateLimitedExpr(s),
      s.rateLimitedForSeconds,
      "Many 429 answers for tier {{ $labels.tier }}",
      "Keys of tier {{ $labels.tier }} are being rate limited at a sustained rate: a client misbehaves, or the tier's limits no longer fit its users.",
    ),
  ];
  return [{ name: "platform", interval: duration(s.evaluationIntervalSeconds), rules }];
}

/** Every alert name, in rule order. */
export function alertNames(): string[] {
  return alertRuleGroups(PRODUCTION_ALERT_SETTINGS).flatMap((group) => group.rules.map((rule) => rule.alert));
}
