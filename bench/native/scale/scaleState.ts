/**
 * A mainnet-sized Subtensor state (spec 218's storage layout), generated from a seed and written
 * into a running chopsticks node with `dev_setStorage` as raw `[key, value]` pairs (SCALE values),
 * then one block built on it so it is the state at a block.
 *
 * What it holds (sizes from `ScaleSizes`):
 * - netuids 0 (root) ..= 128, `SubnetLimit` 128, `TotalNetworks` 129; every subnet dynamic
 *   (mechanism 1) with a pool (`SubnetTAO`, `SubnetAlphaIn`, `SubnetAlphaOut`), `Tempo` 360
 *   (BENCH_SCALE_TEMPO; epochs fall on `(block + netuid + 1) % 361 == 360`, so at most one subnet's
 *   epoch per block), owner, owner hotkey, token symbol (where the runtime has `TokenSymbol`),
 *   identity, lock, registration block;
 * - 256 UIDs per subnet (64 on root): uid 0 the owner's hotkey, uids 1..=32 validators drawn from a
 *   shared pool of validator hotkeys (registered on many subnets, as on mainnet), the rest miners
 *   with their own hotkeys; `Keys`, `Uids`, `IsNetworkMember`, `BlockAtRegistration` and the
 *   metagraph vectors (`Active`, `ValidatorPermit`, `Rank`, `Trust`, `Consensus`, `Incentive`,
 *   `Dividends`, `ValidatorTrust`, `PruningScores`, `Emission`, `LastUpdate`);
 * - every hotkey's `Owner` and each owner's `OwnedHotkeys`; validator hotkeys in `Delegates`;
 * - `Alpha` positions: every miner's and validator's owner on its own hotkey, plus nominators
 *   spread over validators: mostly where the validator is registered, some on subnets where it is
 *   not, some on hotkeys registered nowhere, some on root. `TotalHotkeyShares` is the sum of the
 *   shares of a (hotkey, netuid) pool and `TotalHotkeyAlpha` its value (shares x a per-pool rate
 *   ≥ 1, as emission accrues), `SubnetAlphaOut` the sum of a subnet's pools, `StakingHotkeys` each
 *   coldkey's hotkeys;
 * - `System.Account` for every coldkey plus plain holders, `Balances.TotalIssuance` = the genesis
 *   issuance plus what was written, `TotalStake` = Σ `SubnetTAO`, `SubtensorModule.TotalIssuance` =
 *   balances + stake + locks.
 */
import { blake2AsU8a, u8aToHex, xxhashAsU8a } from "dedot/utils";

export type Hex = `0x${string}`;

export interface ScaleSizes {
  /** Subnets besides root: netuids 1..=subnets. */
  subnets: number;
  uidsPerSubnet: number;
  rootUids: number;
  /** Uids 1..=validatorsPerSubnet of each subnet are validators from the shared pool. */
  validatorsPerSubnet: number;
  validatorPool: number;
  /** Hotkeys registered on no subnet that still hold stake. */
  floatingHotkeys: number;
  /** Coldkeys that nominate (stake on others' hotkeys). */
  nominators: number;
  /** Positions per nominator: 1..=maxNominations, uniform. */
  maxNominations: number;
  /** Miner hotkeys per miner coldkey. */
  minersPerColdkey: number;
  /** At least this many `System.Account` entries (plain holders fill up). */
  accounts: number;
}

export const MAINNET_SIZES: ScaleSizes = {
  subnets: 128,
  uidsPerSubnet: 256,
  rootUids: 64,
  validatorsPerSubnet: 32,
  validatorPool: 256,
  floatingHotkeys: 512,
  nominators: 26_000,
  maxNominations: 5,
  minersPerColdkey: 4,
  accounts: 100_000,
};

const RAO = 1_000_000_000n;
/** Finney's tempo: a subnet steps once per 361 blocks, when `(block + netuid + 1) % 361 == 360`. */
export const TEMPO = Number(process.env.BENCH_SCALE_TEMPO ?? 360);

