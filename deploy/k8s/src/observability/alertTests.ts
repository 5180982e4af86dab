import { type AlertRule, type AlertSettings, alertRuleGroups, duration } from "./alerts.js";

/**
 * promtool unit tests of the alert rules (`promtool test rules`), one scenario per alert and more
 * for the two ways a projection falls behind: input series where the condition starts at a known
 * evaluation, then three checks: not firing one evaluation before its `for:` has passed, firing
 * once it has, and cleared after the condition ends. The scenarios are written against the
 * settings (thresholds, windows, evaluation interval), so the same scenarios test the production
 * rules and the short-window variant.
 */

/** The step at which every scenario's condition starts. */
const ONSET = 10;

interface Scenario {
  name: string;
  alert: string;
  /** Series selector → one value per step ("_" none, "stale" a staleness marker). */
  series: Array<{ series: string; values: Array<number | "_" | "stale"> }>;
  /** Evaluation steps and the label sets (beside alertname and severity) expected firing then. */
  checks: Array<{ step: number; firing: Array<Record<string, string>> }>;
}

interface PromtoolAlertCheck {
  eval_time: string;
  alertname: string;
  exp_alerts: Array<{ exp_labels: Record<string, string>; exp_annotations: Record<string, string> }>;
}

export interface PromtoolTestFile {
  rule_files: string[];
  evaluation_interval: string;
  tests: Array<{
    name: string;
    interval: string;
    input_series: Array<{ series: string; values: string }>;
    alert_rule_test: PromtoolAlertCheck[];
  }>;
}

/** `n` values made by `value(step)` for steps `from` ≤ step < `to`. */
function run(from: number, to: number, value: (step: number) => number | "_" | "stale"): Array<number | "_" | "stale"> {
  return Array.from({ length: to - from }, (_, index) => value(from + index));
}

const constant = (value: number) => () => value;

/** A gauge at `low`, then `high` from ONSET for `highSteps` steps, then `low` again for `tail` steps. */
function pulse(low: number, high: number, highSteps: number, tail: number): Array<number> {
  return [
    ...run(0, ONSET, constant(low)),
    ...run(ONSET, ONSET + highSteps, constant(high)),
    ...run(0, tail, constant(low)),
  ] as number[];
}

/**
 * The usual shape: a gauge condition true from ONSET for `highSteps` steps; fires after `for:`,
 * not one step before, cleared two steps after the gauge falls back.
 */
function gaugeScenario(
  name: string,
  alert: string,
  forSteps: number,
  series: string,
  low: number,
  high: number,
  labels: Record<string, string>,
  extra: Scenario["series"] = [],
): Scenario {
  const highSteps = forSteps + 3;
  return {
    name,
    alert,
    series: [{ series, values: pulse(low, high, highSteps, 5) }, ...extra],
    checks: [
      { step: ONSET + forSteps - 1, firing: [] },
      { step: ONSET + forSteps, firing: [labels] },
      { step: ONSET + highSteps + 2, firing: [] },
    ],
  };
}

