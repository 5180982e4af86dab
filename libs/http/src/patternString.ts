import { z } from "zod";

/**
 * A string that must match `pattern`, refused with the problem `code` (INVALID_CURSOR,
 * INVALID_ADDRESS...) rather than the generic one. zod's own `.regex` documents the pattern but
 * cannot carry a code, so the check is a refinement and the same RegExp is published as the
 * JSON Schema `pattern` (ECMA-262 syntax in both). `base` carries the checks that go first (a
 * length bound keeps a long text from reaching the pattern).
 */
export function patternString(
  pattern: RegExp,
  refusal: { message: string; code: string },
  base: z.ZodString = z.string(),
) {
  return base
    .refine((text) => pattern.test(text), { error: refusal.message, params: { code: refusal.code } })
    .meta({ pattern: pattern.source });
}