/** A small seeded PRNG (mulberry32): the same seed gives the same state. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

// ---- SCALE ----
const u16 = (value: number) => Uint8Array.of(value & 0xff, (value >> 8) & 0xff);
function uint(value: bigint, bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  for (let index = 0; index < bytes; index++) out[index] = Number((value >> BigInt(index * 8)) & 0xffn);
  return out;
}
const u32 = (value: number) => uint(BigInt(value), 4);
const u64 = (value: bigint) => uint(value, 8);
const u128 = (value: bigint) => uint(value, 16);
const bool = (value: boolean) => Uint8Array.of(value ? 1 : 0);
function compact(value: number): Uint8Array {
  if (value < 64) return Uint8Array.of(value << 2);
  if (value < 16_384) return u16((value << 2) | 1);
  if (value < 1 << 30) return u32(((value << 2) | 2) >>> 0);
  throw new Error(`compact ${value}: too large for this encoder`);
}
function concat(...parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
const vec = (items: readonly Uint8Array[]) => concat(compact(items.length), ...items);
const bytes = (text: string) => {
  const encoded = new TextEncoder().encode(text);
  return concat(compact(encoded.length), encoded);
};

// ---- keys ----
const twox128 = (text: string) => xxhashAsU8a(text, 128);
const prefixOf = (pallet: string, item: string) => concat(twox128(pallet), twox128(item));
const b2c = (key: Uint8Array) => concat(blake2AsU8a(key, 128), key);

/** `System.Account`'s value: nonce, consumers, providers, sufficients, then free, reserved, frozen, flags (u128 each). */
export function accountInfo(freeRao: bigint, nonce = 0): Uint8Array {
  // ExtraFlags: the "new logic" bit, as the Balances pallet writes for accounts it creates.
  return concat(u32(nonce), u32(0), u32(1), u32(0), u128(freeRao), u128(0n), u128(0n), u128(1n << 127n));
}

export function systemAccountKey(account: Uint8Array): Hex {
  return u8aToHex(concat(prefixOf("System", "Account"), b2c(account))) as Hex;
}

export const rawKeys = {
  plain: (pallet: string, item: string) => u8aToHex(prefixOf(pallet, item)) as Hex,
  prefix: (pallet: string, item: string) => u8aToHex(prefixOf(pallet, item)) as Hex,
};

interface Position {
  hotkey: number;
  coldkey: number;
  netuid: number;
  shares: bigint;
}

export interface ScaleState {
  /** Raw `[key, value]` pairs, sorted by key. */
  pairs: [Hex, Hex][];
  counts: Record<string, number>;
  /** Some registered validator hotkeys (for stake activity) and their netuids. */
  validators: { hotkey: Uint8Array; netuids: number[] }[];
  /** Some holder accounts (public keys) to send TAO to. */
  holders: Uint8Array[];
  /** Σ of free balances written (rao). */
  writtenFreeRao: bigint;
  totalStakeRao: bigint;
  totalIssuanceRao: bigint;
  lockedRao: bigint;
  generateMs: number;
}

/**
 * Generates the state. `issuance` is what genesis already holds in `Balances.TotalIssuance`
 * (accounts the state does not overwrite keep theirs); `extraAccounts` are accounts to write as
 * well (the dev accounts that sign the bench's extrinsics), with their balances.
 */
export function generateScaleState(options: {
  seed: number;
  sizes: ScaleSizes;
  genesisIssuance: bigint;
  extraAccounts: { publicKey: Uint8Array; freeRao: bigint; nonce: number }[];
  /** Write `SubtensorModule.TokenSymbol` (the runtime's metadata has it; the epoch-by-tempo build does not). True by default. */
  tokenSymbol?: boolean;
}): ScaleState {
  const started = performance.now();
  const { sizes } = options;
  // Every phase draws from the one seeded sequence, in this order: the same seed gives the same state.
  const draws = seededDraws(options.seed);
  const writer = stateWriter();
  const { pairs, counts } = writer;

  const accounts = registerAccounts(draws, sizes);
  const { positions, unregisteredPositions } = stakePositions(draws, sizes, accounts);
  const { pools, stakingHotkeys, alphaOut } = sharePools(draws, accounts.netuids, positions);
  const { subnetTao, lockedRao } = writeSubnets(draws, writer, sizes, accounts, alphaOut, options.tokenSymbol ?? true);
  writeHotkeys(writer, accounts);
  writeSharePool(writer, accounts, positions, pools, stakingHotkeys);
  const { holders, writtenFreeRao } = writeBalances(draws, writer, sizes, accounts.coldkeys, options.extraAccounts);
  const { totalStakeRao, totalIssuanceRao } = writeTotals(writer, sizes, accounts.netuids, {
    subnetTao,
    lockedRao,
    genesisIssuance: options.genesisIssuance,
    writtenFreeRao,
  });

  const { hotkeys, coldkeys, validatorHotkeys, registeredOn } = accounts;
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  counts["Alpha on a hotkey not registered on the subnet"] = unregisteredPositions;
  counts["(hotkey, netuid) pools"] = pools.size;
  counts["hotkeys"] = hotkeys.length;
  counts["coldkeys"] = coldkeys.length;
  return {
    pairs,
    counts,
    validators: validatorHotkeys.slice(0, 32).map((hotkey) => ({
      hotkey: hotkeys[hotkey]!,
      netuids: [...registeredOn.get(hotkey)!].filter((netuid) => netuid !== 0),
    })),
    holders: holders.slice(0, 1_000),
    writtenFreeRao,
    totalStakeRao,
    totalIssuanceRao,
    lockedRao,
    generateMs: performance.now() - started,
  };
}

