import type { ChainableCommander } from "ioredis";

/**
 * Runs a pipeline (or MULTI) and answers each command's reply in order; the first command that
 * failed throws its own error, so a caller never reads a reply that is not there.
 */
export async function execPipeline(pipeline: ChainableCommander): Promise<unknown[]> {
  const results = (await pipeline.exec()) ?? [];
  return results.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}
