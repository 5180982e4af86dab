import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { checkPrometheusRuleSpec, PROMETHEUS_RULE_API } from "./observability/prometheusRuleSchema.js";

/**
 * Strict validation of manifests against the Kubernetes API of one pinned version.
 *
 * The type catalogue comes from `@kubernetes/client-node` 1.1.2, whose models are generated from the
 * OpenAPI document of Kubernetes v1.32.0 (each model file says so). For every API type it lists
 * every property with its type and format (`attributeTypeMap`), and its declaration file marks
 * which properties the schema requires. From these we validate like a strict schema with
 * `additionalProperties: false` wherever the spec lists properties: an unknown field is an error
 * (the API server's strict field validation rejects it too), as are wrong types, non-integers in
 * int32/int64 fields and missing required fields. The pinned spec carries no enumerations, so
 * enum values (e.g. `strategy.type`) are not checked here; the project rules check the ones that
 * matter.
 */

export const SCHEMA_PACKAGE = "@kubernetes/client-node";
export const KUBERNETES_VERSION = "v1.32.0";

/** The API types this project may render, by `apiVersion` and `kind`. Anything else is reported. */
const ROOT_MODELS: Record<string, string> = {
  "v1/Namespace": "V1Namespace",
  "v1/ServiceAccount": "V1ServiceAccount",
  "v1/Service": "V1Service",
  "v1/ConfigMap": "V1ConfigMap",
  "v1/PersistentVolumeClaim": "V1PersistentVolumeClaim",
  "v1/Secret": "V1Secret",
  "apps/v1/Deployment": "V1Deployment",
  "apps/v1/StatefulSet": "V1StatefulSet",
  "batch/v1/Job": "V1Job",
  "batch/v1/CronJob": "V1CronJob",
  "autoscaling/v2/HorizontalPodAutoscaler": "V2HorizontalPodAutoscaler",
  "policy/v1/PodDisruptionBudget": "V1PodDisruptionBudget",
  "networking.k8s.io/v1/NetworkPolicy": "V1NetworkPolicy",
  "networking.k8s.io/v1/Ingress": "V1Ingress",
  "rbac.authorization.k8s.io/v1/Role": "V1Role",
  "rbac.authorization.k8s.io/v1/RoleBinding": "V1RoleBinding",
};

/**
 * Fields of type `resource.Quantity`, which the generated models erase to `string`; the API
 * accepts a number there too (`cpu: 1`).
 */
const QUANTITY_FIELDS = new Set([
  "V1ResourceRequirements.limits",
  "V1ResourceRequirements.requests",
  "V1EmptyDirVolumeSource.sizeLimit",
  "V2MetricTarget.value",
  "V2MetricTarget.averageValue",
]);

interface Property {
  /** JSON name. */
  name: string;
  type: string;
  format: string;
}

interface ModelSchema {
  name: string;
  properties: Map<string, Property>;
  required: Set<string>;
}

export interface SchemaProblem {
  /** `Kind/name`. */
  object: string;
  /** JSON path inside the object, e.g. `.spec.template.spec.containers[0].bogus`. */
  path: string;
  message: string;
}

interface AttributeType {
  name: string;
  baseName: string;
  type: string;
  format: string;
}

const MAP_TYPE = /^\{ \[key: string\]: (.+); \}$/;
const ARRAY_TYPE = /^Array<(.+)>$/;
const SCALARS = new Set(["string", "number", "boolean", "Date", "any", "object", "IntOrString"]);

function modelsDir(): string {
  const require = createRequire(import.meta.url);
  // The package has no `exports` map, so its main file locates the generated models beside it.
  return join(dirname(require.resolve(SCHEMA_PACKAGE)), "gen", "models");
}

/** Types named inside a property type, e.g. `Array<V1Container>` → V1Container. */
function referencedModels(type: string): string[] {
  const map = MAP_TYPE.exec(type);
  if (map) return referencedModels(map[1]!);
  const array = ARRAY_TYPE.exec(type);
  if (array) return referencedModels(array[1]!);
  return SCALARS.has(type) ? [] : [type];
}

/** Properties without `?` in the generated declaration are the ones the OpenAPI schema requires. */
function requiredProperties(declaration: string, attributes: AttributeType[]): Set<string> {
  const jsonName = new Map(attributes.map((attribute) => [attribute.name, attribute.baseName]));
  const required = new Set<string>();
  for (const match of declaration.matchAll(/^\s+'([^']+)'(\?)?:/gm)) {
    const json = jsonName.get(match[1]!);
    if (json !== undefined && match[2] === undefined) required.add(json);
  }
  return required;
}

export class StrictSchema {
  private constructor(private readonly models: Map<string, ModelSchema>) {}