/** The seeded draws the generator makes. */
interface Draws {
  random: () => number;
  int: (below: number) => number;
  amount: (minTao: number, maxTao: number) => bigint;
  accountKey: () => Uint8Array;
}

function seededDraws(seed: number): Draws {
  const random = prng(seed);
  const int = (below: number) => Math.floor(random() * below);
  const amount = (minTao: number, maxTao: number) => {
    // Log-uniform in TAO, in rao: many small positions, few large ones.
    const tao = Math.exp(Math.log(minTao) + random() * (Math.log(maxTao) - Math.log(minTao)));
    return BigInt(Math.floor(tao * 1e6)) * 1_000n;
  };
  const accountKey = () => {
    const key = new Uint8Array(32);
    for (let index = 0; index < 32; index += 4) {
      const word = Math.floor(random() * 4_294_967_296);
      key[index] = word & 0xff;
      key[index + 1] = (word >>> 8) & 0xff;
      key[index + 2] = (word >>> 16) & 0xff;
      key[index + 3] = (word >>> 24) & 0xff;
    }
    return key;
  };
  return { random, int, amount, accountKey };
}

/** The raw pairs written so far, counted by storage item. */
interface StateWriter {
  pairs: [Hex, Hex][];
  counts: Record<string, number>;
  put: (item: string, key: Uint8Array, value: Uint8Array) => void;
  /** The key prefix of a `SubtensorModule` item. */
  sub: (item: string) => Uint8Array;
}

function stateWriter(): StateWriter {
  const pairs: [Hex, Hex][] = [];
  const counts: Record<string, number> = {};
  const put = (item: string, key: Uint8Array, value: Uint8Array) => {
    pairs.push([u8aToHex(key) as Hex, u8aToHex(value) as Hex]);
    counts[item] = (counts[item] ?? 0) + 1;
  };
  const P = (item: string) => prefixOf("SubtensorModule", item);
  const prefixes = new Map<string, Uint8Array>();
  const sub = (item: string) => {
    let prefix = prefixes.get(item);
    if (prefix === undefined) {
      prefix = P(item);
      prefixes.set(item, prefix);
    }
    return prefix;
  };
  return { pairs, counts, put, sub };
}

/** Accounts: hotkeys and coldkeys are indexes into these arrays. */
interface Accounts {
  hotkeys: Uint8Array[];
  coldkeys: Uint8Array[];
  hotkeyOwner: number[];
  newColdkey: () => number;
  validatorOwners: number[];
  validatorHotkeys: number[];
  netuids: number[];
  subnetOwner: Map<number, number>;
  subnetOwnerHotkey: Map<number, number>;
  /** Each subnet's hotkeys by uid. */
  registered: Map<number, number[]>;
  registeredOn: Map<number, Set<number>>;
  floating: number[];
}