/** ProjectionBehind: live, gone, gone while its sources are quiet, idle. */
function projectionLagScenarios(settings: AlertSettings): Scenario[] {
  const s = settings;
  const i = s.evaluationIntervalSeconds;
  const steps = (seconds: number) => Math.ceil(seconds / i);
  const total = (extra: number) => ONSET + extra;
  const scenarios: Scenario[] = [];
  // A live projection that reports a growing lag.
  {
    const f = steps(s.projectionLagForSeconds);
    scenarios.push(
      gaugeScenario(
        "ProjectionBehind: a live projection reports its lag above the threshold",
        "ProjectionBehind",
        f,
        'projection_consumer_lag_seconds{projection="intents",service="projector",instance="p1"}',
        0,
        s.projectionLagSeconds + 50,
        { projection: "intents" },
        [
          {
            series: 'projection_consumer_lag_records{projection="intents",service="projector",instance="p1"}',
            values: run(0, total(f + 8), constant(3)),
          },
        ],
      ),
    );
  }

  // The projection's process is gone (its series go stale) while the native source keeps publishing.
  {
    const f = steps(s.projectionLagForSeconds);
    // Last commit at step ONSET-1; true once publish time - that > threshold.
    const onset = ONSET - 1 + Math.floor(s.projectionLagSeconds / i) + 1;
    const back = onset + f + 3;
    const end = back + 5;
    const alive = (step: number) => step < ONSET || step >= back;
    scenarios.push({
      name: "ProjectionBehind: the projection reports nothing while its source keeps publishing, until it returns",
      alert: "ProjectionBehind",
      series: [
        {
          series: 'projection_consumer_lag_records{projection="accounts",service="projector",instance="p1"}',
          values: run(0, end, (step) => (alive(step) ? 0 : step === ONSET ? "stale" : "_")),
        },
        {
          series: 'projection_last_commit_timestamp_seconds{projection="accounts",service="projector",instance="p1"}',
          values: run(0, end, (step) => (alive(step) ? step * i : step === ONSET ? "stale" : "_")),
        },
        {
          series: 'ingest_last_publish_timestamp_seconds{source="945:native",service="chain-ingestor",instance="i1"}',
          values: run(0, end, (step) => step * i),
        },
        {
          // A source that does not feed accounts: its publishing alone must not make accounts "behind".
          series:
            'ingest_last_publish_timestamp_seconds{source="31337:intents",service="chain-ingestor",instance="i1"}',
          values: run(0, end, (step) => step * i),
        },
      ],
      checks: [
        { step: onset + f - 1, firing: [] },
        { step: onset + f, firing: [{ projection: "accounts" }] },
        { step: back, firing: [] },
      ],
    });
  }

  // A gone projection whose sources publish nothing is not reported as behind (ProjectionMetricsAbsent covers it).
  {
    const f = steps(s.projectionLagForSeconds);
    const onset = ONSET - 1 + Math.floor(s.projectionLagSeconds / i) + 1;
    const end = onset + f + 5;
    scenarios.push({
      name: "ProjectionBehind: a gone projection whose sources published nothing since its last commit",
      alert: "ProjectionBehind",
      series: [
        {
          series: 'projection_consumer_lag_records{projection="intents",service="projector",instance="p1"}',
          values: run(0, end, (step) => (step < ONSET ? 0 : step === ONSET ? "stale" : "_")),
        },
        {
          series: 'projection_last_commit_timestamp_seconds{projection="intents",service="projector",instance="p1"}',
          values: run(0, end, (step) => (step < ONSET ? step * i : step === ONSET ? "stale" : "_")),
        },
        {
          series:
            'ingest_last_publish_timestamp_seconds{source="31337:intents",service="chain-ingestor",instance="i1"}',
          values: run(0, end, (step) => Math.min(step, ONSET - 1) * i),
        },
      ],
      checks: [{ step: onset + f + 2, firing: [] }],
    });
  }

  // A live projection that is caught up commits nothing while its source publishes only records for others.
  {
    const f = steps(s.projectionLagForSeconds);
    const end = ONSET + Math.floor(s.projectionLagSeconds / i) + f + 5;
    scenarios.push({
      name: "ProjectionBehind: a live, caught-up projection is not behind however old its last commit",
      alert: "ProjectionBehind",
      series: [
        {
          series: 'projection_consumer_lag_seconds{projection="subnets",service="projector",instance="p1"}',
          values: run(0, end, constant(0)),
        },
        {
          series: 'projection_consumer_lag_records{projection="subnets",service="projector",instance="p1"}',
          values: run(0, end, constant(0)),
        },
        {
          series: 'projection_last_commit_timestamp_seconds{projection="subnets",service="projector",instance="p1"}',
          values: run(0, end, constant(0)),
        },
        {
          series: 'ingest_last_publish_timestamp_seconds{source="945:native",service="chain-ingestor",instance="i1"}',
          values: run(0, end, (step) => step * i),
        },
      ],
      checks: [{ step: end - 1, firing: [] }],
    });
  }
  return scenarios;
}