  /** Loads the pinned catalogue: every type reachable from the supported kinds. */
  static async load(): Promise<StrictSchema> {
    const dir = modelsDir();
    const models = new Map<string, ModelSchema>();
    const pending = [...new Set(Object.values(ROOT_MODELS))];
    while (pending.length > 0) {
      const name = pending.pop()!;
      if (models.has(name)) continue;
      const module = (await import(pathToFileURL(join(dir, `${name}.js`)).href)) as Record<
        string,
        { attributeTypeMap?: AttributeType[] }
      >;
      const attributes = module[name]?.attributeTypeMap;
      if (!attributes) throw new Error(`${SCHEMA_PACKAGE}: no model ${name}`);
      const declaration = await readFile(join(dir, `${name}.d.ts`), "utf8");
      models.set(name, {
        name,
        properties: new Map(
          attributes.map((attribute) => [
            attribute.baseName,
            { name: attribute.baseName, type: attribute.type, format: attribute.format },
          ]),
        ),
        required: requiredProperties(declaration, attributes),
      });
      for (const attribute of attributes)
        for (const referenced of referencedModels(attribute.type))
          if (!models.has(referenced)) pending.push(referenced);
    }
    return new StrictSchema(models);
  }

  /** The pinned model for an object, or undefined when the kind is not supported. */
  modelFor(apiVersion: unknown, kind: unknown): string | undefined {
    return ROOT_MODELS[`${String(apiVersion)}/${String(kind)}`];
  }

  /** Every problem of one object; an empty list means it is valid. */
  validate(object: unknown): SchemaProblem[] {
    const record = (object ?? {}) as Record<string, unknown>;
    const metadata = (record.metadata ?? {}) as Record<string, unknown>;
    const label = `${String(record.kind)}/${String(metadata.name)}`;
    const problems: SchemaProblem[] = [];
    if (record.apiVersion === PROMETHEUS_RULE_API && record.kind === "PrometheusRule") {
      // A custom resource (Prometheus Operator): its own strict check, metadata as any object's.
      const report = (path: string, message: string) => problems.push({ object: label, path, message });
      for (const key of Object.keys(record))
        if (!["apiVersion", "kind", "metadata", "spec"].includes(key)) report(`.${key}`, `unknown field "${key}"`);
      this.check(record.metadata, "V1ObjectMeta", "", ".metadata", report);
      checkPrometheusRuleSpec(record.spec, report);
      return problems;
    }
    const model = this.modelFor(record.apiVersion, record.kind);
    if (!model) {
      problems.push({
        object: label,
        path: "",
        message: `no schema for apiVersion ${String(record.apiVersion)} kind ${String(record.kind)} in Kubernetes ${KUBERNETES_VERSION}`,
      });
      return problems;
    }
    this.check(object, model, "", "", (path, message) => problems.push({ object: label, path, message }));
    return problems;
  }

  private check(
    value: unknown,
    type: string,
    format: string,
    path: string,
    report: (path: string, message: string) => void,
  ): void {
    if (value === null) return; // null is how YAML says "unset"; the API server treats it so.
    const map = MAP_TYPE.exec(type);
    if (map) {
      if (!isPlainObject(value)) {
        report(path, `must be an object (map of ${map[1]})`);
        return;
      }
      for (const [key, item] of Object.entries(value)) this.check(item, map[1]!, "", `${path}.${key}`, report);
      return;
    }
    const array = ARRAY_TYPE.exec(type);
    if (array) {
      if (!Array.isArray(value)) {
        report(path, `must be an array of ${array[1]}`);
        return;
      }
      value.forEach((item, index) => this.check(item, array[1]!, "", `${path}[${index}]`, report));
      return;
    }
    switch (type) {
      case "any":
      case "object":
        return;
      case "string":
      case "Date":
        if (typeof value !== "string") report(path, `must be a string, not ${describe(value)}`);
        return;
      case "boolean":
        if (typeof value !== "boolean") report(path, `must be a boolean, not ${describe(value)}`);
        return;
      case "number":
        if (typeof value !== "number") report(path, `must be a number, not ${describe(value)}`);
        else if ((format === "int32" || format === "int64") && !Number.isInteger(value))
          report(path, `must be an integer (${format})`);
        return;
      case "IntOrString":
        if (!(typeof value === "string" || (typeof value === "number" && Number.isInteger(value)))) {
          report(path, `must be an integer or a string, not ${describe(value)}`);
        }
        return;
    }
    const model = this.models.get(type);
    if (!model) {
      report(path, `schema type ${type} is not loaded`);
      return;
    }
    if (!isPlainObject(value)) {
      report(path, `must be an object (${type}), not ${describe(value)}`);
      return;
    }
    for (const required of model.required)
      if (value[required] === undefined) report(`${path}.${required}`, "is required");
    for (const [key, item] of Object.entries(value)) {
      const property = model.properties.get(key);
      if (!property) {
        report(`${path}.${key}`, `unknown field "${key}" (not in ${type})`);
        continue;
      }
      if (QUANTITY_FIELDS.has(`${type}.${key}`)) {
        this.checkQuantities(item, property.type, `${path}.${key}`, report);
        continue;
      }
      this.check(item, property.type, property.format, `${path}.${key}`, report);
    }
  }

  private checkQuantities(
    value: unknown,
    type: string,
    path: string,
    report: (path: string, message: string) => void,
  ): void {
    const isQuantity = (item: unknown) => typeof item === "string" || typeof item === "number";
    if (MAP_TYPE.test(type)) {
      if (!isPlainObject(value)) {
        report(path, "must be a map of quantities");
        return;
      }
      for (const [key, item] of Object.entries(value))
        if (!isQuantity(item)) report(`${path}.${key}`, `must be a quantity, not ${describe(item)}`);
      return;
    }
    if (!isQuantity(value)) report(path, `must be a quantity, not ${describe(value)}`);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
}
