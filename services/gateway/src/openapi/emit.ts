import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { defaultGatewayDocument } from "./document.js";

/**
 * Writes the gateway's OpenAPI document, pretty-printed, to the path given (the build writes
 * dist/openapi.json, which the package exports as `@platform/gateway/openapi.json` and the client
 * is generated from), or to standard output when none is given.
 */
const text = `${JSON.stringify(defaultGatewayDocument(), null, 2)}\n`;
const target = process.argv[2];
if (target === undefined) process.stdout.write(text);
else {
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, text);
}