/** ProjectionBacklogRecords, ProjectionRebuilding, ProjectionMetricsAbsent. */
function projectionStateScenarios(settings: AlertSettings): Scenario[] {
  const s = settings;
  const i = s.evaluationIntervalSeconds;
  const steps = (seconds: number) => Math.ceil(seconds / i);
  const scenarios: Scenario[] = [];
  scenarios.push(
    // Two processes, each with its share of the partitions: only their sum is above the threshold.
    gaugeScenario(
      "ProjectionBacklogRecords: records to apply above the threshold, summed over topics and processes",
      "ProjectionBacklogRecords",
      steps(s.projectionBacklogForSeconds),
      'projection_consumer_lag_records{projection="market",topic="chain.network.v1",service="projector",instance="p1"}',
      0,
      Math.ceil(s.projectionLagRecords / 2) + 1,
      { projection: "market" },
      [
        {
          series:
            'projection_consumer_lag_records{projection="market",topic="chain.network.v1",service="projector",instance="p2"}',
          values: pulse(0, Math.ceil(s.projectionLagRecords / 2) + 1, steps(s.projectionBacklogForSeconds) + 3, 5),
        },
      ],
    ),
    gaugeScenario(
      "ProjectionRebuilding: a replay that lasts",
      "ProjectionRebuilding",
      steps(s.rebuildForSeconds),
      'projection_rebuilding{projection="subnets",service="projector",instance="p1"}',
      0,
      1,
      { projection: "subnets" },
    ),
  );

  // One projection's metrics vanish (stale) while the others keep reporting, then come back.
  {
    const f = steps(s.projectionAbsentForSeconds);
    const back = ONSET + f + 3;
    const end = back + 5;
    scenarios.push({
      name: "ProjectionMetricsAbsent: no process reports the subnets projection",
      alert: "ProjectionMetricsAbsent",
      series: [
        ...["intents", "accounts", "market"].map((projection) => ({
          series: `projection_consumer_lag_records{projection="${projection}",service="projector",instance="p1"}`,
          values: run(0, end, constant(0)),
        })),
        {
          series: 'projection_consumer_lag_records{projection="subnets",service="projector",instance="p2"}',
          values: run(0, end, (step) => (step < ONSET || step >= back ? 0 : step === ONSET ? "stale" : "_")),
        },
      ],
      checks: [
        { step: ONSET + f - 1, firing: [] },
        { step: ONSET + f, firing: [{ projection: "subnets" }] },
        { step: back, firing: [] },
      ],
    });
  }
  return scenarios;
}

