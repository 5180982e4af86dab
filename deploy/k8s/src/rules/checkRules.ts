import type { Manifest } from "../manifests.js";
import { NetworkPolicies, type NetworkPolicyObject } from "../netpol.js";
import { checkNetwork } from "./network.js";
import { configMapData, type RuleContext, type RuleOptions, type RuleProblem, workloadsOf } from "./ruleContext.js";
import { checkScaling } from "./scaling.js";
import { checkNothingSecret } from "./secrets.js";
import { checkServices } from "./services.js";
import { checkWorkloads } from "./workloads.js";

/**
 * The project's rules for rendered manifests, beyond what the API schema says: every workload is
 * probed, bounded, hardened, budgeted, autoscaled (or deliberately single), wired to Services and
 * ConfigMaps that exist, reachable exactly by its callers, and carries no secret.
 * Each group of rules is a module of this folder.
 */
export function checkRules(manifests: Manifest[], options: RuleOptions): RuleProblem[] {
  const problems: RuleProblem[] = [];
  const report = (rule: string, object: string, message: string) => problems.push({ rule, object, message });
  const workloads = workloadsOf(manifests, options.namespace);
  const deployments = workloads.filter((workload) => workload.kind === "Deployment");
  const byKind = (kind: string) => manifests.filter((manifest) => manifest.kind === kind);
  const hpas = byKind("HorizontalPodAutoscaler");
  const pdbs = byKind("PodDisruptionBudget");
  const services = byKind("Service");
  const configMaps = configMapData(manifests, options.namespace);
  const policies = new NetworkPolicies(byKind("NetworkPolicy") as unknown as NetworkPolicyObject[], options.namespace);
  const context: RuleContext = {
    manifests,
    options,
    report,
    byKind,
    deployments,
    workloads,
    hpas,
    pdbs,
    services,
    configMaps,
    policies,
  };

  checkWorkloads(context);
  checkScaling(context);
  checkServices(context);
  checkNothingSecret(context);
  checkNetwork(context);

  return problems;
}

export function formatProblems(
  problems: Array<{ object: string; message: string; rule?: string; path?: string }>,
): string {
  return problems
    .map(
      (problem) =>
        `${problem.rule ? `[${problem.rule}] ` : ""}${problem.object}${problem.path ? ` ${problem.path}` : ""}: ${problem.message}`,
    )
    .join("\n");
}
