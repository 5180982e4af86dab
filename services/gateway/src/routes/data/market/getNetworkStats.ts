import { callUnary } from "@platform/grpc";
import type { MarketServiceClient } from "@platform/proto/data/v1/market";
import { networkStatsExample } from "../examples.js";
import { INVALID_PARAMETER } from "../shared/answer.js";
import { latestRoute } from "../shared/latestRoute.js";
import { NetworkStatsSchema } from "./marketSchemas.js";
import { renderNetworkStats } from "./renderMarket.js";

/** `GET /data/v1/network/stats/latest`: issuance, stake, emission, counts, volume and registration costs. */
export function getNetworkStatsRoute(market: MarketServiceClient) {
  return latestRoute({
    path: "/data/v1/network/stats/latest",
    operationId: "getNetworkStatsLatest",
    summary: "Latest network totals",
    description:
      "Issuance, stake (root and alpha pools), locked and free TAO, block emission, subnet counts, indexer counts (null where ingestion cannot know them), 24 h volume, and subnet and neuron registration costs. free_rao is derived (issuance - stake - locked), null when the issuance does not cover them. From the native runtime: accounts_count is the number of System.Account entries; extrinsics_count (extrinsics in the blocks' bodies) and transfers_count (Balances.Transfer events) are counted over the blocks ingestion followed, from counted_since_block through as_of: counted_since_block 0 or 1 means from genesis, so they are the chain's totals, and a later block means ingestion started there and they count from it only; a reorganisation takes an orphaned block's counts back; the three are null only before the first counted block. balance_holders_count is null (the chain keeps no such count, and no block's events tell it); the subnet registration cost is the runtime's get_network_lock_cost at the block; swap_volume_24h_rao sums the pools' volume_24h_rao (subnet-pools/latest): TAO swapped by stakes and unstakes, both directions, from the runtime's SubnetVolume or, without it (spec 218), from the pools' stake events.",
    tags: ["Data: market"],
    own: {},
    success: {
      schema: NetworkStatsSchema,
      description: "The network totals at as_of",
      example: renderNetworkStats(networkStatsExample),
    },
    errors: [INVALID_PARAMETER],
    call: ({ at }, metadata) => callUnary(market, market.getNetworkStatsLatest, { at }, metadata),
    linkQuery: () => ({}),
    render: (answer, links) => renderNetworkStats(answer, links),
  });
}
