/** `#/components/schemas/X` → `components#/$defs/X`: the components as one JSON Schema ajv can resolve. */
export function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    out[key] =
      key === "$ref" && typeof member === "string"
        ? member.replace("#/components/schemas/", "components#/$defs/")
        : rewriteRefs(member);
  }
  return out;
}

/** `/a/{b}/c` → /^\/a\/[^/]+\/c$/ (paths hold no other regular expression syntax). */
export const templatePattern = (template: string) => new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`);
