import { readFile } from "node:fs/promises";
import { z } from "zod";

/**
 * What the services' chains file does not say about tokens and integrators need: each token's
 * name and decimals, per chain name (`deploy/config/<env>/tokens.json`). Decimals are the token
 * contract's own; the e2e test reads them back from the devnet's contracts.
 */
export const tokenCatalogSchema = z.record(
  z.string(),
  z.record(z.string(), z.strictObject({ name: z.string().min(1), decimals: z.number().int().min(0).max(255) })),
);
export type TokenCatalog = z.infer<typeof tokenCatalogSchema>;

export async function loadTokenCatalog(path: string): Promise<TokenCatalog> {
  return tokenCatalogSchema.parse(JSON.parse(await readFile(path, "utf8")));
}
