import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { authConfigSchema } from "@platform/auth/src/config.js";
import { chainConfigSchema } from "@platform/chain";
import { chainIngestorConfigSchema, INGEST_SOURCES as INGESTOR_SOURCES } from "@platform/chain-ingestor/src/config.js";
import { dataQueryConfigSchema } from "@platform/data-query/src/config.js";
import { gatewayConfigSchema } from "@platform/gateway/src/config.js";
import { intentsGatewayConfigSchema } from "@platform/intents-gateway/src/config.js";
import { projectorConfigSchema } from "@platform/projector/src/config.js";
import { tcConfigSchema } from "@platform/tc/src/config.js";
import { beforeAll, describe, expect, test } from "vitest";
import type { ServiceName } from "./deployable.js";
import { DEPLOYABLES, INGEST_SOURCES } from "./deployables.js";
import { renderOverlay } from "./kustomize.js";
import type { Manifest } from "./manifests.js";
import { BASE_DIR, OVERLAYS, type OverlayName } from "./paths.js";
import { POSTGRES_VARIABLES } from "./postgresRoles.js";
import { mountedConfigFile, resolveEnv } from "./rules/containerConfig.js";

/**
 * The pods' configuration read by the services' own config schemas: every Deployment's resolved
 * environment (literals plus ConfigMap keys) must load, and the mounted chains.json must pass the
 * chain config schema, so a manifest can't start a process that exits on bad configuration.
 */

interface ConfigSchema {
  shape: Record<string, unknown>;
  safeParse(
    env: Record<string, string>,
  ): { success: true } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
}

const SCHEMAS: Record<ServiceName, ConfigSchema> = {
  gateway: gatewayConfigSchema,
  auth: authConfigSchema,
  tc: tcConfigSchema,
  "intents-gateway": intentsGatewayConfigSchema,
  "data-query": dataQueryConfigSchema,
  projector: projectorConfigSchema,
  "chain-ingestor": chainIngestorConfigSchema,
};

/**
 * Variables the manifests set that no config schema reads: auth's secret files (not yet; see
 * README), and NODE_OPTIONS, which node reads itself.
 */
const NOT_YET_READ = new Set([
  ...DEPLOYABLES.flatMap((deployable) => (deployable.secrets ?? []).map((secret) => secret.env.name)),
  "NODE_OPTIONS",
  // The history store's connection (issue 41; deploy/k8s/src/postgresRoles.ts): the projector's and
  // data-query's config schemas read them once the PostgreSQL code lands. Until then only these
  // three are allowed through, and only on the deployables that use Postgres.
  ...POSTGRES_VARIABLES.filter((name) => !(name in projectorConfigSchema.shape && name in dataQueryConfigSchema.shape)),
]);

const rendered = new Map<OverlayName, Manifest[]>();
beforeAll(async () => {
  await Promise.all(OVERLAYS.map(async (overlay) => rendered.set(overlay, await renderOverlay(overlay))));
});

interface Container {
  name: string;
  image: string;
  env?: Array<{ name: string }>;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}

/** Every way the rendered pods' configuration would fail their services' config schemas. */
function configFailures(manifests: Manifest[]): string[] {
  const failures: string[] = [];
  for (const deployment of manifests.filter((manifest) => manifest.kind === "Deployment") as Array<
    Manifest & { spec: any }
  >) {
    const namespace = deployment.metadata.namespace as string;
    for (const container of deployment.spec.template.spec.containers as Container[]) {
      const service = /\/platform\/([a-z-]+)[:@]/.exec(container.image)?.[1] as ServiceName;
      const schema = SCHEMAS[service];
      if (!schema) {
        failures.push(`${deployment.metadata.name}: image ${container.image} is no service`);
        continue;
      }
      const env = resolveEnv(container, manifests, namespace);
      const result = schema.safeParse(env);
      if (!result.success)
        failures.push(
          `${deployment.metadata.name}: ${result.error.issues.map((issue) => `${issue.path.map(String).join(".")} ${issue.message}`).join("; ")}`,
        );
      for (const name of Object.keys(env)) {
        if (POSTGRES_VARIABLES.includes(name) && service !== "projector" && service !== "data-query")
          failures.push(`${deployment.metadata.name}: sets ${name}, but ${service} has no access to PostgreSQL`);
        if (!(name in schema.shape) && !NOT_YET_READ.has(name))
          failures.push(`${deployment.metadata.name}: sets ${name}, which ${service} does not read`);
      }
      if (env.CHAINS_FILE) {
        const file = mountedConfigFile(
          { pod: deployment.spec.template.spec },
          container,
          env.CHAINS_FILE,
          manifests,
          namespace,
        );
        const chains = chainConfigSchema.safeParse(JSON.parse(file ?? "null"));
        if (!chains.success)
          failures.push(
            `${deployment.metadata.name}: ${env.CHAINS_FILE}: ${chains.error.issues.map((issue) => `${issue.path.map(String).join(".")} ${issue.message}`).join("; ")}`,
          );
      }
    }
  }
  return failures;
}

