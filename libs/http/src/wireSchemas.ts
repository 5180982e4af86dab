import { z } from "zod";

/**
 * What a schema looks like on the wire, for schemas whose zod form cannot say it: a query value
 * parsed from text (a comma-separated list, an instant) is a transform of a string, and its rules
 * live in the transform, where z.toJSONSchema cannot see them. Each such schema registers its
 * documented form beside its parser (`.register(wireSchemas, { jsonSchema })`, query.ts), the
 * tests hold the two against each other (query.test.ts), and the OpenAPI document takes the
 * documented form (openapi.ts).
 */
export const wireSchemas = z.registry<{ jsonSchema: Record<string, unknown> }>();

/** For z.toJSONSchema's `override`: a registered schema is replaced by its documented form. */
export function useDocumentedForm(context: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  // A query value's default lives in its parser (`integerQuery`'s `default`), which the input-side
  // conversion of a transform leaves out of the JSON Schema: it is put back from the metadata.
  const declaredDefault = z.globalRegistry.get(context.zodSchema as z.ZodType)?.default;
  if (declaredDefault !== undefined && context.jsonSchema.default === undefined)
    context.jsonSchema.default = declaredDefault;
  const documented = wireSchemas.get(context.zodSchema as z.ZodType);
  if (documented === undefined) return;
  for (const key of Object.keys(context.jsonSchema)) delete context.jsonSchema[key];
  Object.assign(context.jsonSchema, structuredClone(documented.jsonSchema));
}
