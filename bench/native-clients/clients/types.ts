/** One event as every client must agree on it: names, phase, and the values of simple events. */
export interface NormalizedEvent {
  pallet: string;
  name: string;
  /** `ApplyExtrinsic:3`, `Initialization`, `Finalization`. */
  phase: string;
  /**
   * The fields, in order, of the events in COMPARED_FIELDS (accounts as 0x public keys, integers
   * in decimal); empty for the others, whose names and phases are still compared.
   */
  fields: string[];
}

export interface NormalizedAccount {
  nonce: number;
  free: string;
}

/** Events whose field values are compared across clients (all fields account ids or integers). */
export const COMPARED_FIELDS = new Set([
  "Balances.Transfer",
  "Balances.Withdraw",
  "Balances.Deposit",
  "Balances.Endowed",
  "System.NewAccount",
  "TransactionPayment.TransactionFeePaid",
  "SubtensorModule.NetworkMaxStakeSet",
]);

/**
 * A client's result as it hands it out (plain objects, codec classes, …), with the conversion to
 * the comparable form kept apart so that timing covers the decoding alone.
 */
export interface Decoded<T> {
  normalize(): T;
}

/** What a client builds from one runtime's metadata (V15 bytes), with no node. */
export interface OfflineDecoder {
  /** The client's own key for System.Events (checked against the well-known one). */
  eventsKey(): string;
  decodeEvents(raw: string): Decoded<NormalizedEvent[]>;
  accountKey(address: string): string;
  decodeAccount(raw: string): Decoded<NormalizedAccount>;
}

/** The client through its own API against the node, as an ingestor would use it. */
export interface LiveClient {
  eventsAt(blockHash: string): Promise<Decoded<NormalizedEvent[]>>;
  accountsAt(blockHash: string, addresses: string[]): Promise<Decoded<NormalizedAccount[]>>;
  disconnect(): Promise<void>;
}

export interface ClientUnderTest {
  name: string;
  /** The npm package and version measured. */
  packageName: string;
  version: string;
  /** How the decoders are obtained (module paths), for the report. */
  via: string;
  /** The modules an ingestor would import to use it this way (for the run-time footprint). */
  imports: string[];
  buildDecoder(metadata: Uint8Array): OfflineDecoder;
  connect(wsUrl: string): Promise<LiveClient>;
}

export function phaseOf(type: string, index?: number): string {
  return index === undefined ? type : `${type}:${index}`;
}