/** The validator pool, every subnet's owner and uids, and the hotkeys registered nowhere. */
function registerAccounts(draws: Draws, sizes: ScaleSizes): Accounts {
  const { int, accountKey } = draws;
  const hotkeys: Uint8Array[] = [];
  const coldkeys: Uint8Array[] = [];
  const hotkeyOwner: number[] = [];
  const newColdkey = () => coldkeys.push(accountKey()) - 1;
  const newHotkey = (owner: number) => {
    hotkeyOwner.push(owner);
    return hotkeys.push(accountKey()) - 1;
  };

  const validatorOwners = Array.from({ length: sizes.validatorPool }, newColdkey);
  const validatorHotkeys = validatorOwners.map((owner) => newHotkey(owner));
  const netuids = Array.from({ length: sizes.subnets + 1 }, (_, netuid) => netuid);
  const subnetOwner = new Map<number, number>();
  const subnetOwnerHotkey = new Map<number, number>();
  /** Each subnet's hotkeys by uid. */
  const registered = new Map<number, number[]>();
  const registeredOn = new Map<number, Set<number>>();
  const register = (netuid: number, hotkey: number) => {
    registered.get(netuid)!.push(hotkey);
    let on = registeredOn.get(hotkey);
    if (on === undefined) {
      on = new Set();
      registeredOn.set(hotkey, on);
    }
    on.add(netuid);
  };

  // Root: the first rootUids validators.
  registered.set(0, []);
  for (const hotkey of validatorHotkeys.slice(0, sizes.rootUids)) register(0, hotkey);
  let minerColdkey = -1;
  let minersOfColdkey = sizes.minersPerColdkey;
  for (const netuid of netuids.slice(1)) {
    registered.set(netuid, []);
    const owner = newColdkey();
    const ownerHotkey = newHotkey(owner);
    subnetOwner.set(netuid, owner);
    subnetOwnerHotkey.set(netuid, ownerHotkey);
    register(netuid, ownerHotkey);
    const pool = [...validatorHotkeys];
    for (let index = 0; index < sizes.validatorsPerSubnet; index++)
      register(netuid, pool.splice(int(pool.length), 1)[0]!);
    while (registered.get(netuid)!.length < sizes.uidsPerSubnet) {
      if (minersOfColdkey === sizes.minersPerColdkey) [minerColdkey, minersOfColdkey] = [newColdkey(), 0];
      minersOfColdkey++;
      register(netuid, newHotkey(minerColdkey));
    }
  }
  const floating = Array.from({ length: sizes.floatingHotkeys }, () => newHotkey(newColdkey()));
  return {
    hotkeys,
    coldkeys,
    hotkeyOwner,
    newColdkey,
    validatorOwners,
    validatorHotkeys,
    netuids,
    subnetOwner,
    subnetOwnerHotkey,
    registered,
    registeredOn,
    floating,
  };
}

/** Positions: every registered hotkey's and floating hotkey's owner on it, then the nominators (new coldkeys). */
function stakePositions(
  draws: Draws,
  sizes: ScaleSizes,
  accounts: Accounts,
): { positions: Map<string, Position>; unregisteredPositions: number } {
  const { random, int, amount } = draws;
  const { hotkeyOwner, newColdkey, validatorHotkeys, registered, registeredOn, floating } = accounts;
  const positions = new Map<string, Position>();
  const stake = (hotkey: number, coldkey: number, netuid: number, shares: bigint) => {
    const id = `${hotkey}:${coldkey}:${netuid}`;
    const known = positions.get(id);
    if (known !== undefined) known.shares += shares;
    else positions.set(id, { hotkey, coldkey, netuid, shares });
  };
  for (const [netuid, uids] of registered) {
    for (const [uid, hotkey] of uids.entries()) {
      const isValidator = netuid === 0 || uid <= sizes.validatorsPerSubnet;
      stake(
        hotkey,
        hotkeyOwner[hotkey]!,
        netuid,
        netuid === 0 ? amount(100, 20_000) : isValidator ? amount(1_000, 200_000) : amount(1, 5_000),
      );
    }
  }
  for (const hotkey of floating) stake(hotkey, hotkeyOwner[hotkey]!, 1 + int(sizes.subnets), amount(1, 10_000));
  let unregisteredPositions = 0;
  for (let index = 0; index < sizes.nominators; index++) {
    const coldkey = newColdkey();
    const count = 1 + int(sizes.maxNominations);
    for (let nomination = 0; nomination < count; nomination++) {
      const roll = random();
      if (roll < 0.8) {
        const hotkey = validatorHotkeys[int(validatorHotkeys.length)]!;
        const on = [...registeredOn.get(hotkey)!];
        stake(hotkey, coldkey, on[int(on.length)]!, amount(0.1, 20_000));
      } else if (roll < 0.9) {
        // A validator's pool on a subnet where it holds no uid.
        const hotkey = validatorHotkeys[int(validatorHotkeys.length)]!;
        let netuid = 1 + int(sizes.subnets);
        while (registeredOn.get(hotkey)!.has(netuid)) netuid = 1 + int(sizes.subnets);
        stake(hotkey, coldkey, netuid, amount(0.1, 5_000));
        unregisteredPositions++;
      } else if (roll < 0.95) {
        stake(floating[int(floating.length)]!, coldkey, 1 + int(sizes.subnets), amount(0.1, 5_000));
        unregisteredPositions++;
      } else {
        stake(validatorHotkeys[int(sizes.rootUids)]!, coldkey, 0, amount(0.1, 2_000));
      }
    }
  }
  return { positions, unregisteredPositions };
}

