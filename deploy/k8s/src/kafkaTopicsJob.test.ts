import { beforeAll, describe, expect, test } from "vitest";
import { DEPLOYABLES } from "./deployables.js";
import { renderOverlay } from "./kustomize.js";
import type { Manifest } from "./manifests.js";
import { OVERLAYS, type OverlayName } from "./paths.js";

/*
 * The Kafka topics step in the rendered overlays: the Job kafka-topics creates the topics as its
 * own Kafka user, and the services create none (their grants: libs/bus kafkaAcl.test.ts).
 */

const rendered = new Map<OverlayName, Manifest[]>();
beforeAll(async () => {
  await Promise.all(OVERLAYS.map(async (overlay) => rendered.set(overlay, await renderOverlay(overlay))));
});

type Any = Manifest & { spec: any };
type EnvVar = { name: string; value?: string; valueFrom?: any };
const find = (overlay: OverlayName, kind: string, name: string) => {
  const found = rendered.get(overlay)!.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
  if (!found) throw new Error(`no ${kind}/${name}`);
  return found as Any;
};
const envOf = (manifest: Any) =>
  Object.fromEntries(
    (manifest.spec.template.spec.containers[0].env as EnvVar[]).map((variable) => [variable.name, variable]),
  );

describe.each(OVERLAYS)("overlay %s", (overlay) => {
  test("the Job kafka-topics runs the projector image's node dist/topics.js as the Kafka user `topics`", () => {
    const job = find(overlay, "Job", "kafka-topics");
    const container = job.spec.template.spec.containers[0];
    expect(container.command).toEqual(["node", "dist/topics.js"]);
    expect(container.image).toMatch(/\/projector[:@]/);
    const env = envOf(job);
    expect(env.KAFKA_SASL_USERNAME?.valueFrom).toEqual({ secretKeyRef: { name: "kafka-topics", key: "username" } });
    expect(env.KAFKA_SASL_PASSWORD?.valueFrom).toEqual({ secretKeyRef: { name: "kafka-topics", key: "password" } });
    expect(env.CHAIN_TOPICS_RETENTION_MS?.valueFrom.configMapKeyRef.key).toBe("CHAIN_TOPICS_RETENTION_MS");
    expect(env.KAFKA_BROKERS?.valueFrom.configMapKeyRef.key).toBe("KAFKA_BROKERS");
  });

  test("its pods reach Kafka, and nothing reaches them", () => {
    const kafka = find(overlay, "NetworkPolicy", "allow-egress-kafka");
    expect(kafka.spec.podSelector.matchExpressions[0].values).toContain("kafka-topics");
    const own = find(overlay, "NetworkPolicy", "kafka-topics");
    expect(own.spec.policyTypes).toEqual(["Ingress", "Egress"]);
    expect(own.spec.ingress ?? []).toEqual([]);
  });

  test("every Kafka Deployment waits for its topics: it creates none and has no retention to apply", () => {
    for (const deployable of DEPLOYABLES.filter((candidate) => candidate.uses.kafka)) {
      const env = envOf(find(overlay, "Deployment", deployable.name));
      expect(env.KAFKA_CREATE_TOPICS?.value, deployable.name).toBe("false");
      expect(env.CHAIN_TOPICS_RETENTION_MS, deployable.name).toBeUndefined();
    }
  });
});
