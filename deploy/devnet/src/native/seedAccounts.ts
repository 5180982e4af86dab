import { accountFromEvmAddress } from "@platform/subtensor";
import type { Keyring } from "@polkadot/api";
import type { KeyringPair } from "@polkadot/keyring/types";
import { u8aToHex } from "@polkadot/util";
import { randomAsU8a } from "@polkadot/util-crypto";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { NATIVE_DEV_ACCOUNT_NAMES, nativeDevPair } from "./nativeChain.js";
import type { NativeDemoAccount } from "./seedTypes.js";

/**
 * A subnet's pool as months of a real network leave it: TAO in the pool and alpha per TAO (the
 * inverse of the price). Written as history (seedHistory.ts): no extrinsic deepens a pool in this
 * runtime, whose registration starts every pool at 1 rao against 1 nano-alpha.
 */
export interface SeedPool {
  tao: bigint;
  alphaPerTao: bigint;
}

/** One subnet of the demo market: who owns it, validates on it (with how much of their own stake) and mines on it. */
export interface SeedSubnetPlan {
  name: string;
  owner: string;
  /** Validators: coldkey and self-stake in TAO; the owner's own hotkey validates first, with a child hotkey. */
  validators: readonly { coldkey: string; selfStakeTao: bigint }[];
  /** Miners: registered, no stake (as most of Finney's miners). */
  miners: readonly string[];
  identityAtRegistration: boolean;
  pool: SeedPool;
}

/**
 * The demo market, sized like a small Finney: pools of 1,200–4,000 TAO at 0.006–0.2 TAO per alpha
 * before the seed's own stake moves them, three validators and three miners a subnet. The stake the
 * seed adds buys well under half of each pool's TAO, so every price stays inside [0.001, 1].
 */
export const SEED_SUBNETS: readonly SeedSubnetPlan[] = [
  {
    name: "seed-alpha",
    owner: "Alice",
    validators: [
      { coldkey: "Alice", selfStakeTao: 150n },
      { coldkey: "Dave", selfStakeTao: 80n },
      { coldkey: "Eve", selfStakeTao: 40n },
    ],
    miners: ["Bob", "Ferdie", "Charlie"],
    identityAtRegistration: true,
    pool: { tao: 1_800n, alphaPerTao: 40n },
  },
  {
    name: "seed-beta",
    owner: "Bob",
    validators: [
      { coldkey: "Bob", selfStakeTao: 300n },
      { coldkey: "Ferdie", selfStakeTao: 120n },
      { coldkey: "Alice", selfStakeTao: 60n },
    ],
    miners: ["Charlie", "Dave", "Eve"],
    identityAtRegistration: true,
    pool: { tao: 4_000n, alphaPerTao: 5n },
  },
  // Registered bare and named afterwards, so both ways of setting a subnet identity occur.
  {
    name: "seed-gamma",
    owner: "Charlie",
    validators: [
      { coldkey: "Charlie", selfStakeTao: 90n },
      { coldkey: "Bob", selfStakeTao: 50n },
      { coldkey: "Dave", selfStakeTao: 30n },
    ],
    miners: ["Alice", "Eve", "Ferdie"],
    identityAtRegistration: false,
    pool: { tao: 1_200n, alphaPerTao: 160n },
  },
];

/** Genesis' own subnet 1 (owned by a key without a known seed): its pool gets depth, and two neurons join it. */
export const GENESIS_SUBNET = {
  netuid: 1,
  name: "genesis",
  validators: [{ coldkey: "Ferdie", selfStakeTao: 70n }],
  miners: ["Dave"],
  pool: { tao: 2_400n, alphaPerTao: 12n },
} as const;

/**
 * Coldkeys that only hold and delegate (Finney's nominators): funded by transfers, each staking to
 * validators of other coldkeys on one or two subnets. Their dev-style URIs are public test keys.
 */