interface SharePool {
  hotkey: number;
  netuid: number;
  shares: bigint;
  alpha: bigint;
}

/** Pools of (hotkey, netuid): shares and their value; each coldkey's hotkeys; each subnet's alpha out. */
function sharePools(
  draws: Draws,
  netuids: number[],
  positions: Map<string, Position>,
): { pools: Map<string, SharePool>; stakingHotkeys: Map<number, Set<number>>; alphaOut: Map<number, bigint> } {
  const { int } = draws;
  const pools = new Map<string, SharePool>();
  const stakingHotkeys = new Map<number, Set<number>>();
  for (const position of positions.values()) {
    const id = `${position.hotkey}:${position.netuid}`;
    const pool = pools.get(id) ?? { hotkey: position.hotkey, netuid: position.netuid, shares: 0n, alpha: 0n };
    pool.shares += position.shares;
    pools.set(id, pool);
    let staking = stakingHotkeys.get(position.coldkey);
    if (staking === undefined) {
      staking = new Set();
      stakingHotkeys.set(position.coldkey, staking);
    }
    staking.add(position.hotkey);
  }
  const alphaOut = new Map<number, bigint>(netuids.map((netuid) => [netuid, 0n]));
  for (const pool of pools.values()) {
    // Root keeps stake 1:1; a subnet pool's value grew with emission by 0..20 %.
    pool.alpha = pool.netuid === 0 ? pool.shares : (pool.shares * BigInt(1_000_000 + int(200_000))) / 1_000_000n;
    alphaOut.set(pool.netuid, alphaOut.get(pool.netuid)! + pool.alpha);
  }
  return { pools, stakingHotkeys, alphaOut };
}

const SYMBOLS = [
  "α",
  "β",
  "γ",
  "δ",
  "ε",
  "ζ",
  "η",
  "θ",
  "ι",
  "κ",
  "λ",
  "μ",
  "ν",
  "ξ",
  "ο",
  "π",
  "ρ",
  "σ",
  "τ",
  "υ",
  "φ",
  "χ",
  "ψ",
  "ω",
  "א",
  "ב",
  "ג",
  "ד",
  "ה",
  "ו",
  "ז",
  "ח",
];

