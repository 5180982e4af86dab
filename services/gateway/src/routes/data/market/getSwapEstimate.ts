import { callUnary } from "@platform/grpc";
import { patternString } from "@platform/http";
import { type MarketServiceClient, SwapDirection } from "@platform/proto/data/v1/market";
import { z } from "zod";
import { swapEstimateExample } from "../examples.js";
import { INVALID_PARAMETER, NETUID_NOT_FOUND } from "../shared/answer.js";
import { latestRoute } from "../shared/latestRoute.js";
import { netuidPath } from "../shared/schemas.js";
import { renderSwapEstimate, SwapEstimateSchema } from "./renderSwapEstimate.js";

const DIRECTIONS = {
  stake: SwapDirection.SWAP_DIRECTION_STAKE,
  unstake: SwapDirection.SWAP_DIRECTION_UNSTAKE,
} as const;

/**
 * At most 19 digits: every such amount is a u64 (the runtime's amounts), and 10^19 rao is far
 * above the supply, so the pattern is the whole rule and a value it allows is never refused.
 */
const AMOUNT = /^[1-9][0-9]{0,18}$/;

/** `GET /data/v1/subnet-pools/{netuid}/swap-estimate`: a stake or unstake computed with the runtime's swap against the pool at as_of. */
export function getSwapEstimateRoute(market: MarketServiceClient) {
  return latestRoute({
    path: "/data/v1/subnet-pools/:netuid/swap-estimate",
    operationId: "getSubnetPoolSwapEstimate",
    summary: "Estimate a stake or unstake through a subnet's pool",
    description:
      "The output of a stake (TAO in, alpha out) or an unstake (alpha in, TAO out) of `amount`, computed with the runtime's own swap arithmetic (Subtensor spec 218 swap_tao_for_alpha / swap_alpha_for_tao: a constant product over SubnetTAO and SubnetAlphaIn in I96F32 fixed point, the result rounded down to the base unit; 1:1 in a stable pool), against the pool at as_of, with the spot and effective prices, the price impact, the fee (none in this runtime) and the pool before and after. Valid for that pool state only: a swap in a later block meets the pool as that block leaves it before the swap (its coinbase adds emission to the reserves first, and earlier swaps in the block move it), and gets the same arithmetic's result on that pool. With block_number, the pool at that block.",
    tags: ["Data: market"],
    params: z.object({ netuid: netuidPath() }),
    own: {
      direction: z
        .enum(["stake", "unstake"], { error: "must be stake or unstake" })
        .meta({ description: "stake: TAO in, alpha out; unstake: alpha in, TAO out" }),
      amount: patternString(AMOUNT, {
        message: "must be an integer amount in base units, 1 to 9999999999999999999",
        code: "INVALID_PARAMETER",
      }).meta({
        description:
          "What goes in, in base units: rao (1e-9 TAO) to stake, nano-alpha (1e-9 alpha) to unstake; 1 to 9999999999999999999",
      }),
    },
    success: {
      schema: SwapEstimateSchema,
      description: "The swap's expected output at as_of",
      example: renderSwapEstimate(swapEstimateExample, { direction: "stake", amount: "10000000000" }),
    },
    errors: [INVALID_PARAMETER, NETUID_NOT_FOUND],
    call: ({ query, params, at }, metadata) =>
      callUnary(
        market,
        market.getSwapEstimate,
        { netuid: params.netuid, direction: DIRECTIONS[query.direction], amount: query.amount, at },
        metadata,
      ),
    linkQuery: (query) => ({ direction: query.direction, amount: query.amount }),
    render: (answer, links) => renderSwapEstimate(answer, links),
  });
}
