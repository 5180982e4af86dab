import { ApiPromise, WsProvider } from "@polkadot/api";

/*
 * Direct reads of the native runtime for the end-to-end tests, through @polkadot/api: another
 * client than the chain-ingestor's (dedot), so a decoding fault of the service cannot hide in the
 * comparison. Runtime API answers are decoded with a layout registered here, from the bytes.
 */

export interface RuntimeEvent {
  index: number;
  /** Absent for events of the block's initialization and finalization. */
  extrinsicIndex: number | undefined;
  /** "<Pallet>.<Event>". */
  name: string;
  /** The event's fields in order: account ids and H160s as hex, numbers as decimal strings. */
  fields: string[];
}

export interface RuntimeBlock {
  number: number;
  hash: string;
  timestampMs: number;
  extrinsicHashes: string[];
  events: RuntimeEvent[];
}

export interface RuntimePosition {
  netuid: number;
  hotkey: string;
  stakeNalpha: string;
}

export interface RuntimeReads {
  /** The canonical block of that number now (after a reorganisation, the new branch's). */
  block(number: number): Promise<RuntimeBlock>;
  /** Any storage item at the block, as text (account ids as hex): `item(hash, "subtensorModule", "taoWeight")`. */
  item(blockHash: string, pallet: string, name: string, ...keys: unknown[]): Promise<string>;
  account(blockHash: string, publicKey: string): Promise<{ free: string; reserved: string; frozen: string }>;
  /** Non-zero positions by (netuid, hotkey), from StakeInfoRuntimeApi's raw answer. */
  positions(blockHash: string, publicKey: string): Promise<RuntimePosition[]>;
  /** TAO per alpha from the pool's storage: 1 for root and stable pools, SubnetTAO / SubnetAlphaIn truncated to 9 decimals. */
  priceTao(blockHash: string, netuid: number): Promise<string>;
  /** The network totals at the block, as decimal strings (counts as numbers). */
  networkTotals(blockHash: string): Promise<NetworkTotals>;
  /** Every added subnet's pool reserves at the block, by netuid. */
  pools(
    blockHash: string,
  ): Promise<{ netuid: number; mechanism: number; taoIn: string; alphaIn: string; alphaOut: string }[]>;
  /** Every subnet at the block: its settings, emission and metagraph, straight from storage. */
  subnets(blockHash: string): Promise<DirectSubnet[]>;
  /** Every alpha position of every subnet at the block: each coldkey with an `Alpha` entry, asked of StakeInfoRuntimeApi. */
  holders(blockHash: string): Promise<Map<number, { coldkey: string; hotkey: string; alphaNalpha: string }[]>>;
  close(): Promise<void>;
}

export interface NetworkTotals {
  totalIssuance: string;
  balancesIssuance: string;
  totalStake: string;
  stakedRoot: string;
  stakedAlphaPools: string;
  subnetLocked: string;
  blockEmission: string;
  lastRegistered: string;
  subnetsCount: number;
  /** `System.Account` entries, counted by key. */
  accountsCount: number;
}

/** A subnet as its storage holds it at a block: raw values as text (account ids as hex), in the runtime's own units. */
export interface DirectSubnet {
  netuid: number;
  /** Storage items of the subnet by name (`tempo`, `burn`, `subnetOwner`...), as text. */
  items: Record<string, string>;
  /** `SubnetIdentities[netuid]`'s subnet name, as UTF-8 (absent when none is set). */
  identityName: string | undefined;
  /** `TokenSymbol[netuid]` as UTF-8. */
  /** `TokenSymbol`, null where the runtime keeps none (the spec-218 build the devnet runs). */
  symbol: string | null;
  /** `AlphaValues[netuid]`. */
  alphaValues: [number, number];
  neurons: DirectNeuron[];
}