/** Subnet storage: each subnet's settings and pool, then its uids. Returns each subnet's TAO and the sum of locks. */
function writeSubnets(
  draws: Draws,
  writer: StateWriter,
  sizes: ScaleSizes,
  accounts: Accounts,
  alphaOut: Map<number, bigint>,
  tokenSymbol: boolean,
): { subnetTao: Map<number, bigint>; lockedRao: bigint } {
  const { int, amount } = draws;
  const { put, sub } = writer;
  const { hotkeys, coldkeys, netuids, subnetOwner, subnetOwnerHotkey, registered } = accounts;
  const subnetTao = new Map<number, bigint>();
  let lockedRao = 0n;
  for (const netuid of netuids) {
    const uids = registered.get(netuid)!;
    const n = uids.length;
    const nu = u16(netuid);
    put("NetworksAdded", concat(sub("NetworksAdded"), nu), bool(true));
    put("SubnetMechanism", concat(sub("SubnetMechanism"), nu), u16(netuid === 0 ? 0 : 1));
    put("Tempo", concat(sub("Tempo"), nu), u16(TEMPO));
    put("SubnetworkN", concat(sub("SubnetworkN"), nu), u16(n));
    put("MaxAllowedUids", concat(sub("MaxAllowedUids"), nu), u16(netuid === 0 ? sizes.rootUids : sizes.uidsPerSubnet));
    put("NetworkRegisteredAt", concat(sub("NetworkRegisteredAt"), nu), u64(0n));
    let tao: bigint;
    if (netuid === 0) {
      tao = alphaOut.get(0)!;
      put("SubnetAlphaIn", concat(sub("SubnetAlphaIn"), nu), u64(0n));
    } else {
      tao = amount(1_000, 100_000);
      // Price 0.002 .. 0.2 TAO per alpha.
      const priceMilli = 2 + int(198);
      put("SubnetAlphaIn", concat(sub("SubnetAlphaIn"), nu), u64((tao * 1_000n) / BigInt(priceMilli)));
      const lock = amount(100, 5_000);
      lockedRao += lock;
      put("SubnetLocked", concat(sub("SubnetLocked"), nu), u64(lock));
      put("SubnetOwner", concat(sub("SubnetOwner"), nu), coldkeys[subnetOwner.get(netuid)!]!);
      put("SubnetOwnerHotkey", concat(sub("SubnetOwnerHotkey"), nu), hotkeys[subnetOwnerHotkey.get(netuid)!]!);
      if (tokenSymbol) put("TokenSymbol", concat(sub("TokenSymbol"), nu), bytes(SYMBOLS[netuid % SYMBOLS.length]!));
      put(
        "SubnetIdentities",
        concat(sub("SubnetIdentities"), b2c(nu)),
        concat(
          bytes(`subnet-${netuid}`),
          bytes(`https://github.com/example/subnet-${netuid}`),
          bytes(`ops@subnet-${netuid}.example`),
        ),
      );
    }
    subnetTao.set(netuid, tao);
    put("SubnetTAO", concat(sub("SubnetTAO"), nu), u64(tao));
    put("SubnetAlphaOut", concat(sub("SubnetAlphaOut"), nu), u64(alphaOut.get(netuid)!));

    writeSubnetUids(draws, writer, sizes, netuid, uids, hotkeys);
  }
  return { subnetTao, lockedRao };
}

/** A subnet's metagraph vectors, then each uid's keys; `uids` are its hotkeys by uid. */
function writeSubnetUids(
  draws: Draws,
  writer: StateWriter,
  sizes: ScaleSizes,
  netuid: number,
  uids: number[],
  hotkeys: Uint8Array[],
): void {
  const { random, int } = draws;
  const { put, sub } = writer;
  const n = uids.length;
  const nu = u16(netuid);
  const vector = <T>(make: (uid: number) => T, encode: (value: T) => Uint8Array) =>
    vec(Array.from({ length: n }, (_, uid) => encode(make(uid))));
  const isValidator = (uid: number) => netuid === 0 || uid <= sizes.validatorsPerSubnet;
  const share = () => int(65_536);
  put(
    "Active",
    concat(sub("Active"), nu),
    vector(() => random() < 0.97, bool),
  );
  put("ValidatorPermit", concat(sub("ValidatorPermit"), nu), vector(isValidator, bool));
  put("Rank", concat(sub("Rank"), nu), vector(share, u16));
  put("Trust", concat(sub("Trust"), nu), vector(share, u16));
  put("Consensus", concat(sub("Consensus"), nu), vector(share, u16));
  put(
    "Incentive",
    concat(sub("Incentive"), nu),
    vector((uid) => (isValidator(uid) ? 0 : share()), u16),
  );
  put(
    "Dividends",
    concat(sub("Dividends"), nu),
    vector((uid) => (isValidator(uid) ? share() : 0), u16),
  );
  put(
    "ValidatorTrust",
    concat(sub("ValidatorTrust"), nu),
    vector((uid) => (isValidator(uid) ? share() : 0), u16),
  );
  put("PruningScores", concat(sub("PruningScores"), nu), vector(share, u16));
  put(
    "Emission",
    concat(sub("Emission"), nu),
    vector(() => BigInt(int(5_000_000_000)), u64),
  );
  put(
    "LastUpdate",
    concat(sub("LastUpdate"), nu),
    vector(() => 0n, u64),
  );
  for (const [uid, hotkey] of uids.entries()) {
    const key = hotkeys[hotkey]!;
    put("Keys", concat(sub("Keys"), nu, u16(uid)), key);
    put("Uids", concat(sub("Uids"), nu, b2c(key)), u16(uid));
    put("IsNetworkMember", concat(sub("IsNetworkMember"), b2c(key), nu), bool(true));
    put("BlockAtRegistration", concat(sub("BlockAtRegistration"), nu, u16(uid)), u64(0n));
  }
}

