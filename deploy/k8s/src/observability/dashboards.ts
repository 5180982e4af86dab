/**
 * Grafana dashboards, one per deployable group, as data. `files.ts` writes each as JSON to
 * deploy/k8s/observability/grafana/ and ships it in a ConfigMap labelled `grafana_dashboard: "1"`
 * (the Grafana sidecar's convention). The queries use only the metric names the services export
 * and the `service` label every registry sets; the end-to-end test
 * (test/e2e/src/observability.test.ts) runs each against a real Prometheus scraping the local stack.
 */

export interface Panel {
  title: string;
  /** Grafana unit id (`s`, `reqps`, `percentunit`, `short`, `bytes`, …). */
  unit: string;
  targets: Array<{ expr: string; legend: string }>;
  description?: string;
}

export interface Dashboard {
  /** File name and uid suffix. */
  name: string;
  title: string;
  /** Values of the `service` label the dashboard is about. */
  services: string[];
  rows: Array<{ title: string; panels: Panel[] }>;
}

const rate = (selector: string) => `rate(${selector}[$__rate_interval])`;

/** Readiness, dependencies and process health: the first row of every dashboard. */
function processRow(service: string): { title: string; panels: Panel[] } {
  const sel = `service=~"${service}"`;
  return {
    title: "Processes",
    panels: [
      {
        title: "Ready instances",
        unit: "short",
        description: "service_ready per process (1 ready, 0 not); alert ServiceNotReady.",
        targets: [{ expr: `sum by (service) (service_ready{${sel}})`, legend: "{{service}}" }],
      },
      {
        title: "Readiness changes",
        unit: "short",
        description: "ready <-> not ready transitions; alert ReadinessFlapping.",
        targets: [
          {
            expr: `sum by (service, instance) (increase(service_readiness_changes_total{${sel}}[$__range]))`,
            legend: "{{service}} {{instance}}",
          },
        ],
      },
      {
        title: "Dependencies down",
        unit: "short",
        description: "Dependency checks of the readiness watcher that fail (service_dependency_up == 0).",
        targets: [
          {
            expr: `count by (service, dependency) (service_dependency_up{${sel}} == 0)`,
            legend: "{{service}} {{dependency}}",
          },
        ],
      },
      {
        title: "CPU",
        unit: "percentunit",
        targets: [
          { expr: `sum by (service, instance) (${rate(`process_cpu_seconds_total{${sel}}`)})`, legend: "{{instance}}" },
        ],
      },
      {
        title: "Resident memory",
        unit: "bytes",
        targets: [
          { expr: `max by (service, instance) (process_resident_memory_bytes{${sel}})`, legend: "{{instance}}" },
        ],
      },
      {
        title: "Event loop lag p99",
        unit: "s",
        targets: [
          { expr: `max by (service, instance) (nodejs_eventloop_lag_p99_seconds{${sel}})`, legend: "{{instance}}" },
        ],
      },
    ],
  };
}

/** gRPC server panels of a backend. */
function grpcRow(service: string): { title: string; panels: Panel[] } {
  const sel = `service=~"${service}"`;
  return {
    title: "gRPC",
    panels: [
      {
        title: "Calls per second by method",
        unit: "reqps",
        targets: [
          {
            expr: `sum by (grpc_service, grpc_method) (${rate(`grpc_server_handled_total{${sel}}`)})`,
            legend: "{{grpc_service}}/{{grpc_method}}",
          },
        ],
      },
      {
        title: "Errors per second by code",
        unit: "reqps",
        targets: [
          {
            expr: `sum by (grpc_method, grpc_code) (${rate(`grpc_server_handled_total{${sel},grpc_code!="OK"}`)})`,
            legend: "{{grpc_method}} {{grpc_code}}",
          },
        ],
      },
      {
        title: "Handling time p99 by method",
        unit: "s",
        targets: [
          {
            expr: `histogram_quantile(0.99, sum by (grpc_method, le) (${rate(`grpc_server_handling_seconds_bucket{${sel}}`)}))`,
            legend: "{{grpc_method}}",
          },
        ],
      },
    ],
  };
}

