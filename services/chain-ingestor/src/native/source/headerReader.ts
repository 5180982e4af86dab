import type { HeaderReader } from "../../follower/headerReader.js";
import type { NativeChainReader } from "../node/chainReader.js";

export interface NativeHeaderReader extends HeaderReader {
  /** The finalized head's number as of the last `latestBlockNumber()`; undefined before the first. */
  finalizedHead(): bigint | undefined;
}

/**
 * The follower's view of the native network: it follows the best chain (so reorganisations of
 * unfinalized blocks are seen and taken back) and remembers the finalized head for the records'
 * finality.
 */
export function nativeHeaderReader(reader: NativeChainReader): NativeHeaderReader {
  let finalized: bigint | undefined;
  return {
    async latestBlockNumber() {
      const heads = await reader.heads();
      finalized = heads.finalized;
      return heads.best;
    },
    headersAt: (numbers) => reader.headersAt(numbers),
    finalizedHead: () => finalized,
  };
}
