/**
 * Regenerates the client's committed files from the gateway's routes: `openapi.json` and
 * `src/generated/schema.ts`. Run `pnpm --filter @chain-intents/client generate` after changing a
 * route; src/freshness.test.ts fails while they are stale.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { generateFiles } from "./openapi.js";

const openapiPath = fileURLToPath(new URL("../openapi.json", import.meta.url));
const schemaPath = fileURLToPath(new URL("../src/generated/schema.ts", import.meta.url));

const files = await generateFiles();
await writeFile(openapiPath, files.openapiJson);
await mkdir(dirname(schemaPath), { recursive: true });
await writeFile(schemaPath, files.schemaTs);
console.log(`wrote ${openapiPath} and ${schemaPath}`);