const gateway: Dashboard = {
  name: "gateway",
  title: "Platform / gateway",
  services: ["gateway"],
  rows: [
    {
      title: "HTTP",
      panels: [
        {
          title: "Requests per second by route",
          unit: "reqps",
          targets: [
            {
              expr: `sum by (route) (${rate('http_request_duration_seconds_count{service="gateway"}')})`,
              legend: "{{route}}",
            },
          ],
        },
        {
          title: "5xx share by route",
          unit: "percentunit",
          description: "Alert GatewayHigh5xxRate.",
          targets: [
            {
              expr: `sum by (route) (${rate('http_request_duration_seconds_count{service="gateway",status=~"5.."}')}) / sum by (route) (${rate('http_request_duration_seconds_count{service="gateway"}')})`,
              legend: "{{route}}",
            },
          ],
        },
        {
          title: "Latency p99 by route",
          unit: "s",
          targets: [
            {
              expr: `histogram_quantile(0.99, sum by (route, le) (${rate('http_request_duration_seconds_bucket{service="gateway"}')}))`,
              legend: "{{route}}",
            },
          ],
        },
        {
          title: "429 per second by tier",
          unit: "reqps",
          description: "Answers refused by the rate limiter; alert GatewayRateLimited.",
          targets: [{ expr: `sum by (tier) (${rate("gateway_rate_limited_total")})`, legend: "{{tier}}" }],
        },
        {
          title: "Answers' as_of age p50 / p99 by route",
          unit: "s",
          description: "Now minus the time of the block an answer stands at (gateway_answer_as_of_age_seconds).",
          targets: [
            {
              expr: `histogram_quantile(0.5, sum by (route, le) (${rate("gateway_answer_as_of_age_seconds_bucket")}))`,
              legend: "p50 {{route}}",
            },
            {
              expr: `histogram_quantile(0.99, sum by (route, le) (${rate("gateway_answer_as_of_age_seconds_bucket")}))`,
              legend: "p99 {{route}}",
            },
          ],
        },
        {
          title: "Conditional reads by result",
          unit: "reqps",
          targets: [{ expr: `sum by (result) (${rate("gateway_conditional_reads_total")})`, legend: "{{result}}" }],
        },
        {
          title: "Open event streams",
          unit: "short",
          targets: [{ expr: "sum by (route) (gateway_event_streams_open)", legend: "{{route}}" }],
        },
      ],
    },
    processRow("gateway"),
  ],
};

const dataQuery: Dashboard = {
  name: "data-query",
  title: "Platform / data-query",
  services: ["data-query"],
  rows: [
    grpcRow("data-query"),
    {
      title: "Answers",
      panels: [
        {
          title: "Answer cache by result",
          unit: "reqps",
          targets: [
            {
              expr: `sum by (service, result) (${rate("data_query_answer_cache_total")})`,
              legend: "{{service}} {{result}}",
            },
          ],
        },
      ],
    },
    processRow("data-query"),
  ],
};

const intentsGateway: Dashboard = {
  name: "intents-gateway",
  title: "Platform / intents-gateway",
  services: ["intents-gateway"],
  rows: [grpcRow("intents-gateway"), processRow("intents-gateway")],
};

const authTc: Dashboard = {
  name: "auth-tc",
  title: "Platform / auth and tc",
  services: ["auth", "tc"],
  rows: [grpcRow("auth|tc"), processRow("auth|tc")],
};

const projector: Dashboard = {
  name: "projector",
  title: "Platform / projector",
  services: ["projector"],
  rows: [
    {
      title: "Projections",
      panels: [
        {
          title: "Lag in seconds",
          unit: "s",
          description:
            "Age of the oldest record not yet applied (0 when caught up); alert ProjectionBehind, which also fires when the projection reports nothing while its sources publish.",
          targets: [{ expr: "max by (projection) (projection_consumer_lag_seconds)", legend: "{{projection}}" }],
        },
        {
          title: "Lag in records",
          unit: "short",
          description:
            "High watermark minus the next offset to apply, summed over partitions (each process reports those assigned to it); alert ProjectionBacklogRecords.",
          targets: [
            {
              expr: "sum by (projection, topic) (projection_consumer_lag_records)",
              legend: "{{projection}} {{topic}}",
            },
          ],
        },
        {
          title: "Records applied per second",
          unit: "ops",
          targets: [
            { expr: `sum by (projection) (${rate("projection_records_applied_total")})`, legend: "{{projection}}" },
          ],
        },
        {
          title: "Since last commit",
          unit: "s",
          targets: [
            {
              expr: "time() - max by (projection) (projection_last_commit_timestamp_seconds)",
              legend: "{{projection}}",
            },
          ],
        },
        {
          title: "Rebuilding",
          unit: "short",
          description: "1 while a projection replays from offset 0; alert ProjectionRebuilding.",
          targets: [{ expr: "max by (projection) (projection_rebuilding)", legend: "{{projection}}" }],
        },
      ],
    },
    {
      title: "Read models",
      panels: [
        {
          title: "as_of block",
          unit: "short",
          targets: [{ expr: "max by (read_model) (read_model_as_of_block)", legend: "{{read_model}}" }],
        },
        {
          title: "as_of age",
          unit: "s",
          description: "Now minus the chain time of the read model's block; alert ReadModelStale.",
          targets: [{ expr: "min by (read_model) (read_model_as_of_age_seconds)", legend: "{{read_model}}" }],
        },
      ],
    },
    processRow("projector"),
  ],
};

