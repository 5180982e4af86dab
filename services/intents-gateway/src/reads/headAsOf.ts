import { type AsOf, Finality } from "@platform/proto/common/v1/common";

/**
 * The projection's head hash `{blockNumber, blockHash, timestamp, ...}` as an AsOf. The timestamp
 * may be unix seconds, unix milliseconds or RFC 3339; it comes out RFC 3339. A hash without a block
 * number (absent key) is no head.
 */
export function headAsOf(chainId: string, head: Record<string, string>): AsOf | undefined {
  const blockNumber = head["blockNumber"];
  if (blockNumber === undefined || !/^\d+$/.test(blockNumber)) return undefined;
  return {
    chainId,
    blockNumber,
    blockHash: head["blockHash"] ?? "",
    timestamp: rfc3339(head["timestamp"]),
    // The mirror's head is the chain's latest block it has read.
    finality: Finality.FINALITY_LATEST,
  };
}

function rfc3339(value: string | undefined): string {
  if (value === undefined || value === "") return "";
  if (/^\d+$/.test(value)) {
    const number = Number(value);
    // Seconds until the year 33658; anything larger is milliseconds.
    return new Date(number < 1e12 ? number * 1_000 : number).toISOString();
  }
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? value : parsed.toISOString();
}
