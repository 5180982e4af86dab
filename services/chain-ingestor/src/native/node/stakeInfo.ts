import * as $ from "@dedot/shape";
import { hexToU8a } from "@dedot/utils";

/**
 * `StakeInfoRuntimeApi.get_stake_info_for_coldkeys` answers, in runtimes of spec 218's time, a
 * SCALE `Vec<u8>` whose content the metadata does not describe: `Vec<(AccountId32,
 * Vec<StakeInfo>)>` with StakeInfo as in pallets/subtensor/src/rpc_info/stake_info.rs. Newer
 * runtimes return the typed value, which the client decodes from the metadata; both end up here as
 * the same positions.
 */
const $stakeInfo = $.Struct({
  hotkey: $.FixedHex(32),
  coldkey: $.FixedHex(32),
  netuid: $.compactU16,
  stake: $.compactU64,
  locked: $.compactU64,
  emission: $.compactU64,
  drain: $.compactU64,
  isRegistered: $.bool,
});
const $stakeInfoForColdkeys = $.Vec($.Tuple($.FixedHex(32), $.Vec($stakeInfo)));

/** One alpha position of a coldkey, as the runtime computes it (stake in the subnet's alpha; rao on root). */
export interface ColdkeyPosition {
  netuid: number;
  hotkey: `0x${string}`;
  stakeNalpha: bigint;
}

/** Positions by coldkey public key, from the runtime API's answer (bytes or typed). */
export function decodeStakeInfoForColdkeys(answer: unknown): Map<string, ColdkeyPosition[]> {
  const entries = typeof answer === "string" ? $stakeInfoForColdkeys.decode(hexToU8a(answer)) : typedEntries(answer);
  const positions = new Map<string, ColdkeyPosition[]>();
  for (const [coldkey, infos] of entries) {
    const list = infos
      .map((info) => ({
        netuid: Number(info.netuid),
        hotkey: publicKeyOf(info.hotkey),
        stakeNalpha: BigInt(info.stake),
      }))
      .filter((position) => position.stakeNalpha > 0n)
      .sort((a, b) => a.netuid - b.netuid || (a.hotkey < b.hotkey ? -1 : 1));
    positions.set(publicKeyOf(coldkey), list);
  }
  return positions;
}

type StakeEntry = readonly [unknown, readonly { netuid: unknown; hotkey: unknown; stake: unknown }[]];

function typedEntries(answer: unknown): StakeEntry[] {
  if (!Array.isArray(answer)) throw new TypeError("StakeInfoRuntimeApi answered neither bytes nor a list");
  return answer as StakeEntry[];
}

function publicKeyOf(value: unknown): `0x${string}` {
  const raw = typeof value === "object" && value !== null && "raw" in value ? (value as { raw: unknown }).raw : value;
  if (typeof raw !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(raw))
    throw new TypeError(`not an AccountId32: ${String(raw)}`);
  return raw.toLowerCase() as `0x${string}`;
}

const U128_MAX = (1n << 128n) - 1n;
const U64_MAX = (1n << 64n) - 1n;

/**
 * How a runtime values shares. Spec 218's time keeps `Alpha` and `TotalHotkeyShares` as plain u64
 * and values them in I96F32 (`get_stake_for_hotkey_and_coldkey_on_subnet`, staking/alpha.rs:
 * alpha per share to 32 binary fraction digits, times the shares, truncated). Later runtimes keep
 * U64F64 share amounts and value them with the share pool's 64.64 arithmetic
 * (`SharePool::get_value`, primitives/share-pool). The two differ in the last nalpha.
 */
export type ShareArithmetic = "i96f32" | "u64f64";

/** The arithmetic of a stored share amount: a plain u64 is spec 218's, `{ bits }` the share pool's. */
export const shareArithmeticOf = (value: unknown): ShareArithmetic | undefined =>
  typeof value === "bigint"
    ? "i96f32"
    : typeof value === "object" && value !== null && "bits" in value
      ? "u64f64"
      : undefined;

/**
 * A coldkey's alpha on a (hotkey, subnet) as the runtime values it, from `TotalHotkeyAlpha`,
 * `TotalHotkeyShares` and the coldkey's `Alpha` (both share amounts as fixed-point bits, value x
 * 2^64, see `fixedBits`):
 * - "i96f32" (spec 218): 0 when any of the three is 0; else alpha per share = total alpha x 2^32 /
 *   total shares (truncated), times the shares, truncated to an integer;
 * - "u64f64" (later): `SharePool::get_value` in 64.64 fixed point: the division truncates and
 *   yields 0 when the denominator is 0 or the quotient overflows (`checked_div(..).unwrap_or(0)`),
 *   the product truncates and saturates, and the result is the integer part.
 * Both saturate to a u64.
 */
export function shareValue(
  totalAlpha: bigint,
  totalSharesBits: bigint,
  shareBits: bigint,
  arithmetic: ShareArithmetic = "u64f64",
): bigint {
  if (arithmetic === "i96f32") {
    const [totalShares, shares] = [totalSharesBits >> 64n, shareBits >> 64n];
    if (totalShares === 0n || totalAlpha === 0n || shares === 0n) return 0n;
    const value = (((totalAlpha << 32n) / totalShares) * shares) >> 32n;
    return value > U64_MAX ? U64_MAX : value;
  }
  if (totalSharesBits === 0n || shareBits === 0n) return 0n;
  const perShare = (totalAlpha << 128n) / totalSharesBits;
  if (perShare > U128_MAX) return 0n;
  let product = (perShare * shareBits) >> 64n;
  if (product > U128_MAX) product = U128_MAX;
  const value = product >> 64n;
  return value > U64_MAX ? U64_MAX : value;
}

/**
 * A share amount as fixed-point bits (value x 2^64): runtimes of spec 218's time keep `Alpha` and
 * `TotalHotkeyShares` as plain u64 (the share pool converts them with `from_num`), later ones as
 * U64F64 (`{ bits }`). Undefined for any other shape.
 */
export function fixedBits(value: unknown): bigint | undefined {
  if (typeof value === "bigint") return value << 64n;
  const bits =
    typeof value === "object" && value !== null && "bits" in value ? (value as { bits: unknown }).bits : undefined;
  return typeof bits === "bigint" ? bits : undefined;
}
