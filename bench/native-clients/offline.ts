import { SYSTEM_EVENTS_KEY } from "./chain.js";
import type { ClientUnderTest, OfflineDecoder } from "./clients/types.js";
import type { DecodedOutput, Mismatch } from "./compare.js";
import type { RawData } from "./fetchRaw.js";
import { elapsedMs, interleaved, throughput } from "./measure.js";

/** Milliseconds to build a decoder: the first build in the process, then the later ones. */
export interface DecoderBuilds {
  cold: number;
  warm: number[];
}

/** Decoder builds from the head runtime's metadata: the first in the process, then `rounds` more, interleaved. */
export async function measureBuilds(
  clients: ClientUnderTest[],
  raw: RawData,
  runtime: number,
  rounds: number,
): Promise<Map<ClientUnderTest, DecoderBuilds>> {
  const metadata = raw.metadata.get(runtime) as Uint8Array;
  const result = new Map<ClientUnderTest, DecoderBuilds>();
  for (const client of clients)
    result.set(client, { cold: await elapsedMs(() => client.buildDecoder(metadata)), warm: [] });
  const warm = await interleaved(clients, rounds, (client) => elapsedMs(() => client.buildDecoder(metadata)));
  for (const client of clients) (result.get(client) as DecoderBuilds).warm = warm.get(client) ?? [];
  return result;
}

export function buildAll(client: ClientUnderTest, raw: RawData): Map<number, OfflineDecoder> {
  return new Map([...raw.metadata.entries()].map(([runtime, metadata]) => [runtime, client.buildDecoder(metadata)]));
}

/** Each client's own storage keys must be the ones the raw fetch used. */
export function checkKeys(
  decoders: Map<ClientUnderTest, Map<number, OfflineDecoder>>,
  raw: RawData,
  accounts: string[],
): Mismatch[] {
  const problems: Mismatch[] = [];
  for (const [client, byRuntime] of decoders) {
    for (const [runtime, decoder] of byRuntime) {
      if (decoder.eventsKey() !== SYSTEM_EVENTS_KEY)
        problems.push({
          block: -1,
          source: client.name,
          what: "expectation",
          detail: `runtime ${runtime}: System.Events key ${decoder.eventsKey()}`,
        });
      const wrong = accounts.findIndex((address, i) => decoder.accountKey(address) !== raw.accountKeys[i]);
      if (wrong >= 0)
        problems.push({
          block: -1,
          source: client.name,
          what: "expectation",
          detail: `runtime ${runtime}: System.Account key of ${accounts[wrong]} differs`,
        });
    }
  }
  return problems;
}

export function offlineOutput(
  client: ClientUnderTest,
  byRuntime: Map<number, OfflineDecoder>,
  raw: RawData,
): DecodedOutput {
  const output: DecodedOutput = {
    source: `${client.name} offline`,
    events: new Map(),
    accounts: new Map(),
    errors: new Map(),
  };
  for (const block of raw.blocks) {
    const decoder = byRuntime.get(block.runtime) as OfflineDecoder;
    output.events.set(block.hash, decoder.decodeEvents(block.eventsHex).normalize());
    output.accounts.set(
      block.hash,
      block.accountsHex.map((value) => decoder.decodeAccount(value).normalize()),
    );
  }
  return output;
}

/** Operations a second decoding every block's System.Events with the decoder of the runtime that executed it. */
export function eventsThroughput(byRuntime: Map<number, OfflineDecoder>, raw: RawData, minMs: number): number {
  return throughput(minMs, () => {
    for (const block of raw.blocks) byRuntime.get(block.runtime)?.decodeEvents(block.eventsHex);
    return raw.blocks.length;
  });
}

/** System.Account keys encoded (`key`) or values decoded (`value`) a second, every tracked account of every block. */
export function accountsThroughput(
  byRuntime: Map<number, OfflineDecoder>,
  raw: RawData,
  accounts: string[],
  part: "key" | "value",
  minMs: number,
): number {
  return throughput(minMs, () => {
    for (const block of raw.blocks) {
      const decoder = byRuntime.get(block.runtime) as OfflineDecoder;
      for (let i = 0; i < accounts.length; i++) {
        if (part === "key") decoder.accountKey(accounts[i] as string);
        else decoder.decodeAccount(block.accountsHex[i] as string);
      }
    }
    return raw.blocks.length * accounts.length;
  });
}
