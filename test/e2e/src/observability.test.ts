import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { freePorts, type RunningStack, repoRoot, silentProgress, startStack, testRuntime } from "@platform/local-stack";
import { tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { metricNames } from "../../../deploy/k8s/src/observability/promql.js";
import { openEventStream } from "./support/eventStream.js";

/*
 * Issue 18's alerting acceptance on a whole local stack with its Prometheus (STACK_OBSERVABILITY):
 * the short-window variant of the platform's alert rules (deploy/k8s/observability/prometheus,
 * generated from the same source as the production rules: ProjectionBehind at 10 s of lag for
 * 10 s), Prometheus scraping every process each second and evaluating each second. The native
 * network builds a block every 2 s and the chain-ingestor publishes each one, so while the
 * projector is stopped its topics keep receiving records it does not apply.
 *
 * Then the dashboards: every metric a dashboard or rule reads must be among the names Prometheus
 * scraped from the services, and every dashboard query must run.
 */

const LAG_THRESHOLD_SECONDS = 10;
const FOR_SECONDS = 10;
/** Scrape (1 s), evaluation (1 s), the ingestor's next publish (a block every 2 s), loaded CI. */
const SLACK_SECONDS = 15;
/** Projections fed by the native source, which publishes a block every 2 s here. */
const NATIVE_PROJECTIONS = ["accounts", "market", "subnets"];

const state = tempDir("e2e-observability");
let stack: RunningStack;
let prometheus: string;

beforeAll(async () => {
  stack = await startStack({
    stateDir: state.path,
    ports: await freePorts(),
    detached: false,
    runtime: testRuntime(),
    progress: silentProgress,
    nativeNetwork: true,
    simulator: false,
    observability: { rules: "short", scrapeIntervalSeconds: 1, evaluationIntervalSeconds: 1 },
    // A small standard tier, so that a burst of the demo key's reads meets the rate limiter.
    serviceEnv: { gateway: { RATE_LIMIT_TIERS: "free=5/10,standard=2/4,unlimited=100000/100000" } },
  });
  prometheus = stack.descriptor.prometheusUrl!;
}, 300_000);

afterAll(async () => {
  await stack?.stop();
  state.remove();
}, 120_000);

interface Alert {
  labels: Record<string, string>;
  state: "pending" | "firing";
  activeAt: string;
}

async function api<T>(path: string): Promise<T> {
  const response = await fetch(`${prometheus}${path}`, { signal: AbortSignal.timeout(5_000) });
  const body = (await response.json()) as { status: string; data: T; error?: string };
  if (body.status !== "success") throw new Error(`${path}: ${body.error ?? response.status}`);
  return body.data;
}

async function alerts(name: string): Promise<Alert[]> {
  const { alerts: all } = await api<{ alerts: Alert[] }>("/api/v1/alerts");
  return all.filter((alert) => alert.labels.alertname === name);
}

async function query(expr: string): Promise<Array<{ metric: Record<string, string> }>> {
  const data = await api<{ result: Array<{ metric: Record<string, string> }> }>(
    `/api/v1/query?query=${encodeURIComponent(expr)}`,
  );
  return data.result;
}

async function scalar(expr: string): Promise<number> {
  const [row] = (await query(expr)) as Array<{ value?: [number, string] }>;
  if (row?.value === undefined) throw new Error(`no value for ${expr}`);
  return Number(row.value[1]);
}

describe("ProjectionBehind in a real Prometheus", () => {
  it("fires within its for: window once the projector is gone while records keep coming, and clears when it returns", async () => {
    // Settled: the projector reports every projection, the ingestor publishes, nothing is behind.
    await waitFor(
      async () => {
        const reporting = await query("count by (projection) (projection_consumer_lag_records)");
        const publishing = await query('ingest_last_publish_timestamp_seconds{source=~"(.+:)?native"}');
        return (
          NATIVE_PROJECTIONS.every((projection) => reporting.some((row) => row.metric.projection === projection)) &&
          publishing.length > 0 &&
          (await alerts("ProjectionBehind")).length === 0
        );
      },
      {
        what: "every projection reported, the native source publishing, ProjectionBehind inactive",
        timeoutMs: 120_000,
        intervalMs: 1_000,
      },
    );

    const publishedBefore = await scalar('max(ingest_published_block{source=~"(.+:)?native"})');
    const stoppedAt = Date.now();
    await stack.processes.get("projector")!.stop();
    let restartedAt: number;
    try {
      await expectProjectionBehindFires(stoppedAt, publishedBefore);
    } finally {
      // Also when an expectation failed: the next describe reads the projector's own series.
      restartedAt = Date.now();
      await stack.restart("projector");
    }

    await waitFor(async () => (await alerts("ProjectionBehind")).length === 0, {
      what: "ProjectionBehind cleared after the projector returned",
      timeoutMs: 90_000,
      intervalMs: 500,
    });
    console.log(
      `ProjectionBehind cleared ${((Date.now() - restartedAt) / 1_000).toFixed(1)} s after the restart began`,
    );
    // It cleared because the returned projector applied what piled up and caught up.
    await waitFor(
      async () =>
        (await scalar('sum(projection_records_applied_total{projection=~"accounts|market|subnets"})')) > 0 &&
        (await scalar('sum(projection_consumer_lag_records{projection=~"accounts|market|subnets"})')) === 0,
      { what: "the returned projector's records applied, its lag 0", timeoutMs: 30_000, intervalMs: 1_000 },
    );
  }, 240_000);
});

/** With the projector stopped at `stoppedAt`: pending first, firing once it has held for `for:`, never sooner. */
async function expectProjectionBehindFires(stoppedAt: number, publishedBefore: number): Promise<void> {
  let pendingSeen = false;
  const firing = await waitFor(
    async () => {
      const current = (await alerts("ProjectionBehind")).filter((alert) =>
        NATIVE_PROJECTIONS.includes(alert.labels.projection ?? ""),
      );
      if (current.some((alert) => alert.state === "pending")) pendingSeen = true;
      return current.find((alert) => alert.state === "firing");
    },
    {
      what: "ProjectionBehind firing for a projection of the native source",
      timeoutMs: (LAG_THRESHOLD_SECONDS + FOR_SECONDS + SLACK_SECONDS) * 1_000,
      intervalMs: 500,
    },
  );
  const firedAfterSeconds = (Date.now() - stoppedAt) / 1_000;
  const activeAt = Date.parse(firing.activeAt) / 1_000;
  // The projection's last commit as Prometheus last scraped it: the lag counts from there, and on
  // a loaded machine it may precede the stop by several seconds.
  const lastCommit = await scalar(
    `max(last_over_time(projection_last_commit_timestamp_seconds{projection="${firing.labels.projection}"}[10m]))`,
  );
  console.log(
    `ProjectionBehind{projection="${firing.labels.projection}"}: pending ${(activeAt - stoppedAt / 1_000).toFixed(1)} s and firing ${firedAfterSeconds.toFixed(1)} s after the projector stopped; its last commit ${(stoppedAt / 1_000 - lastCommit).toFixed(1)} s before the stop`,
  );
  expect(pendingSeen).toBe(true);
  // Pending only once what it misses is older than the threshold (less a second for the
  // timestamps' rounding); firing no sooner than `for:` later.
  expect(activeAt - lastCommit).toBeGreaterThanOrEqual(LAG_THRESHOLD_SECONDS - 1);
  expect(firedAfterSeconds - (activeAt - stoppedAt / 1_000)).toBeGreaterThanOrEqual(FOR_SECONDS - 1);
  expect(firing.labels.severity).toBe("critical");
  // Records kept coming while the projector was away: the native source published further blocks.
  expect(await scalar('max(ingest_published_block{source=~"(.+:)?native"})')).toBeGreaterThan(publishedBefore);
}

describe("dashboards and rules against what the services export", () => {
  const dashboardsDir = join(repoRoot, "deploy", "k8s", "observability", "grafana");
  const dashboards = readdirSync(dashboardsDir)
    .filter((file) => file.endsWith(".json"))
    .map((file) => JSON.parse(readFileSync(join(dashboardsDir, file), "utf8")) as { title: string; panels: any[] });
  const queries = dashboards.flatMap((dashboard) =>
    dashboard.panels.flatMap((panel) =>
      ((panel.targets ?? []) as Array<{ expr: string }>).map((target) => ({
        where: `${dashboard.title} / ${panel.title}`,
        expr: target.expr as string,
      })),
    ),
  );
  const ruleFile = readFileSync(
    join(repoRoot, "deploy", "k8s", "observability", "prometheus", "platform-alerts.rules.yaml"),
    "utf8",
  );
  // The rules' expressions, read from the YAML block scalars and one-line values.
  const ruleExprs = [...ruleFile.matchAll(/^\s+expr: (?:\|-\n((?:\s{10}.*\n)+)|(.+)\n)/gm)].map((match) =>
    (match[1] ?? match[2] ?? "").trim(),
  );

  it("every metric a dashboard or rule reads is one Prometheus scraped from the services", async () => {
    expect(dashboards).toHaveLength(6);
    expect(ruleExprs).toHaveLength(12);
    // Traffic that creates the series counters only get on their first event: Data API answers
    // (with as_of), gRPC calls, and 429s of the demo key's small tier.
    await dataApiTraffic();
    const used = new Set([...queries, ...ruleExprs.map((expr) => ({ expr }))].flatMap(({ expr }) => metricNames(expr)));
    const missing = await waitFor(
      async () => {
        const names = new Set(await api<string[]>("/api/v1/label/__name__/values"));
        const absent = [...used].filter((name) => !names.has(name));
        return absent.length === 0 ? [] : undefined;
      },
      {
        what: `every metric name of the dashboards and rules scraped (${[...used].length} names)`,
        timeoutMs: 60_000,
        intervalMs: 1_000,
      },
    ).catch(async () => {
      const names = new Set(await api<string[]>("/api/v1/label/__name__/values"));
      return [...used].filter((name) => !names.has(name));
    });
    expect(missing).toEqual([]);
  }, 120_000);

  it("every dashboard query runs, and those over series every stack has return some", async () => {
    const empty: string[] = [];
    for (const { where, expr } of queries) {
      const resolved = expr.replaceAll("$__rate_interval", "1m").replaceAll("$__range", "5m");
      const result = await query(resolved).catch((error: Error) => {
        throw new Error(`${where}: ${expr}: ${error.message}`);
      });
      if (result.length === 0 && expectsSeries(expr)) empty.push(`${where}: ${expr}`);
    }
    expect(empty).toEqual([]);
  }, 60_000);
});

/**
 * Whether a query should return series on any running stack: it neither compares (a filter that may
 * keep nothing) nor selects by a label other than the service (5xx, error codes, a tier).
 */
function expectsSeries(expr: string): boolean {
  const matchers = [...expr.matchAll(/\{([^}]*)\}/g)].flatMap((match) => match[1]!.split(",").filter(Boolean));
  const outsideMatchers = expr.replace(/\{[^}]*\}/g, "");
  if (/==|!=|[<>]/.test(outsideMatchers)) return false;
  return matchers.every((matcher) => matcher.trim().startsWith("service"));
}

