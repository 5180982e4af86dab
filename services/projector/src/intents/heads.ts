import type { ChainHeadAdvanced } from "@platform/proto/events/v1/chain";

/** A followed chain's head as the mirror last saw it (`rm:{intents}:head:<chainId>`). */
export interface HeadState {
  chainId: string;
  blockNumber: string;
  blockHash: string;
  /** RFC 3339, the head block's own time. */
  timestamp: string;
  safeBlockNumber?: string;
  finalizedBlockNumber?: string;
}

export function headFromEvent(event: ChainHeadAdvanced): HeadState | undefined {
  const head = event.head;
  if (head === undefined) return undefined;
  return {
    chainId: head.chainId,
    blockNumber: head.blockNumber,
    blockHash: head.blockHash,
    timestamp: head.blockTimestamp,
    ...(event.safeBlockNumber === undefined ? {} : { safeBlockNumber: event.safeBlockNumber }),
    ...(event.finalizedBlockNumber === undefined ? {} : { finalizedBlockNumber: event.finalizedBlockNumber }),
  };
}

/** The head's time in unix seconds (fill deadlines are compared in the contract's unit). */
export function headSeconds(head: HeadState): number {
  return Math.floor(Date.parse(head.timestamp) / 1_000);
}

export function headToHash(head: HeadState): Record<string, string> {
  const hash: Record<string, string> = {
    blockNumber: head.blockNumber,
    blockHash: head.blockHash,
    timestamp: head.timestamp,
  };
  if (head.safeBlockNumber !== undefined) hash.safeBlockNumber = head.safeBlockNumber;
  if (head.finalizedBlockNumber !== undefined) hash.finalizedBlockNumber = head.finalizedBlockNumber;
  return hash;
}

export function headFromHash(chainId: string, hash: Record<string, string>): HeadState | undefined {
  const { blockNumber, blockHash, timestamp } = hash;
  if (blockNumber === undefined || blockHash === undefined || timestamp === undefined) return undefined;
  return {
    chainId,
    blockNumber,
    blockHash,
    timestamp,
    ...(hash.safeBlockNumber === undefined ? {} : { safeBlockNumber: hash.safeBlockNumber }),
    ...(hash.finalizedBlockNumber === undefined ? {} : { finalizedBlockNumber: hash.finalizedBlockNumber }),
  };
}