export const SEED_NOMINATORS = ["Nominator1", "Nominator2", "Nominator3", "Nominator4"] as const;

/** The keys the seed signs with or names, and their description. */
export interface SeedKeys {
  /** Dev accounts and nominators, by name; each signs. */
  dev: Map<string, KeyringPair>;
  /** `//Dave//seed-alpha`: Dave's validating hotkey on seed-alpha (the owner's is registered with the subnet). */
  hotkey(coldkey: string, subnet: string): KeyringPair;
  /** `//Bob//seed-alpha//miner`: Bob's mining hotkey on seed-alpha. */
  minerHotkey(coldkey: string, subnet: string): KeyringPair;
  /** `//Alice//seed-alpha//child`: the child hotkey the owner's validator delegates weight to. */
  childHotkey(coldkey: string, subnet: string): KeyringPair;
  /** Created at run time so it is new on any chain; it only ever receives. */
  fresh: KeyringPair;
  /** A key generated at run time; its mapped account is funded and it sends one EVM transfer. */
  evmKey: Hex;
  evmRecipient: Address;
  accounts: NativeDemoAccount[];
}

export function seedKeys(keyring: Keyring): SeedKeys {
  const signers = [...NATIVE_DEV_ACCOUNT_NAMES, ...SEED_NOMINATORS];
  const dev = new Map(signers.map((name) => [name as string, nativeDevPair(keyring, name)]));
  const hotkey = (coldkey: string, subnet: string) => keyring.addFromUri(`//${coldkey}//${subnet}`);
  const minerHotkey = (coldkey: string, subnet: string) => keyring.addFromUri(`//${coldkey}//${subnet}//miner`);
  const childHotkey = (coldkey: string, subnet: string) => keyring.addFromUri(`//${coldkey}//${subnet}//child`);
  const fresh = keyring.addFromSeed(randomAsU8a(32));
  const evmKey = generatePrivateKey();
  const evmRecipient = privateKeyToAccount(generatePrivateKey()).address;
  const hotkeys = [...SEED_SUBNETS, GENESIS_SUBNET].flatMap((subnet) => [
    ...subnet.validators.map(({ coldkey }) =>
      describe(`${coldkey}/${subnet.name}`, "hotkey", hotkey(coldkey, subnet.name)),
    ),
    ...subnet.miners.map((coldkey) =>
      describe(`${coldkey}/${subnet.name}/miner`, "hotkey", minerHotkey(coldkey, subnet.name)),
    ),
  ]);
  const children = SEED_SUBNETS.map((subnet) =>
    describe(`${subnet.owner}/${subnet.name}/child`, "hotkey", childHotkey(subnet.owner, subnet.name)),
  );
  const accounts: NativeDemoAccount[] = [
    ...[...dev].map(([name, pair]) => ({ ...describe(name, "coldkey", pair), devUri: `//${name}` })),
    ...hotkeys,
    ...children,
    describe("fresh", "fresh", fresh),
    evmAccount("evm", privateKeyToAccount(evmKey).address),
    evmAccount("evm-recipient", evmRecipient),
  ];
  return { dev, hotkey, minerHotkey, childHotkey, fresh, evmKey, evmRecipient, accounts };
}

/** A signer's pair by name; a typo in a plan is a bug, so it throws. */
export function devPair(keys: SeedKeys, name: string): KeyringPair {
  const pair = keys.dev.get(name);
  if (pair === undefined) throw new Error(`no dev account ${name}`);
  return pair;
}

function describe(name: string, role: NativeDemoAccount["role"], pair: KeyringPair): NativeDemoAccount {
  return { name, role, ss58: pair.address, publicKey: u8aToHex(pair.publicKey) };
}

function evmAccount(name: string, h160: Address): NativeDemoAccount {
  const mapped = accountFromEvmAddress(h160);
  return { name, role: "evm", ss58: mapped.ss58, publicKey: mapped.publicKey, evmH160: h160 };
}
