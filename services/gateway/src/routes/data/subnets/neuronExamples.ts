import type { GetNeuronsLatestResponse } from "@platform/proto/data/v1/subnets";
import { ALICE, CHARLIE, EXAMPLE_AS_OF, EXAMPLE_CURSOR } from "../examples.js";

/** A miner of subnet 64 at the examples' block: no stake, no permit, still immune. */
export const neuronsLatestExample: GetNeuronsLatestResponse = {
  asOf: EXAMPLE_AS_OF,
  netuid: 64,
  neurons: [
    {
      uid: 17,
      hotkey: CHARLIE,
      coldkey: ALICE,
      alphaStakeNalpha: "0",
      rootStakeRao: "0",
      totalStakeValueRao: "0",
      rank: "0.04211032",
      trust: "0.96873426",
      consensus: "0.0421973",
      incentive: "0.04211032",
      dividends: "0",
      emissionNalpha: "3069125843",
      validatorPermit: false,
      validatorTrust: "0",
      active: true,
      axon: { ip: "203.0.113.7", port: 8091, ipType: 4, protocol: 4, version: 9001000, block: "7011800" },
      registeredAtBlock: "7009000",
      immunity: { inPeriod: true, blocksLeft: "3855", immunityPeriod: 7200 },
      pruningScore: "0.04211032",
      lastUpdateBlock: "7012100",
    },
  ],
  page: { limit: 1, nextCursor: EXAMPLE_CURSOR, hasMore: true },
};
