import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { generateFiles } from "../scripts/openapi.js";

// The committed openapi.json and generated types must be what the gateway's routes make now:
// `pnpm --filter @chain-intents/client generate` rewrites both.
describe("generated client files are fresh", () => {
  it("match a fresh generation from the gateway's routes byte for byte", async () => {
    const fresh = await generateFiles();
    const [openapiJson, schemaTs] = await Promise.all([
      readFile(new URL("../openapi.json", import.meta.url), "utf8"),
      readFile(new URL("./generated/schema.ts", import.meta.url), "utf8"),
    ]);
    const stale = [
      ...(openapiJson === fresh.openapiJson ? [] : ["libs/client/openapi.json"]),
      ...(schemaTs === fresh.schemaTs ? [] : ["libs/client/src/generated/schema.ts"]),
    ];
    expect(stale, "stale; run `pnpm --filter @chain-intents/client generate`").toEqual([]);
  });

  it("types every problem code of the document", async () => {
    const { openapiJson, schemaTs } = await generateFiles();
    const document = JSON.parse(openapiJson) as {
      components: { schemas: { Problem: { properties: { code: { enum: string[] } } } } };
    };
    const codes = document.components.schemas.Problem.properties.code.enum;
    expect(codes).toContain("INVALID_ADDRESS");
    for (const code of codes) expect(schemaTs).toContain(`"${code}"`);
  });
});
