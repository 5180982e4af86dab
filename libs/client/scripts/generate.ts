/**
 * Regenerates the client's committed files from the document the gateway's build emitted
 * (`@platform/gateway/openapi.json`): `openapi.json`, `src/generated/schema.ts` and `src/generated/events.ts`. Run `pnpm build`
 * then `pnpm --filter @chain-intents/client generate` after changing a route; src/freshness.test.ts
 * fails while they are stale.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { builtGatewayDocument, generateFiles } from "./openapi.js";

const openapiPath = fileURLToPath(new URL("../openapi.json", import.meta.url));
const schemaPath = fileURLToPath(new URL("../src/generated/schema.ts", import.meta.url));
const eventsPath = fileURLToPath(new URL("../src/generated/events.ts", import.meta.url));

const files = await generateFiles(builtGatewayDocument());
await writeFile(openapiPath, files.openapiJson);
await mkdir(dirname(schemaPath), { recursive: true });
await writeFile(schemaPath, files.schemaTs);
await writeFile(eventsPath, files.eventsTs);
console.log(`wrote ${openapiPath}, ${schemaPath} and ${eventsPath}`);
