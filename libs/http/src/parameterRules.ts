import { z } from "zod";

/**
 * Rules between the parameters of one request, which a JSON Schema of separate query parameters
 * cannot state. Each is data: the same object checks a request (`withParameterRules`) and is
 * published in the OpenAPI document as the operation's `x-parameter-rules` (openapi.ts), so a
 * client or a fuzzer reads exactly the rule the server applies.
 */
export type ParameterRule =
  /** Parameters of at most one group may be given (`start`/`end` or `block_start`/`block_end`). */
  | { kind: "exclusive"; groups: string[][] }
  /** When both are given, `first` comes before `second` (strictly, or not after it). */
  | {
      kind: "ordered";
      first: string;
      second: string;
      strict: boolean;
      compare: "instant" | "integer" | "decimal";
      message: string;
    }
  /**
   * `parameters` may be given only when `parameter` is one of `values` (`onlyWhen`), or only when
   * it is not (`notWhen`); `parameter` absent counts as none of them.
   */
  | { kind: "onlyWhen" | "notWhen"; parameters: string[]; parameter: string; values: string[]; message: string };

export const parameterRules = z.registry<{ rules: ParameterRule[] }>();

/** The object schema, checking `rules` once its fields are parsed, and carrying them for the document. */
export function withParameterRules<S extends z.ZodObject>(schema: S, rules: ParameterRule[]): S {
  const checked: z.ZodType = schema.superRefine((input, context) => {
    const values = input as Record<string, unknown>;
    for (const rule of rules) {
      const issue =
        rule.kind === "exclusive"
          ? exclusiveIssue(rule.groups, values)
          : rule.kind === "ordered"
            ? orderedIssue(rule, values)
            : conditionIssue(rule, values);
      if (issue !== undefined) {
        context.addIssue({ code: "custom", ...issue });
        return;
      }
    }
  });
  checked.register(parameterRules, { rules });
  return checked as S;
}

function exclusiveIssue(
  groups: string[][],
  values: Record<string, unknown>,
): { path: string[]; message: string } | undefined {
  const given = groups.map((group) => group.filter((name) => values[name] !== undefined));
  const first = given.findIndex((names) => names.length > 0);
  const clash = given.findIndex((names, index) => index > first && names.length > 0);
  if (first === -1 || clash === -1) return undefined;
  return { path: [given[clash]![0]!], message: `cannot be combined with ${groups[first]!.join("/")}` };
}

function orderedIssue(
  rule: Extract<ParameterRule, { kind: "ordered" }>,
  values: Record<string, unknown>,
): { path: string[]; message: string } | undefined {
  const [a, b] = [values[rule.first], values[rule.second]];
  if (a === undefined || b === undefined) return undefined;
  const order = compare(rule.compare, a, b);
  // A value its own schema refused is reported by that schema (zod runs this check regardless).
  if (order === undefined) return undefined;
  return order > 0 || (rule.strict && order === 0) ? { path: [rule.second], message: rule.message } : undefined;
}

function conditionIssue(
  rule: Extract<ParameterRule, { kind: "onlyWhen" | "notWhen" }>,
  values: Record<string, unknown>,
): { path: string[]; message: string } | undefined {
  const given = rule.parameters.find((name) => values[name] !== undefined);
  if (given === undefined) return undefined;
  const matches = values[rule.parameter] !== undefined && rule.values.includes(String(values[rule.parameter]));
  return matches === (rule.kind === "onlyWhen") ? undefined : { path: [given], message: rule.message };
}

/** The parameters a rule speaks of. */
export function parametersOfRule(rule: ParameterRule): string[] {
  if (rule.kind === "exclusive") return rule.groups.flat();
  if (rule.kind === "ordered") return [rule.first, rule.second];
  return [...rule.parameters, rule.parameter];
}

function compare(as: "instant" | "integer" | "decimal", a: unknown, b: unknown): number | undefined {
  if (as === "decimal") {
    const [x, y] = [String(a), String(b)];
    if (!/^[0-9]+$/.test(x) || !/^[0-9]+$/.test(y)) return undefined;
    return BigInt(x) === BigInt(y) ? 0 : BigInt(x) > BigInt(y) ? 1 : -1;
  }
  const order = as === "instant" ? Date.parse(String(a)) - Date.parse(String(b)) : Number(a) - Number(b);
  return Number.isNaN(order) ? undefined : order;
}
