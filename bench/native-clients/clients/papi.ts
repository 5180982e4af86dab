import { createClient, getSs58AddressInfo, type JsonRpcProvider } from "polkadot-api";
import { type DependencyChain, dependencyVersion, importDependencyOf } from "../importDependency.js";
import { type WebSocketConstructor, webSocketClass } from "../rawRpc.js";
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

/*
 * polkadot-api's metadata-driven dynamic codecs, the layer its typed API is built on. Neither
 * package is a dependency of bench (pnpm links only polkadot-api) and polkadot-api re-exports
 * neither getDynamicBuilder nor getLookupFn, so they are imported from polkadot-api's own
 * dependencies (importDependencyOf): the very copies polkadot-api runs.
 */
const BINDINGS: DependencyChain = ["polkadot-api", "@polkadot-api/substrate-bindings"];
const BUILDERS: DependencyChain = ["polkadot-api", "@polkadot-api/metadata-builders"];
/** `:code`, the storage key of the runtime Wasm. */
const CODE_KEY = "0x3a636f6465";

interface StorageCodec {
  keys: { enc(...args: unknown[]): string };
  value: { dec(input: string | Uint8Array): unknown };
}
interface Bindings {
  decAnyMetadata(input: Uint8Array | string): unknown;
  unifyMetadata(metadata: unknown): unknown;
}
interface Builders {
  getLookupFn(metadata: unknown): unknown;
  getDynamicBuilder(lookup: unknown): { buildStorage(pallet: string, entry: string): StorageCodec };
}

/** polkadot-api's shapes: enums as `{ type, value }`, structs as plain objects, accounts as SS58 strings. */
interface EventRecord {
  phase: { type: string; value?: number };
  event: { type: string; value: { type: string; value?: unknown } };
}
interface AccountInfo {
  nonce: number;
  data: { free: bigint };
}

/**
 * `codeHashes` (block hash → blake2_256 of its `:code`) corrects a chopsticks 1.5.1 bug that
 * polkadot-api's archive path trips on: asked `archive_v1_storage(block, [{ key: ":code", type:
 * "hash" }])`, chopsticks answers the block's own hash instead of the code's. polkadot-api keys its
 * runtime cache by that hash, so it fetched the metadata (two runtime calls) again for every block.
 * Without the map the answers pass as chopsticks gives them.
 */
export async function papiClient(codeHashes?: ReadonlyMap<string, string>): Promise<ClientUnderTest> {
  const [bindings, builders] = await Promise.all([
    importDependencyOf<Bindings>(BINDINGS),
    importDependencyOf<Builders>(BUILDERS),
  ]);
  const WebSocket = await webSocketClass();
  return {
    name: codeHashes === undefined ? "polkadot-api (chopsticks' :code hash as served)" : "polkadot-api",
    packageName: "polkadot-api",
    version: dependencyVersion(["polkadot-api"]),
    imports: ["polkadot-api"],
    via: `getDynamicBuilder(getLookupFn(unifyMetadata(decAnyMetadata(·)))) from @polkadot-api/metadata-builders ${dependencyVersion(BUILDERS)} and substrate-bindings ${dependencyVersion(BINDINGS)} (polkadot-api's own dependencies); live: createClient(<plain WebSocket JsonRpcProvider>).getUnsafeApi()`,
    buildDecoder(metadata) {
      const builder = builders.getDynamicBuilder(
        builders.getLookupFn(bindings.unifyMetadata(bindings.decAnyMetadata(metadata))),
      );
      return offlineDecoder(builder.buildStorage("System", "Events"), builder.buildStorage("System", "Account"));
    },
    async connect(wsUrl) {
      const client = createClient(webSocketProvider(WebSocket, wsUrl, codeHashes));
      const api = client.getUnsafeApi() as unknown as UnsafeQueries;
      const live: LiveClient = {
        async eventsAt(hash) {
          return eventsResult((await api.query.System.Events.getValue({ at: hash })) as EventRecord[]);
        },
        async accountsAt(hash, addresses) {
          const values = (await api.query.System.Account.getValues(
            addresses.map((address) => [address]),
            { at: hash },
          )) as AccountInfo[];
          return { normalize: () => values.map(normalizeAccount) };
        },
        async disconnect() {
          client.destroy();
        },
      };
      return live;
    },
  };
}

/**
 * A JSON-RPC provider on one `ws` socket, what polkadot-api/ws's getWsRawProvider does without
 * reconnection. Not getWsProvider: it loads @polkadot-api/json-rpc-provider-proxy 0.4.1, which
 * imports @polkadot-api/json-rpc-provider at run time but declares it only as a devDependency, so
 * under pnpm it gets whichever copy is hoisted in node_modules/.pnpm/node_modules — here 0.0.1,
 * which lacks `isResponse`, and the import fails ("does not provide an export named 'isResponse'").
 * (Node 20 has no global WebSocket either, so getWsProvider would need `websocketClass` anyway.)
 */
export function webSocketProvider(
  WebSocket: WebSocketConstructor,
  url: string,
  codeHashes?: ReadonlyMap<string, string>,
): JsonRpcProvider {
  return (onMessage) => {
    const socket = new WebSocket(url);
    let queue: string[] | undefined = [];
    socket.once("open", () => {
      for (const message of queue ?? []) socket.send(message);
      queue = undefined;
    });
    socket.on("message", (data) => {
      const message = JSON.parse(data.toString("utf8")) as Parameters<typeof onMessage>[0] & {
        params?: { result?: { key?: string; hash?: string } };
      };
      const item = message.params?.result;
      if (codeHashes !== undefined && item?.key === CODE_KEY && item.hash !== undefined)
        item.hash = codeHashes.get(item.hash) ?? item.hash;
      onMessage(message);
    });
    return {
      send(message) {
        const text = JSON.stringify(message);
        if (queue === undefined) socket.send(text);
        else queue.push(text);
      },
      disconnect: () => socket.close(),
    };
  };
}

/** The part of the unsafe (descriptor-less) API used here. */
interface UnsafeQueries {
  query: {
    System: {
      Events: { getValue(options: { at: string }): Promise<unknown> };
      Account: { getValues(keys: unknown[][], options: { at: string }): Promise<unknown[]> };
    };
  };
}

function offlineDecoder(events: StorageCodec, account: StorageCodec): OfflineDecoder {
  return {
    eventsKey: () => events.keys.enc(),
    decodeEvents: (raw) => eventsResult(events.value.dec(raw) as EventRecord[]),
    accountKey: (address) => account.keys.enc(address),
    decodeAccount(raw) {
      const value = account.value.dec(raw) as AccountInfo;
      return { normalize: () => normalizeAccount(value) };
    },
  };
}

function eventsResult(records: EventRecord[]): Decoded<NormalizedEvent[]> {
  return { normalize: () => records.map(normalizeEvent) };
}

function normalizeEvent(record: EventRecord): NormalizedEvent {
  const pallet = record.event.type;
  const name = record.event.value.type;
  const value = record.event.value.value;
  const fields =
    COMPARED_FIELDS.has(`${pallet}.${name}`) && typeof value === "object" && value !== null
      ? Object.values(value).map(canonical)
      : [];
  return { pallet, name, phase: phaseOf(record.phase.type, record.phase.value), fields };
}

function canonical(value: unknown): string {
  if (typeof value === "string") {
    const info = getSs58AddressInfo(value);
    return info.isValid ? `0x${Buffer.from(info.publicKey).toString("hex")}` : value;
  }
  return String(value);
}

function normalizeAccount(value: AccountInfo): NormalizedAccount {
  return { nonce: value.nonce, free: String(value.data.free) };
}
