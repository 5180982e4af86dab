import { LegacyClient, QueryableStorage, WsProvider } from "dedot";
import { $Metadata, AccountId32, PortableRegistry } from "dedot/codecs";
import { dependencyVersion } from "../importDependency.js";
import {
  type ClientUnderTest,
  COMPARED_FIELDS,
  type Decoded,
  type LiveClient,
  type NormalizedAccount,
  type NormalizedEvent,
  type OfflineDecoder,
  phaseOf,
} from "./types.js";

/**
 * dedot's shapes: `palletEvent` as `{ name, data }` (or the bare name for an event without
 * fields), struct fields in camelCase, accounts as AccountId32 objects. Its bundled chain types
 * are Substrate's kitchensink, not Subtensor's: the records are read through this shape instead.
 */
interface EventRecord {
  phase: { type: string; value?: number };
  event: { pallet: string; palletEvent: string | { name: string; data?: unknown } };
}
interface AccountInfo {
  nonce: number;
  data: { free: bigint };
}

export function dedotClient(): ClientUnderTest {
  return {
    name: "dedot",
    packageName: "dedot",
    version: dependencyVersion(["dedot"]),
    imports: ["dedot", "dedot/codecs"],
    via: "$Metadata.tryDecode + new PortableRegistry(metadata.latest) + QueryableStorage (dedot, dedot/codecs); live: LegacyClient + client.at(hash)",
    buildDecoder(metadata) {
      const registry = new PortableRegistry($Metadata.tryDecode(metadata).latest);
      return offlineDecoder(
        new QueryableStorage(registry, "System", "Events"),
        new QueryableStorage(registry, "System", "Account"),
      );
    },
    async connect(wsUrl) {
      const client = await LegacyClient.new(new WsProvider(wsUrl));
      const live: LiveClient = {
        async eventsAt(hash) {
          const at = await client.at(hash as `0x${string}`);
          return eventsResult((await at.query.system.events()) as unknown as EventRecord[]);
        },
        async accountsAt(hash, addresses) {
          const at = await client.at(hash as `0x${string}`);
          const values = (await at.query.system.account.multi(addresses)) as unknown as AccountInfo[];
          return { normalize: () => values.map(normalizeAccount) };
        },
        disconnect: () => client.disconnect(),
      };
      return live;
    },
  };
}

function offlineDecoder(events: QueryableStorage, account: QueryableStorage): OfflineDecoder {
  return {
    eventsKey: () => events.encodeKey(),
    decodeEvents: (raw) => eventsResult(events.decodeValue(raw as `0x${string}`) as EventRecord[]),
    accountKey: (address) => account.encodeKey(address),
    decodeAccount(raw) {
      const value = account.decodeValue(raw as `0x${string}`) as AccountInfo;
      return { normalize: () => normalizeAccount(value) };
    },
  };
}

function eventsResult(records: EventRecord[]): Decoded<NormalizedEvent[]> {
  return { normalize: () => records.map(normalizeEvent) };
}

function normalizeEvent(record: EventRecord): NormalizedEvent {
  const pallet = record.event.pallet;
  const inner = record.event.palletEvent;
  const name = typeof inner === "string" ? inner : inner.name;
  const data = typeof inner === "string" ? undefined : inner.data;
  const fields =
    COMPARED_FIELDS.has(`${pallet}.${name}`) && typeof data === "object" && data !== null
      ? Object.values(data).map(canonical)
      : [];
  return { pallet, name, phase: phaseOf(record.phase.type, record.phase.value), fields };
}

function canonical(value: unknown): string {
  return value instanceof AccountId32 ? value.raw : String(value);
}

function normalizeAccount(value: AccountInfo): NormalizedAccount {
  return { nonce: value.nonce, free: String(value.data.free) };
}
