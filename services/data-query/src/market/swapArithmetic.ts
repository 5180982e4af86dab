import { PoolMechanism } from "@platform/proto/common/v1/network";

/**
 * The swap of the runtime this platform follows (Subtensor spec 218, `stake_utils.rs`
 * `swap_tao_for_alpha` / `swap_alpha_for_tao`), step for step, so that an estimate equals what a
 * stake or an unstake in the next block gets from the same pool. A dynamic pool is a constant
 * product over `SubnetTAO` and `SubnetAlphaIn`, computed in the runtime's `I96F32` fixed point
 * (128-bit signed, 32 fraction bits) with its saturating operations; a stable pool (root) swaps
 * 1:1. This runtime takes no swap fee (later runtimes do: their arithmetic is not this one).
 *
 * The fixed point is emulated on bigint: a value is its raw i128, value × 2^32.
 */

const FRACTION_BITS = 32n;
const RAW_MAX = (1n << 127n) - 1n;
const RAW_MIN = -(1n << 127n);
const U64_MAX = (1n << 64n) - 1n;

/** The pool state a swap reads. */
export interface SwapPool {
  mechanism: PoolMechanism;
  /** `SubnetTAO`, rao. */
  taoIn: bigint;
  /** `SubnetAlphaIn`, nano-alpha. */
  alphaIn: bigint;
}

const saturate = (raw: bigint): bigint => (raw > RAW_MAX ? RAW_MAX : raw < RAW_MIN ? RAW_MIN : raw);
/** `I96F32::from_num(u64)`: exact. */
const fromU64 = (value: bigint): bigint => value << FRACTION_BITS;
/** `saturating_mul`: the product's fraction bits cut (bigint's shift rounds toward −∞, as the fixed crate does). */
const saturatingMul = (a: bigint, b: bigint): bigint => saturate((a * b) >> FRACTION_BITS);
const saturatingAdd = (a: bigint, b: bigint): bigint => saturate(a + b);
const saturatingSub = (a: bigint, b: bigint): bigint => saturate(a - b);
/** `checked_div`: undefined by zero or out of range; the quotient truncated (operands here are never negative). */
function checkedDiv(a: bigint, b: bigint): bigint | undefined {
  if (b === 0n) return undefined;
  const quotient = (a << FRACTION_BITS) / b;
  return quotient > RAW_MAX || quotient < RAW_MIN ? undefined : quotient;
}
/** `to_num::<u64>()`: the fraction dropped, toward −∞. */
function toU64(raw: bigint): bigint {
  const value = raw >> FRACTION_BITS;
  if (value < 0n || value > U64_MAX) throw new RangeError(`swap result ${value} is not a u64`);
  return value;
}

/** reserveOut − k / (reserveIn + amount), k = reserveOut × reserveIn: the constant product's output, as the runtime computes it. */
function constantProductOut(reserveOut: bigint, reserveIn: bigint, amount: bigint): bigint {
  const out = fromU64(reserveOut);
  const into = fromU64(reserveIn);
  const k = saturatingMul(out, into);
  const quotient = checkedDiv(k, saturatingAdd(into, fromU64(amount))) ?? 0n;
  return toU64(saturatingSub(out, quotient));
}

/** The alpha (nano) a stake of `tao` rao buys: `swap_tao_for_alpha`. */
export function swapTaoForAlpha(pool: SwapPool, tao: bigint): bigint {
  checkU64(tao);
  return pool.mechanism === PoolMechanism.POOL_MECHANISM_DYNAMIC
    ? constantProductOut(pool.alphaIn, pool.taoIn, tao)
    : tao;
}

/** The TAO (rao) an unstake of `alpha` nano-alpha pays: `swap_alpha_for_tao`. */
export function swapAlphaForTao(pool: SwapPool, alpha: bigint): bigint {
  checkU64(alpha);
  return pool.mechanism === PoolMechanism.POOL_MECHANISM_DYNAMIC
    ? constantProductOut(pool.taoIn, pool.alphaIn, alpha)
    : alpha;
}

function checkU64(amount: bigint): void {
  if (amount < 0n || amount > U64_MAX) throw new RangeError(`swap amount ${amount} is not a u64`);
}

/** The reserves after the swap, as the runtime's saturating u64 updates leave them. */
export function poolAfter(
  pool: SwapPool,
  direction: "stake" | "unstake",
  amountIn: bigint,
  amountOut: bigint,
): SwapPool {
  const add = (a: bigint, b: bigint) => (a + b > U64_MAX ? U64_MAX : a + b);
  const sub = (a: bigint, b: bigint) => (a > b ? a - b : 0n);
  return direction === "stake"
    ? { ...pool, taoIn: add(pool.taoIn, amountIn), alphaIn: sub(pool.alphaIn, amountOut) }
    : { ...pool, taoIn: sub(pool.taoIn, amountOut), alphaIn: add(pool.alphaIn, amountIn) };
}