const chainIngestor: Dashboard = {
  name: "chain-ingestor",
  title: "Platform / chain-ingestor",
  services: ["chain-ingestor"],
  rows: [
    {
      title: "Sources",
      panels: [
        {
          title: "Blocks: head, finalized, published",
          unit: "short",
          targets: [
            { expr: "max by (source) (ingest_chain_head_block)", legend: "head {{source}}" },
            { expr: "max by (source) (ingest_finalized_block)", legend: "finalized {{source}}" },
            { expr: "max by (source) (ingest_published_block)", legend: "published {{source}}" },
          ],
        },
        {
          title: "Blocks behind the head",
          unit: "short",
          description: "Alert IngestorBehindHead (and IngestionStalled when nothing is published meanwhile).",
          targets: [{ expr: "max by (source) (ingest_blocks_behind_head)", legend: "{{source}}" }],
        },
        {
          title: "Blocks behind finality",
          unit: "short",
          description: "Alert IngestorBehindFinality.",
          targets: [{ expr: "max by (source) (ingest_blocks_behind_finalized)", legend: "{{source}}" }],
        },
        {
          title: "Since last publish",
          unit: "s",
          description: "Wall-clock time since the source's last Kafka commit; alert IngestionStalled.",
          targets: [{ expr: "time() - max by (source) (ingest_last_publish_timestamp_seconds)", legend: "{{source}}" }],
        },
      ],
    },
    processRow("chain-ingestor"),
  ],
};

export const DASHBOARDS: Dashboard[] = [gateway, dataQuery, intentsGateway, authTc, projector, chainIngestor];

/** A dashboard as Grafana's JSON model (schema 39), with a Prometheus data source variable. */
export function grafanaJson(dashboard: Dashboard): Record<string, unknown> {
  const datasource = { type: "prometheus", uid: "${datasource}" };
  const panels: Record<string, unknown>[] = [];
  let id = 1;
  let y = 0;
  for (const row of dashboard.rows) {
    panels.push({
      id: id++,
      type: "row",
      title: row.title,
      collapsed: false,
      gridPos: { h: 1, w: 24, x: 0, y },
      panels: [],
    });
    y += 1;
    row.panels.forEach((panel, index) => {
      panels.push({
        id: id++,
        type: "timeseries",
        title: panel.title,
        ...(panel.description ? { description: panel.description } : {}),
        datasource,
        gridPos: { h: 8, w: 8, x: (index % 3) * 8, y: y + Math.floor(index / 3) * 8 },
        fieldConfig: { defaults: { unit: panel.unit }, overrides: [] },
        options: { legend: { displayMode: "list", placement: "bottom", showLegend: true } },
        targets: panel.targets.map((target, targetIndex) => ({
          datasource,
          expr: target.expr,
          legendFormat: target.legend,
          refId: String.fromCharCode(65 + targetIndex),
        })),
      });
    });
    y += Math.ceil(row.panels.length / 3) * 8;
  }
  return {
    uid: `platform-${dashboard.name}`,
    title: dashboard.title,
    tags: ["platform"],
    timezone: "utc",
    schemaVersion: 39,
    version: 1,
    editable: false,
    refresh: "30s",
    time: { from: "now-3h", to: "now" },
    templating: {
      list: [{ name: "datasource", type: "datasource", query: "prometheus", label: "Prometheus", current: {} }],
    },
    annotations: { list: [] },
    panels,
  };
}

/** Every query of every dashboard, with where it comes from. */
export function dashboardQueries(): Array<{ dashboard: string; panel: string; expr: string }> {
  return DASHBOARDS.flatMap((dashboard) =>
    dashboard.rows.flatMap((row) =>
      row.panels.flatMap((panel) =>
        panel.targets.map((target) => ({ dashboard: dashboard.name, panel: panel.title, expr: target.expr })),
      ),
    ),
  );
}