export interface DirectNeuron {
  uid: number;
  hotkey: string;
  /** `Owner[hotkey]`. */
  coldkey: string;
  active: boolean;
  validatorPermit: boolean;
  /** Raw u16 scores. */
  dividends: number;
  incentive: number;
  consensus: number;
  vtrust: number;
  emission: string;
  lastUpdate: string;
  registeredAt: string;
  /** `TotalHotkeyAlpha[(hotkey, netuid)]` and `[(hotkey, 0)]`. */
  alphaStake: string;
  rootStake: string;
  /** `Delegates[hotkey]`, raw u16. */
  take: number;
  /** `HotkeyDividendsPerSubnet[netuid, hotkey]` (spec 218): the last epoch's dividends, before the take. */
  hotkeyDividends: string;
  /** `Rank`, `Trust` and `PruningScores` entries, raw u16. */
  rank: number;
  trust: number;
  pruningScore: number;
  /** `Axons[netuid, hotkey]` as the API's JSON (numbers for u8..u32, text for u64/u128), null when none. */
  axon: Record<string, number | string> | null;
}

/** The per-subnet storage items `subnets()` reads by netuid. */
const SUBNET_ITEMS = [
  "subnetOwner",
  "subnetOwnerHotkey",
  "networkRegisteredAt",
  "subnetMechanism",
  "tempo",
  "subnetworkN",
  "maxAllowedUids",
  "maxAllowedValidators",
  "networkRegistrationAllowed",
  "networkPowRegistrationAllowed",
  "burn",
  "minBurn",
  "maxBurn",
  "difficulty",
  "raoRecycledForRegistration",
  "commitRevealWeightsEnabled",
  "revealPeriodEpochs",
  "liquidAlphaOn",
  "rho",
  "kappa",
  "immunityPeriod",
  "minAllowedWeights",
  "maxWeightsLimit",
  "weightsVersionKey",
  "weightsSetRateLimit",
  "activityCutoff",
  "adjustmentAlpha",
  "bondsMovingAverage",
  "servingRateLimit",
  "emissionValues",
  "lastMechansimStepBlock",
] as const;

interface Codec {
  toHex(): string;
  toString(): string;
  toNumber(): number;
}

/** The storage queries of one pallet at a block (`(await api.at(hash)).query.subtensorModule`). */
type PalletQuery = NonNullable<Awaited<ReturnType<ApiPromise["at"]>>["query"][string]>;

export async function connectRuntime(rpcUrl: string): Promise<RuntimeReads> {
  const api = await ApiPromise.create({ provider: new WsProvider(rpcUrl), noInitWarn: true });
  api.registry.register({
    E2eStakeInfo: {
      hotkey: "[u8; 32]",
      coldkey: "[u8; 32]",
      netuid: "Compact<u16>",
      stake: "Compact<u64>",
      locked: "Compact<u64>",
      emission: "Compact<u64>",
      drain: "Compact<u64>",
      isRegistered: "bool",
    },
  });
  // By hash: a number names another block once the chain has reorganised.
  const blocks = new Map<string, Promise<RuntimeBlock>>();

  return {
    async block(number) {
      const hash = (await api.rpc.chain.getBlockHash(number)).toHex();
      let read = blocks.get(hash);
      if (read === undefined) {
        read = readBlock(api, number, hash);
        blocks.set(hash, read);
      }
      return read;
    },
    item: (blockHash, pallet, name, ...keys) => readItem(api, blockHash, pallet, name, ...keys),
    account: (blockHash, publicKey) => readAccount(api, blockHash, publicKey),
    positions: (blockHash, publicKey) => readPositions(api, blockHash, publicKey),
    priceTao: (blockHash, netuid) => readPriceTao(api, blockHash, netuid),
    networkTotals: (blockHash) => readNetworkTotals(api, blockHash),
    pools: (blockHash) => readPools(api, blockHash),
    subnets: (blockHash) => readSubnets(api, blockHash),
    holders: (blockHash) => readHolders(api, blockHash),
    async close() {
      await api.disconnect();
    },
  };
}

