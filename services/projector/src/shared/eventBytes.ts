import type { ConsumedRecord } from "@platform/bus";

/**
 * The bytes of a chain.network.v1 record's event (the one field its oneof holds), sliced from the
 * record's value instead of decoding it and encoding the event again: the projections store each
 * snapshot's own bytes as a series point, and at mainnet size an epoch block's ~100 metagraphs of
 * 256 neurons made that re-encoding a large part of the subnets projection's time. Undefined when
 * the value is not exactly one length-delimited field (the caller encodes then).
 */
export function eventBytes(value: Uint8Array): Uint8Array | undefined {
  let at = 0;
  const varint = (): number | undefined => {
    let result = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (at >= value.length) return undefined;
      const byte = value[at++]!;
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
    }
    return undefined;
  };
  const tag = varint();
  if (tag === undefined || (tag & 0x07) !== 2) return undefined;
  const length = varint();
  if (length === undefined || at + length !== value.length) return undefined;
  return value.subarray(at);
}

/** A record's event bytes, or the event encoded again where they cannot be sliced. */
export function eventBytesOr(message: Pick<ConsumedRecord, "value">, encode: () => Uint8Array): Uint8Array {
  return (message.value === null ? undefined : eventBytes(message.value)) ?? encode();
}

/**
 * Whether a projection that reads `types` can skip a record without decoding it: its `event-type`
 * header names another type. (A record without the header is decoded.)
 */
export function skippable(message: Pick<ConsumedRecord, "eventType">, types: ReadonlySet<string>): boolean {
  return message.eventType !== undefined && !types.has(message.eventType);
}