describe.each(OVERLAYS)("overlay %s", (overlay) => {
  test("every container's environment loads with its service's config schema, and sets nothing it does not read", () => {
    expect(configFailures(rendered.get(overlay)!)).toEqual([]);
  });
});

test("a missing variable, a misspelt one and a broken chains.json are reported", () => {
  const manifests = structuredClone(rendered.get("dev")!) as Array<
    Manifest & { spec: any; data?: Record<string, string> }
  >;
  const envOf = (name: string) =>
    manifests.find((m) => m.kind === "Deployment" && m.metadata.name === name)!.spec.template.spec.containers[0]
      .env as Array<{ name: string }>;
  const queries = envOf("data-query-subnets");
  queries.splice(
    queries.findIndex((variable) => variable.name === "REDIS_URL"),
    1,
  );
  envOf("projector-market").push({ name: "PROJECTION", value: "market" } as { name: string });
  const chains = manifests.find((m) => m.kind === "ConfigMap" && m.metadata.name.startsWith("platform-chains"))!;
  chains.data!["chains.json"] = chains.data!["chains.json"]!.replace('"chainId": 945', '"chainId": "945"');
  const failures = configFailures(manifests).join("\n");
  expect(failures).toMatch(/data-query-subnets: REDIS_URL/);
  expect(failures).toMatch(/projector-market: sets PROJECTION, which projector does not read/);
  expect(failures).toMatch(/chain-ingestor-native: \/etc\/platform\/chains\/chains\.json: substrate\.chainId/);
});

test("every overlay names its Bittensor network by its Substrate RPC (an archive node over WebSocket), with no EVM stand-in", () => {
  const networks = OVERLAYS.map((overlay) => {
    const chains = rendered
      .get(overlay)!
      .find((m) => m.kind === "ConfigMap" && m.metadata.name.startsWith("platform-chains")) as Manifest & {
      data: Record<string, string>;
    };
    const config = chainConfigSchema.parse(JSON.parse(chains.data["chains.json"]!));
    expect(
      config.chains.filter((chain) => chain.roles.includes("native")),
      overlay,
    ).toEqual([]);
    return [
      overlay,
      config.substrate?.chainId,
      config.substrate?.rpcUrl.startsWith("wss://"),
      config.substrate?.ss58Prefix,
    ];
  });
  // Finney is EVM chain 964 (H160 mapping, as_of chain ids); the dev overlay follows the testnet (945).
  expect(networks).toEqual([
    ["dev", 945, true, 42],
    ["prod", 964, true, 42],
  ]);
});

test("every overlay's gateway believes X-Forwarded-For only from its Ingress controller's pod ranges, IPv4 and IPv6", () => {
  const trusted = OVERLAYS.map((overlay) => {
    const manifests = rendered.get(overlay)!;
    const gateway = manifests.find((m) => m.kind === "Deployment" && m.metadata.name === "gateway") as Manifest & {
      spec: any;
    };
    const env = resolveEnv(gateway.spec.template.spec.containers[0], manifests, gateway.metadata.namespace as string);
    const proxies = gatewayConfigSchema.parse(env).TRUST_PROXY_CIDRS;
    // A pod of each family is a trusted hop; a client on the internet never is.
    const pods = { dev: ["10.244.1.5", "fd00:10:244::5"], prod: ["10.49.1.5", "fd10:48::5"] }[overlay];
    return [overlay, pods.map((pod) => proxies.has(pod)), proxies.has("203.0.113.77"), proxies.has("2001:db8::77")];
  });
  expect(trusted).toEqual([
    ["dev", [true, true], false, false],
    ["prod", [true, true], false, false],
  ]);
});

test("auth serves key administration on loopback only in every overlay (reached through kubectl port-forward, never from a pod)", () => {
  for (const overlay of OVERLAYS) {
    const manifests = rendered.get(overlay)!;
    const auth = manifests.find((m) => m.kind === "Deployment" && m.metadata.name === "auth") as Manifest & {
      spec: any;
    };
    const config = authConfigSchema.parse(
      resolveEnv(auth.spec.template.spec.containers[0], manifests, auth.metadata.namespace as string),
    );
    expect([overlay, config.ADMIN_GRPC_HOST, config.ADMIN_GRPC_PORT]).toEqual([overlay, "127.0.0.1", 50061]);
    expect(config.GRPC_PORT).not.toBe(config.ADMIN_GRPC_PORT);
  }
});

test("every source the chain-ingestor knows has its Deployment, and no other", () => {
  expect([...INGEST_SOURCES].sort()).toEqual([...INGESTOR_SOURCES].sort());
});

test("the base's example chains.json is valid too", async () => {
  const result = chainConfigSchema.safeParse(
    JSON.parse(await readFile(join(BASE_DIR, "config", "chains.json"), "utf8")),
  );
  expect(result.success ? [] : result.error.issues).toEqual([]);
});