async function readBlock(api: ApiPromise, number: number, hash: string): Promise<RuntimeBlock> {
  const at = await api.at(hash);
  const [signed, records, now] = await Promise.all([
    api.rpc.chain.getBlock(hash),
    at.query.system!.events!(),
    at.query.timestamp!.now!(),
  ]);
  const events = (
    records as unknown as {
      phase: { isApplyExtrinsic: boolean; asApplyExtrinsic: Codec };
      event: { section: string; method: string; data: Codec[] };
    }[]
  ).map((record, index) => ({
    index,
    extrinsicIndex: record.phase.isApplyExtrinsic ? record.phase.asApplyExtrinsic.toNumber() : undefined,
    name: `${capitalise(record.event.section)}.${record.event.method}`,
    fields: [...record.event.data].map(fieldText),
  }));
  return {
    number,
    hash,
    timestampMs: Number((now as unknown as Codec).toString()),
    extrinsicHashes: signed.block.extrinsics.map((extrinsic) => extrinsic.hash.toHex()),
    events,
  };
}

async function readItem(
  api: ApiPromise,
  blockHash: string,
  pallet: string,
  name: string,
  ...keys: unknown[]
): Promise<string> {
  const entry = (await api.at(blockHash)).query[pallet]?.[name];
  if (entry === undefined) throw new Error(`no storage item ${pallet}.${name} at ${blockHash}`);
  const value = (await entry(...keys)) as unknown as Codec & { toRawType(): string };
  return value.toRawType() === "AccountId32" || value.toRawType() === "AccountId" ? value.toHex() : value.toString();
}

async function readAccount(
  api: ApiPromise,
  blockHash: string,
  publicKey: string,
): Promise<{ free: string; reserved: string; frozen: string }> {
  const at = await api.at(blockHash);
  const { data } = (await at.query.system!.account!(publicKey)) as unknown as {
    data: { free: Codec; reserved: Codec; frozen: Codec };
  };
  return { free: data.free.toString(), reserved: data.reserved.toString(), frozen: data.frozen.toString() };
}

async function readPositions(api: ApiPromise, blockHash: string, publicKey: string): Promise<RuntimePosition[]> {
  const argument = `0x80${publicKey.slice(2)}`;
  // The node's raw answer (without the RPC type's own length prefix)...
  const answer = (
    await api.rpc.state.call("StakeInfoRuntimeApi_get_stake_info_for_coldkey", argument, blockHash)
  ).toU8a(true);
  // ...is a SCALE Vec<u8> holding the Vec<StakeInfo>.
  const content = api.registry.createType("Bytes", answer).toU8a(true);
  const infos = api.registry.createType("Vec<E2eStakeInfo>", content) as unknown as {
    netuid: Codec;
    hotkey: Codec;
    stake: Codec;
  }[];
  return infos
    .map((info) => ({
      netuid: info.netuid.toNumber(),
      hotkey: info.hotkey.toHex(),
      stakeNalpha: info.stake.toString(),
    }))
    .filter((position) => position.stakeNalpha !== "0")
    .sort((a, b) => a.netuid - b.netuid || (a.hotkey < b.hotkey ? -1 : 1));
}

async function readPriceTao(api: ApiPromise, blockHash: string, netuid: number): Promise<string> {
  if (netuid === 0) return "1";
  const module = (await api.at(blockHash)).query.subtensorModule!;
  const [mechanism, tao, alphaIn] = await Promise.all([
    module.subnetMechanism!(netuid),
    module.subnetTAO!(netuid),
    module.subnetAlphaIn!(netuid),
  ]);
  if ((mechanism as unknown as Codec).toNumber() === 0) return "1";
  const alpha = BigInt((alphaIn as unknown as Codec).toString());
  if (alpha === 0n) return "0";
  const scaled = (BigInt((tao as unknown as Codec).toString()) * 1_000_000_000n) / alpha;
  const whole = scaled / 1_000_000_000n;
  const fraction = (scaled % 1_000_000_000n).toString().padStart(9, "0").replace(/0+$/, "");
  return fraction === "" ? whole.toString() : `${whole}.${fraction}`;
}

