import { component, halResource, hrefWithQuery } from "@platform/http";
import { PoolMechanism } from "@platform/proto/common/v1/network";
import { type GetSwapEstimateResponse, SwapDirection } from "@platform/proto/data/v1/market";
import { z } from "zod";
import { poolsHref } from "../shared/links.js";
import { type LinkQuery, mechanismName, orNull, renderAsOf, shortNames } from "../shared/render.js";
import { asOf, baseUnits, decimal, enumName, link, linksOf, netuid, nullableDecimal } from "../shared/wire.js";

export const swapEstimateHref = (netuid: number) => `/data/v1/subnet-pools/${netuid}/swap-estimate`;

export const SwapEstimateSchema = component(
  "SwapEstimate",
  z.object({
    _links: linksOf({
      self: link("This estimate, with its query"),
      pool: link("The subnet's pool (subnet-pools/latest)"),
    }),
    as_of: asOf(),
    netuid: netuid().meta({ description: "The subnet whose pool the swap goes through" }),
    direction: enumName(
      shortNames(SwapDirection, "SWAP_DIRECTION_"),
      "stake: TAO in, alpha out (add_stake); unstake: alpha in, TAO out (remove_stake)",
    ),
    tao_rao: baseUnits("The TAO side, rao (1e-9 TAO): paid in to stake, or the expected TAO out of an unstake"),
    alpha_nalpha: baseUnits(
      "The alpha side, nano-alpha (1e-9 alpha): the expected alpha out of a stake, or paid in to unstake",
    ),
    spot_price_tao: decimal(
      "TAO per alpha at the margin before the swap: the pool's SubnetTAO / SubnetAlphaIn (the constant product's price), 1 for a stable pool",
    ),
    effective_price_tao: nullableDecimal(
      "TAO per alpha of this swap: tao_rao / alpha_nalpha; null when the alpha side is 0",
    ),
    price_impact: nullableDecimal(
      "The share of the output lost against a swap at spot_price_tao, a ratio: 0.01 means 1 %. 1 − output ÷ (input at the spot price). Null when the pool has an empty reserve (no spot price); negative only where the runtime's fixed-point product saturates (SubnetTAO × SubnetAlphaIn above about 3.96e28), which pays more than the spot price",
    ),
    fee_rao: baseUnits(
      "The swap fee, rao: 0 in this runtime (spec 218), whose swap takes none; the extrinsic's transaction fee is charged apart",
    ),
    mechanism: enumName(
      shortNames(PoolMechanism, "POOL_MECHANISM_"),
      "The pool's swap mechanism: dynamic (constant product) or stable (1:1, root)",
    ),
    pool: z
      .object({
        tao_in_rao: baseUnits("SubnetTAO at as_of, rao: the pool's TAO reserve the swap was computed against"),
        alpha_in_nalpha: baseUnits(
          "SubnetAlphaIn at as_of, nano-alpha: the pool's alpha reserve the swap was computed against",
        ),
        tao_in_after_rao: baseUnits("SubnetTAO as the swap would leave it, rao"),
        alpha_in_after_nalpha: baseUnits("SubnetAlphaIn as the swap would leave it, nano-alpha"),
      })
      .meta({ description: "The pool state the estimate used (at as_of), and after the swap" }),
  }),
);

export function renderSwapEstimate(
  answer: GetSwapEstimateResponse,
  query: LinkQuery,
): z.output<typeof SwapEstimateSchema> {
  return halResource(
    {
      self: { href: hrefWithQuery(swapEstimateHref(answer.netuid), query) },
      pool: { href: poolsHref(answer.netuid) },
    },
    {
      as_of: renderAsOf(answer.asOf),
      netuid: answer.netuid,
      direction: answer.direction === SwapDirection.SWAP_DIRECTION_UNSTAKE ? "unstake" : "stake",
      tao_rao: answer.taoRao,
      alpha_nalpha: answer.alphaNalpha,
      spot_price_tao: answer.spotPriceTao,
      effective_price_tao: orNull(answer.effectivePriceTao),
      price_impact: orNull(answer.priceImpact),
      fee_rao: answer.feeRao,
      mechanism: mechanismName(answer.mechanism),
      pool: {
        tao_in_rao: answer.poolTaoInRao,
        alpha_in_nalpha: answer.poolAlphaInNalpha,
        tao_in_after_rao: answer.poolTaoInAfterRao,
        alpha_in_after_nalpha: answer.poolAlphaInAfterNalpha,
      },
    },
  );
}
