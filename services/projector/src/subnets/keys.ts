import { subnetsKeys } from "@platform/read-models";
import type { SeriesLayout } from "../shared/seriesStore.js";

// How long the projector keeps each series; the layout itself is libs/read-models subnets.ts.

export type SubnetsKind =
  | "subnet"
  | "validators"
  | "validatorFlags"
  | "rootStakes"
  | "pool"
  | "emission"
  | "holders"
  | "yieldIndex";

const KEEP: Record<SubnetsKind, number> = {
  subnet: 64,
  validators: 8,
  validatorFlags: 8,
  // Root stakes move on most epoch blocks (129 of every 361 at Tempo 360): enough to reach back to
  // the oldest of the 8 metagraphs kept, which may lie 8 tempos back.
  rootStakes: 1_500,
  pool: 64,
  emission: 64,
  holders: 4,
  // One point per epoch that paid dividends: a day of Finney epochs (360 blocks), older ones in PostgreSQL.
  yieldIndex: 64,
};
const POINTS: Record<SubnetsKind, (netuid: number) => string> = {
  subnet: subnetsKeys.subnetPoints,
  validators: subnetsKeys.validatorPoints,
  validatorFlags: subnetsKeys.validatorFlagPoints,
  rootStakes: subnetsKeys.validatorRootStakePoints,
  pool: subnetsKeys.poolPoints,
  emission: subnetsKeys.emissionPoints,
  holders: subnetsKeys.holderPoints,
  yieldIndex: subnetsKeys.yieldIndexPoints,
};

export const subnetsLayout = (kind: SubnetsKind, netuid: number): SeriesLayout => ({
  points: POINTS[kind](netuid),
  buckets: {},
  keepPoints: KEEP[kind],
});