/**
 * Traffic that makes the series counters and labelled gauges only get on their first event, with
 * the demo key: an event stream opened, a conditional read, an intents read (a gRPC call to
 * intents-gateway), then bursts of Data API reads that its tier's small rate limit cuts short (429).
 */
async function dataApiTraffic(): Promise<void> {
  const base = stack.descriptor.gatewayUrl;
  const key = stack.descriptor.demoApiKey!;
  const issued = await fetch(`${base}/auth`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "API_KEY", username: key.id, password: key.secret }),
  });
  expect(issued.status).toBe(200);
  const { access_token: token } = (await issued.json()) as { access_token: string };
  const authorization = `Bearer ${token}`;
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}${path}`, { headers: { authorization, ...headers } });
    await response.body?.cancel();
    return response;
  };

  const stream = await openEventStream(`${base}/data/v1/events?topics=heads`, token);
  expect(stream.status).toBe(200);
  const first = await get("/data/v1/subnets/latest");
  expect(first.status).toBe(200);
  const conditional = await get("/data/v1/subnets/latest", { "if-none-match": first.headers.get("etag") ?? '"none"' });
  expect([200, 304]).toContain(conditional.status);
  const order = await get(`/intents/v1/intents/0x${"ab".repeat(32)}`);
  expect(order.status).toBe(404);
  stream.close();
  // The bucket (2 a second, 4 at most) refills before the bursts.
  await new Promise((resolve) => setTimeout(resolve, 2_500));

  const statuses: number[] = [];
  for (let round = 0; round < 3; round++) {
    const answers = await Promise.all(
      ["/data/v1/subnets/latest", "/data/v1/network/stats/latest", "/data/v1/coin/price/latest"].flatMap((path) =>
        Array.from({ length: 3 }, () => get(path).then((response) => response.status)),
      ),
    );
    statuses.push(...answers);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
  }
  expect(statuses).toContain(200);
  expect(statuses).toContain(429);
}
