import "@polkadot/api/augment";
import { ApiPromise, WsProvider } from "@polkadot/api";
import { type DependencyChain, dependencyVersion, importDependencyOf } from "../importDependency.js";
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

/** @polkadot/types is a dependency of @polkadot/api, not of bench: imported from @polkadot/api's location. */
const TYPES: DependencyChain = ["@polkadot/api", "@polkadot/types"];

type Registry = ApiPromise["registry"];
type RuntimeMetadata = ApiPromise["runtimeMetadata"];
/**
 * The parts of @polkadot/api's codec objects read here (Vec<FrameSystemEventRecord>,
 * FrameSystemAccountInfo): its query methods are overloaded (value, subscription), so their result
 * types cannot be taken with ReturnType.
 */
interface Codec {
  registry: Registry;
  toHex(): string;
  toString(): string;
  toRawType(): string;
}
interface EventRecord {
  phase: { type: string; isApplyExtrinsic: boolean; asApplyExtrinsic: { toNumber(): number } };
  event: Codec & { index: Uint8Array; method: string; data: Codec[] };
}
type EventRecords = EventRecord[];
interface AccountInfo {
  nonce: { toNumber(): number };
  data: { free: { toString(): string } };
}
type StorageType = RuntimeMetadata["asLatest"]["pallets"][number]["storage"] extends {
  unwrap(): { items: { type: infer T }[] };
}
  ? T
  : never;

/** A storage function of `expandMetadata(…).query`: called with the keys, it returns the storage key (length-prefixed). */
interface StorageEntry {
  (...keys: unknown[]): Uint8Array;
  meta: { type: StorageType; modifier: { isOptional: boolean } };
}

interface TypesModule {
  TypeRegistry: new () => Registry;
  Metadata: new (registry: Registry, value: Uint8Array) => RuntimeMetadata;
  expandMetadata(
    registry: Registry,
    metadata: RuntimeMetadata,
  ): { query: Record<string, Record<string, StorageEntry>> };
  unwrapStorageType(registry: Registry, type: StorageType, isOptional?: boolean): string;
}

export async function pjsClient(): Promise<ClientUnderTest> {
  const types = await importDependencyOf<TypesModule>(TYPES);
  return {
    name: "@polkadot/api",
    packageName: "@polkadot/api",
    version: dependencyVersion(["@polkadot/api"]),
    imports: ["@polkadot/api"],
    via: `new TypeRegistry() + new Metadata(registry, ·) + registry.setMetadata + expandMetadata (@polkadot/types ${dependencyVersion(TYPES)}, @polkadot/api's own dependency), registry.createTypeUnsafe; live: ApiPromise + api.at(hash)`,
    buildDecoder(bytes) {
      const registry = new types.TypeRegistry();
      const metadata = new types.Metadata(registry, bytes);
      registry.setMetadata(metadata);
      const query = types.expandMetadata(registry, metadata).query;
      const entry = (pallet: string, item: string): StorageEntry => {
        const found = query[pallet]?.[item];
        if (found === undefined) throw new Error(`@polkadot/api: no storage ${pallet}.${item}`);
        return found;
      };
      return offlineDecoder(registry, entry("system", "events"), entry("system", "account"), types);
    },
    async connect(wsUrl) {
      const api = await ApiPromise.create({ provider: new WsProvider(wsUrl), noInitWarn: true });
      const live: LiveClient = {
        async eventsAt(hash) {
          const records = await (await api.at(hash)).query.system.events();
          return eventsResult(records as unknown as EventRecords);
        },
        async accountsAt(hash, addresses) {
          const values = (await (await api.at(hash)).query.system.account.multi(addresses)) as unknown as AccountInfo[];
          return { normalize: () => values.map(normalizeAccount) };
        },
        disconnect: () => api.disconnect(),
      };
      return live;
    },
  };
}

function offlineDecoder(
  registry: Registry,
  events: StorageEntry,
  account: StorageEntry,
  types: TypesModule,
): OfflineDecoder {
  // What ApiPromise does for a storage value: the entry's type, created from the raw bytes.
  const typeOf = (entry: StorageEntry) =>
    types.unwrapStorageType(registry, entry.meta.type, entry.meta.modifier.isOptional);
  const eventsType = typeOf(events);
  const accountType = typeOf(account);
  return {
    eventsKey: () => hex(withoutLengthPrefix(events())),
    decodeEvents: (raw) => eventsResult(registry.createTypeUnsafe(eventsType, [raw]) as unknown as EventRecords),
    accountKey: (address) => hex(withoutLengthPrefix(account(address))),
    decodeAccount(raw) {
      const value = registry.createTypeUnsafe(accountType, [raw]) as unknown as AccountInfo;
      return { normalize: () => normalizeAccount(value) };
    },
  };
}

function eventsResult(records: EventRecords): Decoded<NormalizedEvent[]> {
  return { normalize: () => records.map(normalizeEvent) };
}

/** Pallet names by index, from the registry's metadata (`event.section` is camelCased: `subtensorModule`). */
const palletNames = new WeakMap<Registry, Map<number, string>>();

function palletName(registry: Registry, index: number): string {
  let names = palletNames.get(registry);
  if (names === undefined) {
    names = new Map(registry.metadata.pallets.map((pallet) => [pallet.index.toNumber(), pallet.name.toString()]));
    palletNames.set(registry, names);
  }
  return names.get(index) ?? `#${index}`;
}

function normalizeEvent(record: EventRecord): NormalizedEvent {
  const event = record.event;
  const pallet = palletName(event.registry, event.index[0] ?? -1);
  const name = event.method;
  const fields = COMPARED_FIELDS.has(`${pallet}.${name}`)
    ? event.data.map((value) => (value.toRawType().includes("AccountId") ? value.toHex() : value.toString()))
    : [];
  const phase = record.phase.isApplyExtrinsic
    ? phaseOf("ApplyExtrinsic", record.phase.asApplyExtrinsic.toNumber())
    : phaseOf(record.phase.type);
  return { pallet, name, phase, fields };
}

function normalizeAccount(value: AccountInfo): NormalizedAccount {
  return { nonce: value.nonce.toNumber(), free: value.data.free.toString() };
}

/** The storage functions return the key as SCALE `Bytes` (compact length first). */
function withoutLengthPrefix(bytes: Uint8Array): Uint8Array {
  const mode = (bytes[0] ?? 0) & 3;
  return bytes.subarray(mode === 0 ? 1 : mode === 1 ? 2 : 4);
}

function hex(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes).toString("hex")}`;
}
