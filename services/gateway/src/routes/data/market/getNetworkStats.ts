import { callUnary } from "@platform/grpc";
import { defineRoute } from "@platform/http";
import type { MarketServiceClient } from "@platform/proto/data/v1/market";
import { z } from "zod";
import { networkStatsExample } from "../examples.js";
import { BLOCK_ERRORS, DATA_SCOPE, halAnswer, halSuccess, INVALID_PARAMETER, metadataOf } from "../shared/answer.js";
import { blockNumberShape, blockSelectorOf } from "../shared/schemas.js";
import { NetworkStatsSchema } from "./marketSchemas.js";
import { renderNetworkStats } from "./renderMarket.js";

/** `GET /data/v1/network/stats/latest`: issuance, stake, emission, counts, volume and registration costs. */
export function getNetworkStatsRoute(market: MarketServiceClient) {
  return defineRoute({
    method: "get",
    path: "/data/v1/network/stats/latest",
    operationId: "getNetworkStatsLatest",
    scope: DATA_SCOPE,
    query: z.object(blockNumberShape()),
    docs: {
      summary: "Latest network totals",
      description:
        "Issuance, stake (root and alpha pools), locked and free TAO, block emission, subnet counts, indexer counts (null where ingestion cannot know them), 24 h volume, and subnet and neuron registration costs. free_rao is derived (issuance - stake - locked), null when the issuance does not cover them. From the native runtime: accounts_count is the number of System.Account entries; extrinsics_count (extrinsics in the blocks' bodies) and transfers_count (Balances.Transfer events) are counted over the blocks ingestion followed, from counted_since_block through as_of: counted_since_block 0 or 1 means from genesis, so they are the chain's totals, and a later block means ingestion started there and they count from it only; a reorganisation takes an orphaned block's counts back; the three are null only before the first counted block. balance_holders_count is null (the chain keeps no such count, and no block's events tell it); the subnet registration cost is the runtime's get_network_lock_cost at the block; swap_volume_24h_rao is null while the runtime keeps no SubnetVolume.",
      tags: ["Data: market"],
      success: halSuccess(NetworkStatsSchema, "The network totals at as_of", renderNetworkStats(networkStatsExample)),
      errors: [INVALID_PARAMETER, ...BLOCK_ERRORS],
    },
    async handle({ query, context }) {
      const answer = await callUnary(
        market,
        market.getNetworkStatsLatest,
        { at: blockSelectorOf(query.block_number) },
        metadataOf(context),
      );
      return halAnswer(renderNetworkStats(answer, { block_number: query.block_number }), query.block_number);
    },
  });
}
