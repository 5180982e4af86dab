import { describe, expect, it } from "vitest";
import { defaultGatewayDocument } from "./document.js";

/**
 * The document describes everything (issue 43, point 8): every property of every named schema
 * says what it is and its unit, every operation parameter says what it takes, and every string
 * that carries a number (an amount, a decimal, an integer too large for JSON) has a `pattern`.
 * Each check lists every offender, so one run names all that is left to do.
 */
type Schema = {
  $ref?: string;
  type?: string | string[];
  description?: string;
  pattern?: string;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};

interface Member {
  path: string;
  name: string;
  parent: string;
  schema: Schema;
}

type Operation = {
  parameters?: Array<{ name: string; in: string; description?: string }>;
  responses: Record<string, { content?: Record<string, { schema?: Schema; example?: unknown }> }>;
};

const document = defaultGatewayDocument() as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};
/**
 * The named schemas the API's operations use, directly or through another: a test elsewhere in the
 * same worker (the unit project shares its module cache) may register a component of its own in
 * the process-wide registry, which is not this API's.
 */
function usedSchemas(): Record<string, Schema> {
  const all = document.components.schemas;
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === "object")
      for (const [key, inner] of Object.entries(value)) {
        if (key === "$ref" && typeof inner === "string" && inner.startsWith("#/components/schemas/")) {
          const name = inner.slice("#/components/schemas/".length);
          if (!used.has(name)) {
            used.add(name);
            visit(all[name]);
          }
        } else visit(inner);
      }
  };
  visit(document.paths);
  return Object.fromEntries(Object.entries(all).filter(([name]) => used.has(name)));
}
const schemas = usedSchemas();

function membersOf(schema: Schema | undefined, path: string, parent: string, out: Member[] = []): Member[] {
  if (schema === undefined) return out;
  for (const [name, member] of Object.entries(schema.properties ?? {})) {
    out.push({ path: `${path}.${name}`, name, parent, schema: member });
    membersOf(member, `${path}.${name}`, name, out);
  }
  membersOf(schema.items, `${path}[]`, parent, out);
  for (const inner of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])])
    membersOf(inner, path, parent, out);
  return out;
}

const members = Object.entries(schemas).flatMap(([name, schema]) => membersOf(schema, name, name));

/** The string schemas a member may take (null and the other branches aside). */
const stringsOf = (schema: Schema): Schema[] =>
  [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].filter(
    (candidate) => [candidate.type].flat().includes("string") && candidate.enum === undefined,
  );

/**
 * Members that carry a number as text, by name: amounts in base units or whole TAO, prices,
 * percentages, the chain's ratios and scores, fixed-point hyperparameters, uint256 amounts and
 * nonces of the Service API, and the members of an object named for its unit (`pending_nalpha`).
 */
const NUMERIC_NAME =
  /(_rao|_nalpha|_tao|_usd|_pct|_share|_weight|_prop|_ratio|_cut|_take|_id|^take|^price|amount|Amount|^slippage$|^difficulty$|^dividends$|^vtrust$|^incentive$|^consensus$|^alpha_(low|high)$|^adjustment_alpha$|^bonds_moving_average$|^weights_version$|^share_of_alpha_out$|^expires_in$|^(open|high|low|close)$|^yield_)/;
const NUMERIC_PARENT = /_(rao|nalpha)$/;
/** Ids that are text, not numbers, though their names end in `_id`. */
const TEXT_IDS = new Set(["extrinsic_id"]);
/** Free text that an example happens to show as digits: what a preflight check compared, in its own words. */
const FREE_TEXT = /\.checks\[\]\.(expected|actual)$/;

/** What an example shows as a number in text: every such member must say its form. */
const NUMBER_TEXT = /^-?[0-9]+(\.[0-9]+)?$/;

const resolve = (schema: Schema): Schema =>
  schema.$ref === undefined ? schema : resolve(schemas[schema.$ref.replace("#/components/schemas/", "")]!);

/** The member schemas under which an answer's example shows a number as text, with where. */
function numericExampleMembers(
  schema: Schema,
  value: unknown,
  path: string,
  out: Map<Schema, string>,
): Map<Schema, string> {
  const resolved = resolve(schema);
  const branches = [resolved, ...(resolved.anyOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])].map(
    resolve,
  );
  if (Array.isArray(value)) {
    for (const branch of branches)
      if (branch.items !== undefined)
        for (const item of value) numericExampleMembers(branch.items, item, `${path}[]`, out);
    return out;
  }
  if (value === null || typeof value !== "object") return out;
  for (const [name, member] of Object.entries(value)) {
    const property = branches.map((branch) => branch.properties?.[name]).find((found) => found !== undefined);
    if (property === undefined) continue;
    if (typeof member === "string" && NUMBER_TEXT.test(member)) out.set(property, `${path}.${name}`);
    numericExampleMembers(property, member, `${path}.${name}`, out);
  }
  return out;
}