/** Hotkeys: owner, owned, delegates. */
function writeHotkeys(writer: StateWriter, accounts: Accounts): void {
  const { put, sub } = writer;
  const { hotkeys, coldkeys, hotkeyOwner, validatorOwners, validatorHotkeys } = accounts;
  const owned = new Map<number, number[]>();
  for (const [hotkey, owner] of hotkeyOwner.entries()) {
    put("Owner", concat(sub("Owner"), b2c(hotkeys[hotkey]!)), coldkeys[owner]!);
    owned.set(owner, [...(owned.get(owner) ?? []), hotkey]);
  }
  for (const [owner, list] of owned)
    put(
      "OwnedHotkeys",
      concat(sub("OwnedHotkeys"), b2c(coldkeys[owner]!)),
      vec(list.map((hotkey) => hotkeys[hotkey]!)),
    );
  // Take 18 % (11,796 / 65,535), mainnet's default.
  for (const hotkey of validatorHotkeys) put("Delegates", concat(sub("Delegates"), b2c(hotkeys[hotkey]!)), u16(11_796));
  for (const owner of validatorOwners) {
    const name = `validator-${owner}`;
    put(
      "Identities",
      concat(sub("Identities"), b2c(coldkeys[owner]!)),
      concat(
        bytes(name),
        bytes(`https://${name}.example`),
        bytes(""),
        bytes(""),
        bytes(`${name}, a validator`),
        bytes(""),
      ),
    );
  }
}

/** Share pool: the positions, each (hotkey, netuid) pool's shares and value, each coldkey's hotkeys. */
function writeSharePool(
  writer: StateWriter,
  accounts: Accounts,
  positions: Map<string, Position>,
  pools: Map<string, SharePool>,
  stakingHotkeys: Map<number, Set<number>>,
): void {
  const { put, sub } = writer;
  const { hotkeys, coldkeys } = accounts;
  for (const position of positions.values()) {
    put(
      "Alpha",
      concat(sub("Alpha"), b2c(hotkeys[position.hotkey]!), b2c(coldkeys[position.coldkey]!), u16(position.netuid)),
      u64(position.shares),
    );
  }
  for (const pool of pools.values()) {
    const head = concat(b2c(hotkeys[pool.hotkey]!), u16(pool.netuid));
    put("TotalHotkeyShares", concat(sub("TotalHotkeyShares"), head), u64(pool.shares));
    put("TotalHotkeyAlpha", concat(sub("TotalHotkeyAlpha"), head), u64(pool.alpha));
  }
  for (const [coldkey, list] of stakingHotkeys)
    put(
      "StakingHotkeys",
      concat(sub("StakingHotkeys"), b2c(coldkeys[coldkey]!)),
      vec([...list].map((hotkey) => hotkeys[hotkey]!)),
    );
}

/** Balances: every coldkey, then plain holders up to `accounts`, then the extra (dev) accounts. */
function writeBalances(
  draws: Draws,
  writer: StateWriter,
  sizes: ScaleSizes,
  coldkeys: Uint8Array[],
  extraAccounts: { publicKey: Uint8Array; freeRao: bigint; nonce: number }[],
): { holders: Uint8Array[]; writtenFreeRao: bigint } {
  const { amount, accountKey } = draws;
  const { put, counts } = writer;
  let writtenFreeRao = 0n;
  const systemAccount = prefixOf("System", "Account");
  const holders: Uint8Array[] = [];
  const fund = (key: Uint8Array, freeRao: bigint, nonce = 0) => {
    put("System.Account", concat(systemAccount, b2c(key)), accountInfo(freeRao, nonce));
    writtenFreeRao += freeRao;
  };
  for (const key of coldkeys) fund(key, amount(0.01, 1_000));
  while (counts["System.Account"]! < sizes.accounts) {
    const key = accountKey();
    holders.push(key);
    fund(key, amount(0.001, 100));
  }
  for (const extra of extraAccounts) fund(extra.publicKey, extra.freeRao, extra.nonce);
  return { holders, writtenFreeRao };
}

