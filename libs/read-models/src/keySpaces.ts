import { dataChangeLog } from "./changeLogs.js";
import { DATA_PREFIX, INTENTS_PREFIX } from "./hashTags.js";

/**
 * The keys each projection writes: every key of its layout starts with its `prefix` (its read
 * model, offsets, marker, version), and `shared` names, one by one, the keys it writes together
 * with other projections (the data change log). libs/grants grants each projection's Redis user
 * exactly this, so a layout that grows a key outside its prefix must be added here, or the
 * projection's commits are refused (keySpaces.test.ts checks the layouts against it).
 */
export interface ProjectionKeySpace {
  prefix: string;
  shared: readonly string[];
}

export const projectionKeySpaces = {
  intents: { prefix: INTENTS_PREFIX, shared: [] },
  accounts: { prefix: `${DATA_PREFIX}accounts:`, shared: [dataChangeLog.key] },
  market: { prefix: `${DATA_PREFIX}market:`, shared: [dataChangeLog.key] },
  subnets: { prefix: `${DATA_PREFIX}subnets:`, shared: [dataChangeLog.key] },
} as const satisfies Record<string, ProjectionKeySpace>;

export type ProjectionName = keyof typeof projectionKeySpaces;
export const PROJECTION_NAMES = Object.keys(projectionKeySpaces) as ProjectionName[];
