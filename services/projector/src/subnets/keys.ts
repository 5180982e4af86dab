import { subnetsKeys } from "@platform/read-models";
import type { SeriesLayout } from "../shared/seriesStore.js";

// How long the projector keeps each series; the layout itself is libs/read-models subnets.ts.

export type SubnetsKind = "subnet" | "validators" | "validatorFlags" | "pool" | "emission" | "holders";

const KEEP: Record<SubnetsKind, number> = {
  subnet: 64,
  validators: 8,
  validatorFlags: 8,
  pool: 64,
  emission: 64,
  holders: 4,
};
const POINTS: Record<SubnetsKind, (netuid: number) => string> = {
  subnet: subnetsKeys.subnetPoints,
  validators: subnetsKeys.validatorPoints,
  validatorFlags: subnetsKeys.validatorFlagPoints,
  pool: subnetsKeys.poolPoints,
  emission: subnetsKeys.emissionPoints,
  holders: subnetsKeys.holderPoints,
};

export const subnetsLayout = (kind: SubnetsKind, netuid: number): SeriesLayout => ({
  points: POINTS[kind](netuid),
  buckets: {},
  keepPoints: KEEP[kind],
});