/** Totals: stake, both issuances, the network counts and the rate limit. */
function writeTotals(
  writer: StateWriter,
  sizes: ScaleSizes,
  netuids: number[],
  written: { subnetTao: Map<number, bigint>; lockedRao: bigint; genesisIssuance: bigint; writtenFreeRao: bigint },
): { totalStakeRao: bigint; totalIssuanceRao: bigint } {
  const { put, sub } = writer;
  const totalStakeRao = [...written.subnetTao.values()].reduce((sum, value) => sum + value, 0n);
  const balancesIssuance = written.genesisIssuance + written.writtenFreeRao;
  put("TotalStake", sub("TotalStake"), u64(totalStakeRao));
  const totalIssuanceRao = balancesIssuance + totalStakeRao + written.lockedRao;
  // Spec 218's block emission follows the halving curve of the issuance against 21M TAO: an issuance
  // at or above it divides by zero in on_initialize and no block builds. Mainnet holds about 10M.
  if (totalIssuanceRao >= 21_000_000n * RAO)
    throw new Error(`the generated issuance ${totalIssuanceRao / RAO} TAO is above the 21M TAO supply`);
  put("TotalIssuance", sub("TotalIssuance"), u64(totalIssuanceRao));
  put("Balances.TotalIssuance", prefixOf("Balances", "TotalIssuance"), u128(balancesIssuance));
  put("TotalNetworks", sub("TotalNetworks"), u16(netuids.length));
  put("SubnetLimit", sub("SubnetLimit"), u16(sizes.subnets));
  // Registration rate limits off, so the bench's stake activity is never refused for them.
  put("NetworkRateLimit", sub("NetworkRateLimit"), u64(0n));
  return { totalStakeRao, totalIssuanceRao };
}

export interface WriteFigures {
  pairs: number;
  chunks: number;
  bytes: number;
  writeMs: number;
  blockMs: number;
  blockHash: Hex;
}

/**
 * Writes the pairs in chunks (each chunk sorted, in key order, so chopsticks' sorted key index of
 * each storage layer only appends), then builds one block on them.
 */
export async function writeScaleState(
  request: <T>(method: string, params?: unknown[]) => Promise<T>,
  pairs: readonly [Hex, Hex][],
  options: { chunk?: number; log?: (line: string) => void; blockNumber?: number } = {},
): Promise<WriteFigures> {
  const chunk = options.chunk ?? 25_000;
  let sent = 0;
  let bytesSent = 0;
  const started = performance.now();
  for (let at = 0; at < pairs.length; at += chunk) {
    const slice = pairs.slice(at, at + chunk);
    bytesSent += slice.reduce((sum, [key, value]) => sum + key.length + value.length + 8, 0);
    await request("dev_setStorage", [slice]);
    sent += slice.length;
    options.log?.(
      `  written ${sent.toLocaleString("en")} / ${pairs.length.toLocaleString("en")} pairs (${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
  }
  const writeMs = performance.now() - started;
  const before = Number((await request<{ number: string }>("chain_getHeader")).number);
  const blockStarted = performance.now();
  // `blockNumber`: the block gets that number (chopsticks' unsafeBlockHeight), e.g. to start just
  // before a run of epoch blocks.
  const expected = options.blockNumber ?? before + 1;
  const blockHash = await request<Hex>("dev_newBlock", [
    { count: 1, ...(options.blockNumber === undefined ? {} : { unsafeBlockHeight: options.blockNumber }) },
  ]);
  // chopsticks answers dev_newBlock with the old head when the runtime panicked building the block.
  const after = Number((await request<{ number: string }>("chain_getHeader")).number);
  if (after !== expected)
    throw new Error(
      `no block built on the written state (head stayed at ${after}): the runtime refused it; see the chopsticks log`,
    );
  return {
    pairs: pairs.length,
    chunks: Math.ceil(pairs.length / chunk),
    bytes: bytesSent,
    writeMs,
    blockMs: performance.now() - blockStarted,
    blockHash,
  };
}

export const u8aHex = (value: Uint8Array) => u8aToHex(value) as Hex;