/** The ingestor alerts, ReadModelStale, ServiceNotReady. */
function ingestAndServiceScenarios(settings: AlertSettings): Scenario[] {
  const s = settings;
  const i = s.evaluationIntervalSeconds;
  const steps = (seconds: number) => Math.ceil(seconds / i);
  const scenarios: Scenario[] = [];
  // Publishing stops at ONSET while the chain keeps growing; it resumes later.
  {
    const f = steps(s.ingestStalledForSeconds);
    const onset = Math.floor(s.ingestStalledSeconds / i) + ONSET + 1;
    const back = onset + f + 3;
    const end = back + 5;
    const stalled = (step: number) => step >= ONSET && step < back;
    scenarios.push({
      name: "IngestionStalled: nothing published while the head moves on",
      alert: "IngestionStalled",
      series: [
        {
          series: 'ingest_last_publish_timestamp_seconds{source="945:native",service="chain-ingestor",instance="i1"}',
          values: run(0, end, (step) => (stalled(step) ? ONSET * i : step * i)),
        },
        {
          series: 'ingest_blocks_behind_head{source="945:native",service="chain-ingestor",instance="i1"}',
          values: run(0, end, (step) => (stalled(step) ? step - ONSET + 1 : 0)),
        },
        {
          // A quiet chain: nothing published for as long, but nothing to publish either.
          series: 'ingest_last_publish_timestamp_seconds{source="31337:price",service="chain-ingestor",instance="i1"}',
          values: run(0, end, constant(0)),
        },
        {
          series: 'ingest_blocks_behind_head{source="31337:price",service="chain-ingestor",instance="i1"}',
          values: run(0, end, constant(0)),
        },
      ],
      checks: [
        { step: onset + f - 1, firing: [] },
        { step: onset + f, firing: [{ source: "945:native" }] },
        { step: back, firing: [] },
      ],
    });
  }

  scenarios.push(
    gaugeScenario(
      "IngestorBehindHead: many blocks not yet published",
      "IngestorBehindHead",
      steps(s.ingestBehindHeadForSeconds),
      'ingest_blocks_behind_head{source="31337:intents",service="chain-ingestor",instance="i1"}',
      1,
      s.ingestBehindHeadBlocks + 1,
      { source: "31337:intents" },
    ),
    gaugeScenario(
      "IngestorBehindFinality: finalized blocks not yet published",
      "IngestorBehindFinality",
      steps(s.ingestBehindFinalizedForSeconds),
      'ingest_blocks_behind_finalized{source="945:native",service="chain-ingestor",instance="i1"}',
      0,
      s.ingestBehindFinalizedBlocks + 1,
      { source: "945:native" },
    ),
    gaugeScenario(
      "ReadModelStale: the read model's block is old",
      "ReadModelStale",
      steps(s.readModelAgeForSeconds),
      'read_model_as_of_age_seconds{read_model="accounts",service="projector",instance="p1"}',
      5,
      s.readModelAgeSeconds + 60,
      { read_model: "accounts" },
    ),
    gaugeScenario(
      "ServiceNotReady: a process stays not ready",
      "ServiceNotReady",
      steps(s.notReadyForSeconds),
      'service_ready{service="tc",instance="t1"}',
      1,
      0,
      { service: "tc", instance: "t1" },
    ),
  );

  return scenarios;
}

/** Alerts over counters: ReadinessFlapping, GatewayHigh5xxRate, GatewayRateLimited. */
function rateScenarios(settings: AlertSettings): Scenario[] {
  const s = settings;
  const i = s.evaluationIntervalSeconds;
  const steps = (seconds: number) => Math.ceil(seconds / i);
  const windowSteps = steps(s.rateWindowSeconds);
  const scenarios: Scenario[] = [];
  // Readiness changes once per step from ONSET, more than the allowed number, then holds.
  {
    const changes = s.readinessChanges + 3;
    const windowStepsReadiness = steps(s.readinessWindowSeconds);
    const settled = ONSET + changes;
    const end = settled + windowStepsReadiness + 4;
    scenarios.push({
      name: "ReadinessFlapping: ready <-> not ready many times, then stable",
      alert: "ReadinessFlapping",
      series: [
        {
          series: 'service_readiness_changes_total{service="data-query",instance="q1"}',
          values: run(0, end, (step) => Math.max(0, Math.min(step, settled) - ONSET + 1)),
        },
      ],
      checks: [
        { step: ONSET - 1, firing: [] },
        { step: settled, firing: [{ service: "data-query", instance: "q1" }] },
        { step: settled + windowStepsReadiness + 2, firing: [] },
      ],
    });
  }

  // 5xx: a burst large enough that the first step's increase already exceeds the ratio, from ONSET+1.
  {
    const f = steps(s.errorForSeconds);
    const burst = 5 * s.rateWindowSeconds;
    const stop = ONSET + 1 + f + 3;
    const end = stop + windowSteps + 4;
    scenarios.push({
      name: "GatewayHigh5xxRate: one route fails, another does not",
      alert: "GatewayHigh5xxRate",
      series: [
        {
          series:
            'http_request_duration_seconds_count{route="/data/v1/coin/price/latest",method="GET",status="200",service="gateway",instance="g1"}',
          values: run(0, end, (step) => step * i * 10),
        },
        {
          series:
            'http_request_duration_seconds_count{route="/data/v1/coin/price/latest",method="GET",status="503",service="gateway",instance="g1"}',
          values: run(0, end, (step) => Math.max(0, Math.min(step, stop) - ONSET) * burst),
        },
        {
          series:
            'http_request_duration_seconds_count{route="/data/v1/subnets/latest",method="GET",status="200",service="gateway",instance="g1"}',
          values: run(0, end, (step) => step * i * 10),
        },
      ],
      checks: [
        { step: ONSET + f, firing: [] },
        { step: ONSET + 1 + f, firing: [{ route: "/data/v1/coin/price/latest" }] },
        { step: stop + windowSteps + 2, firing: [] },
      ],
    });
  }

  // 429s per tier: free and an unlisted tier above their limits, standard below its own.
  {
    const f = steps(s.rateLimitedForSeconds);
    const limits = s.rateLimitedPerSecond;
    const stop = ONSET + 1 + f + 3;
    const end = stop + windowSteps + 4;
    const counter = (perStep: number) => (step: number) => Math.max(0, Math.min(step, stop) - ONSET) * perStep;
    const standardLimit = limits.standard ?? limits.default;
    scenarios.push({
      name: "GatewayRateLimited: 429s per tier against each tier's limit",
      alert: "GatewayRateLimited",
      series: [
        {
          series: 'gateway_rate_limited_total{tier="free",service="gateway",instance="g1"}',
          values: run(0, end, counter(3 * (limits.free ?? limits.default) * s.rateWindowSeconds)),
        },
        {
          series: 'gateway_rate_limited_total{tier="partner",service="gateway",instance="g1"}',
          values: run(0, end, counter(3 * limits.default * s.rateWindowSeconds)),
        },
        {
          // Well under its limit even once the window is full of it.
          series: 'gateway_rate_limited_total{tier="standard",service="gateway",instance="g1"}',
          values: run(0, end, counter((standardLimit * i) / 4)),
        },
      ],
      checks: [
        { step: ONSET + f, firing: [] },
        { step: ONSET + 1 + f, firing: [{ tier: "free" }, { tier: "partner" }] },
        { step: stop + windowSteps + 2, firing: [] },
      ],
    });
  }
  return scenarios;
}

