import type { Manifest } from "../manifests.js";
import { type LabelSelector, selectorMatches } from "../netpol.js";
import { resolveEnv } from "./containerConfig.js";
import { id, nsOf, type RuleContext } from "./ruleContext.js";
import { imageName } from "./workloads.js";

// ---- Scaling: HPA or singleton, and PDBs that never block a drain.
export function checkScaling(context: RuleContext): void {
  checkAutoscalers(context);
  const minimumSize = checkReplicas(context);
  checkExclusiveWork(context);
  checkDisruptionBudgets(context, minimumSize);
}

function targetsOf(hpa: Manifest) {
  return (hpa.spec as { scaleTargetRef?: { kind?: string; name?: string } } | undefined)?.scaleTargetRef;
}

/** Each HPA scales a Deployment that exists, within sane bounds, on CPU. */
function checkAutoscalers(context: RuleContext): void {
  const { options, report, deployments, hpas } = context;
  for (const hpa of hpas) {
    const target = targetsOf(hpa);
    const spec = (hpa.spec ?? {}) as {
      minReplicas?: number;
      maxReplicas?: number;
      metrics?: Array<{ type?: string; resource?: { name?: string; target?: { type?: string } } }>;
    };
    if (
      target?.kind !== "Deployment" ||
      !deployments.some(
        (deployment) => deployment.name === target.name && deployment.namespace === nsOf(hpa, options.namespace),
      )
    ) {
      report("autoscaling", id(hpa), `scaleTargetRef ${target?.kind}/${target?.name} does not exist`);
    }
    if ((spec.minReplicas ?? 1) < 1 || (spec.maxReplicas ?? 0) < (spec.minReplicas ?? 1))
      report("autoscaling", id(hpa), "needs 1 <= minReplicas <= maxReplicas");
    if (
      !(spec.metrics ?? []).some(
        (metric) =>
          metric.type === "Resource" &&
          metric.resource?.name === "cpu" &&
          metric.resource.target?.type === "Utilization",
      )
    ) {
      report("autoscaling", id(hpa), "must scale on CPU utilisation");
    }
  }
}

/**
 * Each Deployment is either a singleton or autoscaled by exactly one HPA. Returns each one's minimum
 * number of pods, by Deployment name.
 */
function checkReplicas(context: RuleContext): Map<string, number> {
  const { options, report, deployments, hpas } = context;
  const minimumSize = new Map<string, number>();
  for (const deployment of deployments) {
    const object = id(deployment.manifest);
    const scalers = hpas.filter(
      (hpa) => targetsOf(hpa)?.kind === "Deployment" && targetsOf(hpa)?.name === deployment.name,
    );
    if (options.singletons.includes(deployment.name)) {
      if (scalers.length > 0) report("autoscaling", object, "is a singleton and must have no HPA");
      if (deployment.replicas !== 1) report("autoscaling", object, "is a singleton: replicas must be exactly 1");
      if (deployment.strategyType !== "Recreate")
        report(
          "autoscaling",
          object,
          "is a singleton: strategy must be Recreate (the old pod stops before the new one starts)",
        );
      minimumSize.set(deployment.name, 1);
      continue;
    }
    if (scalers.length !== 1)
      report(
        "autoscaling",
        object,
        `must be targeted by exactly one HorizontalPodAutoscaler (found ${scalers.length})`,
      );
    if (deployment.replicas !== undefined)
      report("autoscaling", object, "is autoscaled: leave spec.replicas to the HPA (applying would reset the scale)");
    const min = (scalers[0]?.spec as { minReplicas?: number } | undefined)?.minReplicas ?? 1;
    minimumSize.set(deployment.name, min);
  }
  return minimumSize;
}

/**
 * A part of exclusive work in two Deployments would have two active instances (the second fenced
 * off in a restart loop); in none, it would silently stop.
 */
function checkExclusiveWork(context: RuleContext): void {
  const { manifests, options, report, deployments } = context;
  for (const work of options.exclusiveWork) {
    const runners = new Map<string, string[]>(work.values.map((value) => [value, []]));
    for (const deployment of deployments) {
      const object = id(deployment.manifest);
      for (const container of deployment.containers.filter((candidate) => imageName(candidate.image) === work.image)) {
        const listed = (resolveEnv(container, manifests, deployment.namespace)[work.variable] ?? "")
          .split(",")
          .map((item) => item.trim())
          .filter(Boolean);
        const parts = new Set(listed.length > 0 ? listed : work.values);
        for (const part of parts) {
          if (runners.has(part)) runners.get(part)!.push(deployment.name);
          else
            report("singletons", object, `${work.variable} lists ${part}, which is none of ${work.values.join(", ")}`);
        }
        if (!options.singletons.includes(deployment.name))
          report(
            "singletons",
            object,
            `runs ${[...parts].join(", ")} of ${work.image}: must be a singleton Deployment`,
          );
      }
    }
    for (const [part, names] of runners) {
      if (names.length !== 1)
        report(
          "singletons",
          `${work.variable}=${part}`,
          `must run in exactly one Deployment (found ${names.length}${names.length > 0 ? `: ${names.join(", ")}` : ""})`,
        );
    }
  }
}

/**
 * Each Deployment and StatefulSet has exactly one PDB, and each PDB allows an eviction at the
 * minimum size (a StatefulSet's is its replicas).
 */
function checkDisruptionBudgets(context: RuleContext, minimumSize: Map<string, number>): void {
  const { options, report, pdbs, workloads } = context;
  const deployments = workloads.filter((workload) => workload.kind === "Deployment" || workload.kind === "StatefulSet");
  for (const workload of deployments)
    if (workload.kind === "StatefulSet") minimumSize.set(workload.name, workload.replicas ?? 1);
  for (const deployment of deployments) {
    const selecting = pdbs.filter((pdb) => {
      const selector = (pdb.spec as { selector?: LabelSelector } | undefined)?.selector;
      return (
        selector !== undefined &&
        nsOf(pdb, options.namespace) === deployment.namespace &&
        selectorMatches(selector, deployment.podLabels)
      );
    });
    if (selecting.length !== 1)
      report(
        "disruption",
        id(deployment.manifest),
        `must be selected by exactly one PodDisruptionBudget (found ${selecting.length})`,
      );
  }
  for (const pdb of pdbs) {
    const spec = (pdb.spec ?? {}) as {
      selector?: LabelSelector;
      minAvailable?: number | string;
      maxUnavailable?: number | string;
    };
    const selected = deployments.filter(
      (deployment) =>
        spec.selector &&
        nsOf(pdb, options.namespace) === deployment.namespace &&
        selectorMatches(spec.selector, deployment.podLabels),
    );
    if (!spec.selector || selected.length === 0) {
      report("disruption", id(pdb), "selects no Deployment's or StatefulSet's pods");
      continue;
    }
    const size = selected.reduce((sum, deployment) => sum + (minimumSize.get(deployment.name) ?? 1), 0);
    const amount = (value: number | string, roundUp: boolean) =>
      typeof value === "number" ? value : (roundUp ? Math.ceil : Math.floor)((Number.parseFloat(value) / 100) * size);
    const allowed =
      spec.maxUnavailable !== undefined
        ? amount(spec.maxUnavailable, true)
        : spec.minAvailable !== undefined
          ? size - amount(spec.minAvailable, true)
          : size;
    if (allowed < 1)
      report(
        "disruption",
        id(pdb),
        `allows no eviction at the minimum size of ${size} pod(s): node drains would block`,
      );
  }
}
