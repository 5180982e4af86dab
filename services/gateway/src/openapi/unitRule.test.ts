import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BASE_UNITS_PATTERN } from "../routes/data/shared/wire.js";
import { defaultGatewayDocument } from "./document.js";

/**
 * The document's one unit rule (issue 43): every amount is an integer string in base units with
 * its unit in its name (`_rao`, `_nalpha`); ratios and prices are decimal strings. A member named
 * in whole TAO is a price or a ratio, or deprecated in favour of one in rao.
 */
type Schema = {
  type?: string | string[];
  pattern?: string;
  deprecated?: boolean;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};

interface Member {
  path: string;
  name: string;
  schema: Schema;
}

function membersOf(schema: Schema | undefined, path: string, out: Member[] = []): Member[] {
  if (schema === undefined) return out;
  for (const [name, member] of Object.entries(schema.properties ?? {})) {
    out.push({ path: `${path}.${name}`, name, schema: member });
    membersOf(member, `${path}.${name}`, out);
  }
  membersOf(schema.items, `${path}[]`, out);
  for (const inner of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])])
    membersOf(inner, path, out);
  return out;
}

/** The string schemas a member may take (null aside). */
const stringsOf = (schema: Schema): Schema[] =>
  [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].filter((candidate) =>
    [candidate.type].flat().includes("string"),
  );
const objectsOf = (schema: Schema): Schema[] =>
  [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].filter((candidate) => candidate.properties !== undefined);

const document = defaultGatewayDocument() as {
  info: { version: string };
  components: { schemas: Record<string, Schema> };
};
const members = Object.entries(document.components.schemas).flatMap(([name, schema]) => membersOf(schema, name));

describe("the document's one unit rule", () => {
  it("holds every _rao and _nalpha member, and each member of an object so named, to an integer string", () => {
    const amounts = members.filter((member) => /_(rao|nalpha)$/.test(member.name));
    expect(amounts.length).toBeGreaterThan(100);
    const broken = amounts.flatMap((member) => {
      const strings = [
        ...stringsOf(member.schema),
        ...objectsOf(member.schema).flatMap((object) => Object.values(object.properties!).flatMap(stringsOf)),
      ];
      return strings.length > 0 && strings.every((schema) => schema.pattern === BASE_UNITS_PATTERN.source)
        ? []
        : [member.path];
    });
    expect(broken).toEqual([]);
  });

  it("names no amount in whole TAO but a price, a ratio or a deprecated member", () => {
    const inTao = members.filter((member) => /_tao$/.test(member.name) && stringsOf(member.schema).length > 0);
    const broken = inTao
      .filter((member) => !/price|ratio/.test(member.name))
      .filter((member) => ![member.schema, ...(member.schema.anyOf ?? [])].some((schema) => schema.deprecated === true))
      .map((member) => member.path);
    expect(broken).toEqual([]);
  });

  it("gives the document the version of the contract's changelog's newest entry", () => {
    const changelog = readFileSync(new URL("../../CHANGELOG.md", import.meta.url), "utf8");
    const newest = /^## (\d+\.\d+\.\d+)/m.exec(changelog)?.[1];
    expect(document.info.version).toBe(newest);
  });
});
