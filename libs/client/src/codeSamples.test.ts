import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { typecheck } from "./testing/typecheck.js";

/*
 * Issue 44, point 6: the reference page (the document's introduction and `x-codeSamples`) shows
 * this client, and what it shows compiles: every operation's TypeScript sample and the
 * introduction's quickstart are type-checked, strict, against the client as an integrator
 * imports it.
 */

type Sample = { lang: string; label: string; source: string };
type Operation = { operationId: string; "x-codeSamples"?: Sample[] };

const document = JSON.parse(readFileSync(new URL("../openapi.json", import.meta.url), "utf8")) as {
  info: { description: string };
  paths: Record<string, Record<string, Operation>>;
};
const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
);
const quickstart = [...document.info.description.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);

describe("the reference page's TypeScript", () => {
  it("has a sample of this client on every operation, calling that operation", () => {
    const missing = operations.filter(
      ({ operation }) => operation["x-codeSamples"]?.find((sample) => sample.lang === "TypeScript") === undefined,
    );
    expect(missing.map(({ operation }) => operation.operationId)).toEqual([]);
    for (const { path, operation } of operations) {
      const source = operation["x-codeSamples"]![0]!.source;
      expect(source).toContain('from "@chain-intents/client"');
      if (path !== "/auth" && !path.endsWith("/events")) expect(source, operation.operationId).toContain(`"${path}"`);
    }
  });

  it("has an introduction with a quickstart", () => {
    expect(document.info.description).toContain("## Quickstart");
    expect(quickstart).toHaveLength(1);
    expect(quickstart[0]).toContain("createClient(");
  });

  it("type-checks every sample and the quickstart against the client, strict", () => {
    const files = Object.fromEntries([
      ...operations.map(({ operation }) => [`${operation.operationId}.ts`, operation["x-codeSamples"]![0]!.source]),
      ["quickstart.ts", quickstart[0]!],
    ]);
    expect(Object.keys(files).length).toBe(operations.length + 1);
    expect(typecheck(files).map(({ file, line, message }) => `${file}:${line}: ${message}`)).toEqual([]);
  }, 120_000);

  it("finds a sample that does not compile (the check is real)", () => {
    const errors = typecheck({
      "wrong.ts": `${operations[0]!.operation["x-codeSamples"]![0]!.source}\nawait client.get("/data/v1/nowhere");\n`,
    });
    expect(errors.map(({ message }) => message)).toEqual([expect.stringContaining("/data/v1/nowhere")]);
  }, 120_000);
});
