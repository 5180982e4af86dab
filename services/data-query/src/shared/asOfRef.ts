import { unavailable } from "@platform/errors";
import { type AsOf, type ChainRef, Finality } from "@platform/proto/common/v1/common";

/** The as_of of an answer taken from the snapshot it reflects. */
export function asOfOf(ref: ChainRef | undefined): AsOf {
  if (ref === undefined)
    throw unavailable("READ_MODEL_UNAVAILABLE", "the read model holds a snapshot without its block; retry shortly");
  return {
    chainId: ref.chainId,
    blockNumber: ref.blockNumber,
    blockHash: ref.blockHash,
    timestamp: ref.blockTimestamp,
    finality: ref.finality === Finality.FINALITY_UNSPECIFIED ? Finality.FINALITY_LATEST : ref.finality,
  };
}

export const notYet = (what: string) =>
  unavailable("READ_MODEL_UNAVAILABLE", `no ${what} has been projected yet; retry shortly`);