const exampleNumbers = new Map<Schema, string>();
for (const [path, operations] of Object.entries(document.paths))
  for (const [method, operation] of Object.entries(operations))
    for (const response of Object.values(operation.responses))
      for (const media of Object.values(response.content ?? {}))
        if (media.schema !== undefined && media.example !== undefined)
          numericExampleMembers(media.schema, media.example, `${method.toUpperCase()} ${path}`, exampleNumbers);

describe("the document describes everything", () => {
  it("gives every property of every named schema its own description", () => {
    expect(members.length).toBeGreaterThan(700);
    const undescribed = members
      .filter((member) => (member.schema.description ?? "").trim() === "")
      .map((member) => member.path);
    expect(undescribed).toEqual([]);
  });

  it("says of every percentage that 5 means 5 %", () => {
    const percentages = members.filter((member) => /_pct$/.test(member.name));
    expect(percentages.length).toBeGreaterThan(5);
    const unclear = percentages
      .filter((member) => !/\b5 means \+?5 %/.test(member.schema.description ?? ""))
      .map((member) => member.path);
    expect(unclear).toEqual([]);
  });

  it("says of every yield its unit (an annual rate, 0.12 is 12 %) and its method, and gives it a decimal pattern", () => {
    const yields = members.filter((member) => /^yield_/.test(member.name));
    expect(yields.map((member) => member.path)).toEqual(
      ["1h", "1d", "7d", "30d"].map((window) => `Validator.yield.yield_${window}`),
    );
    for (const member of yields) {
      expect(member.schema.description).toMatch(/an annual rate, decimal \(0\.12 is 12 % a year\), simple/);
      expect(stringsOf(member.schema).map((schema) => schema.pattern)).toEqual(["^-?[0-9]+(\\.[0-9]+)?$"]);
    }
    const method = members.find((member) => member.path === "Validator.yield")?.schema.description ?? "";
    expect(method).toMatch(/dividends × \(1 − take\) ÷ \(alpha_stake \+ TaoWeight × root_stake\)/);
    expect(method).toMatch(/365-day year, not compounded/);
    expect(members.find((member) => member.path === "Validator.yield.covered_from_block")?.schema.description).toMatch(
      /a window starting before it is null/,
    );
  });

  it("gives every parameter of every operation a description", () => {
    const undescribed = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations).flatMap(([method, operation]) =>
        (operation.parameters ?? [])
          .filter((parameter) => (parameter.description ?? "").trim() === "")
          .map((parameter) => `${method.toUpperCase()} ${path} ${parameter.in} ${parameter.name}`),
      ),
    );
    expect(undescribed).toEqual([]);
  });

  it("gives every string that carries an amount or a decimal a pattern", () => {
    const numeric = members.filter(
      (member) => !TEXT_IDS.has(member.name) && (NUMERIC_NAME.test(member.name) || NUMERIC_PARENT.test(member.parent)),
    );
    expect(numeric.length).toBeGreaterThan(200);
    const unpatterned = numeric
      .filter((member) => stringsOf(member.schema).some((schema) => schema.pattern === undefined))
      .map((member) => member.path);
    expect(unpatterned).toEqual([]);
  });

  it("gives a pattern to every string member an answer's example shows as a number", () => {
    expect(exampleNumbers.size).toBeGreaterThan(100);
    const unpatterned = [...exampleNumbers]
      .filter(([, path]) => !FREE_TEXT.test(path))
      .filter(([schema]) => stringsOf(schema).some((string) => string.pattern === undefined))
      .map(([, path]) => path);
    expect(unpatterned).toEqual([]);
  });
});

describe("pools' order flow (issue 43, point 5)", () => {
  const pool = schemas.SubnetPool!.properties!;
  const nullable = (schema: Schema) => [schema, ...(schema.anyOf ?? [])];

  it("describes the buy and sell volumes as rao integer strings with a pattern, and says why they may be null", () => {
    for (const name of ["tao_buy_volume_24h_rao", "tao_sell_volume_24h_rao"]) {
      const schema = pool[name]!;
      expect(schema.description, name).toMatch(/\brao\b/);
      expect(schema.description, name).toMatch(/null when/);
      const strings = stringsOf(schema);
      expect(strings.length, name).toBe(1);
      expect(new RegExp(strings[0]!.pattern!).test("18446744073709551617"), name).toBe(true);
      expect(new RegExp(strings[0]!.pattern!).test("1.5"), name).toBe(false);
    }
  });

  it("renders the counts as JSON integers, as the document's other counts, each described with its unit and its null", () => {
    for (const name of ["buys_24h", "sells_24h", "buyers_24h", "sellers_24h"]) {
      const schema = pool[name]!;
      expect(
        nullable(schema).some((branch) => [branch.type].flat().includes("integer")),
        name,
      ).toBe(true);
      expect(schema.description, name).toMatch(/a count of (events|accounts)/);
      expect(schema.description, name).toMatch(/null (when|for)/);
    }
  });
});