/** Every scenario for these settings. */
export function alertScenarios(settings: AlertSettings): Scenario[] {
  return [
    ...projectionLagScenarios(settings),
    ...projectionStateScenarios(settings),
    ...ingestAndServiceScenarios(settings),
    ...rateScenarios(settings),
  ];
}

/** `{{ $labels.name }}` as Prometheus renders it (the only template the annotations use). */
function renderTemplate(text: string, labels: Record<string, string>): string {
  return text.replace(/\{\{ \$labels\.([a-z_]+) \}\}/g, (_, name: string) => labels[name] ?? "");
}

/** The promtool test file for a rule file rendered from `settings`. */
export function promtoolTests(settings: AlertSettings, ruleFile: string): PromtoolTestFile {
  const rules = new Map<string, AlertRule>(
    alertRuleGroups(settings).flatMap((group) => group.rules.map((rule) => [rule.alert, rule] as const)),
  );
  const i = settings.evaluationIntervalSeconds;
  return {
    rule_files: [ruleFile],
    evaluation_interval: duration(i),
    tests: alertScenarios(settings).map((scenario) => {
      const rule = rules.get(scenario.alert);
      if (!rule) throw new Error(`scenario "${scenario.name}": no alert ${scenario.alert}`);
      return {
        name: scenario.name,
        interval: duration(i),
        input_series: scenario.series.map(({ series, values }) => ({ series, values: values.join(" ") })),
        alert_rule_test: scenario.checks.map((check) => ({
          eval_time: duration(check.step * i),
          alertname: scenario.alert,
          exp_alerts: check.firing.map((labels) => ({
            exp_labels: { ...labels, severity: rule.labels.severity },
            exp_annotations: {
              summary: renderTemplate(rule.annotations.summary, labels),
              description: renderTemplate(rule.annotations.description, labels),
              runbook_url: rule.annotations.runbook_url,
            },
          })),
        })),
      };
    }),
  };
}