async function readNetworkTotals(api: ApiPromise, blockHash: string): Promise<NetworkTotals> {
  const at = await api.at(blockHash);
  const module = at.query.subtensorModule!;
  const text = async (read: Promise<unknown>) => String(await read);
  const netuids = ((await module.networksAdded!.keys()) as unknown as { args: [Codec] }[]).map((key) =>
    key.args[0].toNumber(),
  );
  const taos = await Promise.all(netuids.map((netuid) => text(module.subnetTAO!(netuid))));
  const locked = await Promise.all(netuids.map((netuid) => text(module.subnetLocked!(netuid))));
  const root = BigInt(taos[netuids.indexOf(0)] ?? "0");
  const accounts = await api.rpc.state.getKeysPaged(api.query.system!.account!.keyPrefix(), 1000, null, blockHash);
  if (accounts.length >= 1000) throw new Error("more accounts than one page: count them page by page");
  return {
    totalIssuance: await text(module.totalIssuance!()),
    balancesIssuance: await text(at.query.balances!.totalIssuance!()),
    totalStake: await text(module.totalStake!()),
    stakedRoot: root.toString(),
    stakedAlphaPools: (taos.reduce((sum, tao) => sum + BigInt(tao), 0n) - root).toString(),
    subnetLocked: locked.reduce((sum, value) => sum + BigInt(value), 0n).toString(),
    blockEmission: await text(module.blockEmission!()),
    lastRegistered: await text(module.networkLastRegistered!()),
    subnetsCount: netuids.length,
    accountsCount: accounts.length,
  };
}

/** The netuids `NetworksAdded` marks added, ascending. */
async function addedNetuids(module: PalletQuery): Promise<number[]> {
  return ((await module.networksAdded!.entries()) as unknown as [{ args: [Codec] }, { toJSON(): unknown }][])
    .filter(([, added]) => added.toJSON() === true)
    .map(([key]) => key.args[0].toNumber())
    .sort((a, b) => a - b);
}

async function readPools(
  api: ApiPromise,
  blockHash: string,
): Promise<{ netuid: number; mechanism: number; taoIn: string; alphaIn: string; alphaOut: string }[]> {
  const module = (await api.at(blockHash)).query.subtensorModule!;
  const netuids = await addedNetuids(module);
  return Promise.all(
    netuids.map(async (netuid) => {
      const [mechanism, taoIn, alphaIn, alphaOut] = await Promise.all([
        module.subnetMechanism!(netuid),
        module.subnetTAO!(netuid),
        module.subnetAlphaIn!(netuid),
        module.subnetAlphaOut!(netuid),
      ]);
      return {
        netuid,
        mechanism: Number(String(mechanism)),
        taoIn: String(taoIn),
        alphaIn: String(alphaIn),
        alphaOut: String(alphaOut),
      };
    }),
  );
}

async function readSubnets(api: ApiPromise, blockHash: string): Promise<DirectSubnet[]> {
  const at = await api.at(blockHash);
  const module = at.query.subtensorModule!;
  const netuids = await addedNetuids(module);
  return Promise.all(netuids.map((netuid) => readSubnet(module, netuid)));
}

/** One subnet's storage items, identity, symbol, alpha values and metagraph. */
async function readSubnet(module: PalletQuery, netuid: number): Promise<DirectSubnet> {
  const text = (value: unknown) => {
    const codec = value as Codec & { toRawType(): string };
    return codec.toRawType() === "AccountId32" || codec.toRawType() === "AccountId" ? codec.toHex() : codec.toString();
  };
  const utf8 = (value: unknown) =>
    Buffer.from((value as { toU8a(bare: boolean): Uint8Array }).toU8a(true)).toString("utf8");
  const items: Record<string, string> = {};
  await Promise.all(SUBNET_ITEMS.map(async (item) => (items[item] = text(await module[item]!(netuid)))));
  const identity = (await module.subnetIdentities!(netuid)) as unknown as {
    isSome: boolean;
    unwrap(): { subnetName: unknown };
  };
  const alphaValues = ((await module.alphaValues!(netuid)) as unknown as Codec[]).map((value) => value.toNumber()) as [
    number,
    number,
  ];
  const neurons = await readNeurons(module, netuid);
  return {
    netuid,
    items,
    identityName: identity.isSome ? utf8(identity.unwrap().subnetName) : undefined,
    symbol: module.tokenSymbol === undefined ? null : utf8(await module.tokenSymbol(netuid)),
    alphaValues,
    neurons: neurons.sort((a, b) => a.uid - b.uid),
  };
}

