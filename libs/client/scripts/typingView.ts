/**
 * The document as openapi-typescript is given it: the same schemas, with one rule made typeable. An
 * object whose `anyOf` branches only require some of its properties (the preflight body: `order` or
 * `quoteId`; its order: encoded or decoded fields) is typed by openapi-typescript as the union of
 * the object and `unknown` per branch, which is `unknown`: any body compiled. Here each such branch
 * names the properties it requires, with their schemas, and the `anyOf` moves into an `allOf`, the
 * same constraint in JSON Schema, which openapi-typescript types as the object and one of the
 * branches. The committed openapi.json stays the gateway's document as it is.
 */

type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Schema => value !== null && typeof value === "object";

/** A branch that only requires properties (and may forbid some with `false`). */
function isRequiredOnly(branch: unknown): branch is { required: string[]; properties?: Schema } {
  if (!isObject(branch) || !Array.isArray(branch.required)) return false;
  const keys = Object.keys(branch).filter((key) => key !== "required" && key !== "properties");
  const forbids = Object.values(isObject(branch.properties) ? branch.properties : {}).every((value) => value === false);
  return keys.length === 0 && forbids;
}

function typedBranches(schema: Schema): Schema {
  const properties = schema.properties as Schema;
  const { anyOf, ...rest } = schema;
  const branches = (anyOf as Array<{ required: string[]; properties?: Schema }>).map((branch) => ({
    type: "object",
    required: branch.required,
    properties: {
      ...Object.fromEntries(branch.required.map((name) => [name, properties[name] ?? {}])),
      ...branch.properties,
    },
  }));
  return { ...rest, allOf: [...((rest.allOf as unknown[]) ?? []), { anyOf: branches }] };
}

/** A copy of the document with every such `anyOf` typed (see above). */
export function typingView(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(typingView);
  if (!isObject(value)) return value;
  const copy = Object.fromEntries(Object.entries(value).map(([key, member]) => [key, typingView(member)]));
  const anyOf = copy.anyOf;
  if (isObject(copy.properties) && Array.isArray(anyOf) && anyOf.length > 0 && anyOf.every(isRequiredOnly))
    return typedBranches(copy);
  return copy;
}
