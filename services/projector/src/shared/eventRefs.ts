import { DecodeError } from "@platform/errors/base";
import type { ChainRef } from "@platform/proto/common/v1/common";

/** Block, hash and time of a ChainRef; throws when the ref is missing or malformed. */
export function refPosition(ref: ChainRef | undefined): { block: number; hash: string; time: number } {
  if (ref === undefined) throw new DecodeError("the event carries no ChainRef");
  const block = Number(ref.blockNumber);
  const time = Date.parse(ref.blockTimestamp);
  if (!Number.isSafeInteger(block) || block < 0) throw new DecodeError(`bad block number ${ref.blockNumber}`);
  if (!Number.isFinite(time)) throw new DecodeError(`bad block timestamp ${ref.blockTimestamp}`);
  return { block, hash: ref.blockHash.toLowerCase(), time };
}

/** `netuid:<n>` -> n. */
export function netuidOfKey(key: string): number {
  const match = /^netuid:(\d{1,5})$/.exec(key);
  if (match === null) throw new DecodeError(`not a netuid key: ${key}`);
  return Number(match[1]);
}
