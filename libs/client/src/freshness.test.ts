import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { emittedGatewayDocument, generateFiles } from "../scripts/openapi.js";

// The committed openapi.json must be what the gateway emits now, and the generated types what
// that document makes: `pnpm build && pnpm --filter @chain-intents/client generate` rewrites both.
describe("generated client files are fresh", () => {
  let emitted = "";
  // The gateway's emitter runs from source under tsx: a few seconds.
  beforeAll(() => {
    emitted = emittedGatewayDocument();
  }, 60_000);

  it("match a fresh generation from the gateway's emitted document byte for byte", async () => {
    const fresh = await generateFiles(emitted);
    const [openapiJson, schemaTs, eventsTs] = await Promise.all([
      readFile(new URL("../openapi.json", import.meta.url), "utf8"),
      readFile(new URL("./generated/schema.ts", import.meta.url), "utf8"),
      readFile(new URL("./generated/events.ts", import.meta.url), "utf8"),
    ]);
    const stale = [
      ...(openapiJson === fresh.openapiJson ? [] : ["libs/client/openapi.json"]),
      ...(schemaTs === fresh.schemaTs ? [] : ["libs/client/src/generated/schema.ts"]),
      ...(eventsTs === fresh.eventsTs ? [] : ["libs/client/src/generated/events.ts"]),
    ];
    expect(stale, "stale; run `pnpm build && pnpm --filter @chain-intents/client generate`").toEqual([]);
  });

  it("types every problem code of the document", async () => {
    const { openapiJson, schemaTs } = await generateFiles(emitted);
    const document = JSON.parse(openapiJson) as {
      components: { schemas: { Problem: { properties: { code: { enum: string[] } } } } };
    };
    const codes = document.components.schemas.Problem.properties.code.enum;
    expect(codes).toContain("INVALID_ADDRESS");
    for (const code of codes) expect(schemaTs).toContain(`"${code}"`);
  });
});
