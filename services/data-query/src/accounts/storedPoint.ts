import { AccountBalance } from "@platform/proto/events/v1/chain_network";

/** A balance point as the accounts projection stores it (`rm:{data}:accounts:points:<pk>` member). */
export interface BalanceAt {
  block: string;
  blockHash: string;
  timeMs: number;
  balance: AccountBalance;
}

/** Parses `<block:12>|<blockHash>|<timeMs>|<base64 AccountBalance>`; undefined for anything else. */
export function parsePoint(member: string): BalanceAt | undefined {
  const [block, blockHash, time, balance] = member.split("|");
  if (
    block === undefined ||
    blockHash === undefined ||
    time === undefined ||
    balance === undefined ||
    !/^\d+$/.test(block)
  )
    return undefined;
  return {
    block: String(BigInt(block)),
    blockHash,
    timeMs: Number(time),
    balance: AccountBalance.decode(Buffer.from(balance, "base64")),
  };
}

export const ZERO_BALANCE: AccountBalance = {
  freeRao: "0",
  reservedRao: "0",
  frozenRao: "0",
  positions: [],
  rewards: [],
};
