import { DecodeError } from "@platform/errors/base";
import { Direction } from "@platform/proto/common/v1/network";

/** Pure encodings of the sorted-set members of keys.ts. */

export const pad = (value: number | bigint | string, width: number): string => String(value).padStart(width, "0");

/** Score of a block time (RFC 3339) in a per-account zset: unix seconds. */
export function scoreOf(timestamp: string): number {
  const ms = Date.parse(timestamp);
  if (!Number.isFinite(ms)) throw new DecodeError(`not a block time: ${timestamp}`);
  return Math.floor(ms / 1_000);
}

/** `<block:12>|`: every point member of that block starts so. */
export const pointBlockPrefix = (block: string): string => `${pad(block, 12)}|`;

/** `<block:12>|<hash>|`: the point of that block on that fork. */
export const pointForkPrefix = (block: string, blockHash: string): string =>
  `${pointBlockPrefix(block)}${blockHash.toLowerCase()}|`;

export function pointMember(block: string, blockHash: string, timeMs: number, balance: string): string {
  return `${pointForkPrefix(block, blockHash)}${timeMs}|${balance}`;
}

export interface StoredPoint {
  block: string;
  blockHash: string;
  timeMs: number;
  /** base64 protobuf AccountBalance. */
  balance: string;
}

export function parsePointMember(member: string): StoredPoint | undefined {
  const [block, blockHash, time, balance] = member.split("|");
  if (block === undefined || blockHash === undefined || time === undefined || balance === undefined) return undefined;
  return { block: String(BigInt(block)), blockHash, timeMs: Number(time), balance };
}

/** `<block:12>-<tx:6>-<log+1:7>`: the chain position of an activity. */
export function txPosition(block: string, txIndex: number | undefined, logIndex: number | undefined): string {
  return `${pad(block, 12)}-${pad(txIndex ?? 0, 6)}-${pad(logIndex === undefined ? 0 : logIndex + 1, 7)}`;
}

/** `<position>|<hash>|`: the activities at that position on that fork. */
export const txForkPrefix = (position: string, blockHash: string): string => `${position}|${blockHash.toLowerCase()}|`;

const DIRECTION_LETTER: Record<number, string> = { [Direction.DIRECTION_IN]: "i", [Direction.DIRECTION_OUT]: "o" };

export function txMember(position: string, blockHash: string, activityId: string, direction: Direction): string {
  return `${txForkPrefix(position, blockHash)}${activityId}|${DIRECTION_LETTER[direction] ?? "-"}`;
}
