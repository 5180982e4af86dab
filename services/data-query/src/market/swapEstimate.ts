import { invalidArgument } from "@platform/errors";
import type { HistoryDb } from "@platform/history";
import { PoolMechanism } from "@platform/proto/common/v1/network";
import {
  type GetSwapEstimateRequest,
  type GetSwapEstimateResponse,
  SwapDirection,
} from "@platform/proto/data/v1/market";
import { PoolSnapshot } from "@platform/proto/events/v1/chain_network";
import type { Redis } from "@platform/store";
import { MARKET_POOLS } from "../shared/netuidsAt.js";
import { ratio } from "../shared/numbers.js";
import { wantedOf } from "../shared/pastBlock.js";
import { snapshotsAtHead, snapshotsAtPast } from "../shared/snapshotsAt.js";
import { poolAfter, type SwapPool, swapAlphaForTao, swapTaoForAlpha } from "./swapArithmetic.js";

const U64_MAX = (1n << 64n) - 1n;

/**
 * `GET /data/v1/subnet-pools/{netuid}/swap-estimate`: a stake or an unstake of `amount` computed
 * with the runtime's swap (swapArithmetic.ts) against the subnet's pool at the newest block, or at
 * the block asked for.
 */
export async function getSwapEstimate(
  redis: Redis,
  request: GetSwapEstimateRequest,
  history?: HistoryDb,
): Promise<GetSwapEstimateResponse> {
  const direction = directionOf(request.direction);
  const amount = amountOf(request.amount);
  const wanted = wantedOf(request.at);
  const choice = { requested: [request.netuid] };
  const { snapshots, asOf } =
    wanted === undefined
      ? await snapshotsAtHead(redis, MARKET_POOLS, PoolSnapshot, choice, "pool")
      : await snapshotsAtPast({ redis, history }, MARKET_POOLS, PoolSnapshot, { ...choice, wanted }, "pool");
  const snapshot = snapshots[0]!;
  const pool: SwapPool = {
    // As subnet-pools/latest shows it: a snapshot without a mechanism is a dynamic pool.
    mechanism:
      snapshot.mechanism === PoolMechanism.POOL_MECHANISM_UNSPECIFIED
        ? PoolMechanism.POOL_MECHANISM_DYNAMIC
        : snapshot.mechanism,
    taoIn: BigInt(snapshot.taoInRao),
    alphaIn: BigInt(snapshot.alphaInNalpha),
  };
  const out = direction === "stake" ? swapTaoForAlpha(pool, amount) : swapAlphaForTao(pool, amount);
  const [tao, alpha] = direction === "stake" ? [amount, out] : [out, amount];
  const after = poolAfter(pool, direction, amount, out);
  const estimate: GetSwapEstimateResponse = {
    asOf,
    netuid: snapshot.netuid,
    direction: request.direction,
    taoRao: tao.toString(),
    alphaNalpha: alpha.toString(),
    spotPriceTao: spotPrice(pool),
    feeRao: "0",
    mechanism: pool.mechanism,
    poolTaoInRao: pool.taoIn.toString(),
    poolAlphaInNalpha: pool.alphaIn.toString(),
    poolTaoInAfterRao: after.taoIn.toString(),
    poolAlphaInAfterNalpha: after.alphaIn.toString(),
  };
  if (alpha > 0n) estimate.effectivePriceTao = ratio(tao.toString(), alpha.toString());
  const impact = priceImpact(pool, direction, amount, out);
  if (impact !== undefined) estimate.priceImpact = impact;
  return estimate;
}

function directionOf(direction: SwapDirection): "stake" | "unstake" {
  if (direction === SwapDirection.SWAP_DIRECTION_STAKE) return "stake";
  if (direction === SwapDirection.SWAP_DIRECTION_UNSTAKE) return "unstake";
  throw invalidArgument("INVALID_PARAMETER", "direction must be stake or unstake", { parameter: "direction" });
}

function amountOf(amount: string): bigint {
  const value = /^[0-9]{1,20}$/.test(amount) ? BigInt(amount) : undefined;
  if (value === undefined || value < 1n || value > U64_MAX)
    throw invalidArgument("INVALID_PARAMETER", "amount must be an integer from 1 to 18446744073709551615", {
      parameter: "amount",
    });
  return value;
}

/** TAO per alpha at the margin: the constant product's SubnetTAO / SubnetAlphaIn, 1 for a stable pool. */
function spotPrice(pool: SwapPool): string {
  if (pool.mechanism !== PoolMechanism.POOL_MECHANISM_DYNAMIC) return "1";
  return ratio(pool.taoIn.toString(), pool.alphaIn.toString());
}

/**
 * 1 − output ÷ (input at the spot price): a stake's ideal alpha is tao × alphaIn ÷ taoIn, an
 * unstake's ideal TAO alpha × taoIn ÷ alphaIn. Undefined without a spot price (an empty reserve).
 */
function priceImpact(
  pool: SwapPool,
  direction: "stake" | "unstake",
  amountIn: bigint,
  amountOut: bigint,
): string | undefined {
  if (pool.mechanism !== PoolMechanism.POOL_MECHANISM_DYNAMIC) return "0";
  if (pool.taoIn === 0n || pool.alphaIn === 0n) return undefined;
  // Over a common denominator: ideal = amountIn × reserveOut ÷ reserveIn, so
  // impact = (amountIn × reserveOut − amountOut × reserveIn) ÷ (amountIn × reserveOut).
  const [reserveIn, reserveOut] = direction === "stake" ? [pool.taoIn, pool.alphaIn] : [pool.alphaIn, pool.taoIn];
  const ideal = amountIn * reserveOut;
  // Negative only where the runtime's I96F32 product saturates (SubnetTAO × SubnetAlphaIn above
  // ~3.96e28): the swap then pays more than the spot price, and the estimate says so.
  return ratio((ideal - amountOut * reserveIn).toString(), ideal.toString());
}