/** Every UID of the subnet (`Keys`), with its metagraph vectors' entries, coldkey, stakes and take. */
async function readNeurons(module: PalletQuery, netuid: number): Promise<DirectNeuron[]> {
  const vector = async (item: string) => (await module[item]!(netuid)) as unknown as Codec[];
  const [active, permit, dividends, incentive, consensus, vtrust, emission, lastUpdate, rank, trust, pruning] =
    await Promise.all(
      [
        "active",
        "validatorPermit",
        "dividends",
        "incentive",
        "consensus",
        "validatorTrust",
        "emission",
        "lastUpdate",
        "rank",
        "trust",
        "pruningScores",
      ].map(vector),
    );
  const keys = (await module.keys!.entries(netuid)) as unknown as [{ args: [Codec, Codec] }, Codec][];
  return Promise.all(
    keys.map(async ([key, hotkeyCodec]): Promise<DirectNeuron> => {
      const uid = key.args[1].toNumber();
      const hotkey = hotkeyCodec.toHex();
      const at = (values: Codec[], fallback: string) => values[uid]?.toString() ?? fallback;
      return {
        uid,
        hotkey,
        coldkey: ((await module.owner!(hotkey)) as unknown as Codec).toHex(),
        active: at(active!, "false") === "true",
        validatorPermit: at(permit!, "false") === "true",
        dividends: Number(at(dividends!, "0")),
        incentive: Number(at(incentive!, "0")),
        consensus: Number(at(consensus!, "0")),
        vtrust: Number(at(vtrust!, "0")),
        emission: at(emission!, "0"),
        lastUpdate: at(lastUpdate!, "0"),
        registeredAt: String(await module.blockAtRegistration!(netuid, uid)),
        alphaStake: String(await module.totalHotkeyAlpha!(hotkey, netuid)),
        rootStake: String(await module.totalHotkeyAlpha!(hotkey, 0)),
        take: Number(String(await module.delegates!(hotkey))),
        hotkeyDividends:
          module.hotkeyDividendsPerSubnet === undefined
            ? "0"
            : String(await module.hotkeyDividendsPerSubnet(netuid, hotkey)),
        rank: Number(at(rank!, "0")),
        trust: Number(at(trust!, "0")),
        pruningScore: Number(at(pruning!, "0")),
        axon: (
          (await module.axons!(netuid, hotkey)) as unknown as { toJSON(): Record<string, number | string> | null }
        ).toJSON(),
      };
    }),
  );
}

async function readHolders(
  api: ApiPromise,
  blockHash: string,
): Promise<Map<number, { coldkey: string; hotkey: string; alphaNalpha: string }[]>> {
  const at = await api.at(blockHash);
  const coldkeys = new Set(
    ((await at.query.subtensorModule!.alpha!.keys()) as unknown as { args: [Codec, Codec, Codec] }[]).map((key) =>
      key.args[1].toHex(),
    ),
  );
  const bySubnet = new Map<number, { coldkey: string; hotkey: string; alphaNalpha: string }[]>();
  for (const coldkey of coldkeys) {
    for (const position of await readPositions(api, blockHash, coldkey)) {
      bySubnet.set(position.netuid, [
        ...(bySubnet.get(position.netuid) ?? []),
        { coldkey, hotkey: position.hotkey, alphaNalpha: position.stakeNalpha },
      ]);
    }
  }
  return bySubnet;
}

const capitalise = (section: string) => section.charAt(0).toUpperCase() + section.slice(1);

/** Account ids and H160s (fixed byte arrays) as hex; numbers and everything else as text. */
function fieldText(field: Codec): string {
  const type = (field as unknown as { toRawType(): string }).toRawType();
  return type === "AccountId32" || type === "AccountId" || type === "H160" || type === "H256" || type.startsWith("[u8;")
    ? field.toHex()
    : field.toString();
}
