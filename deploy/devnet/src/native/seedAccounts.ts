import type { Keyring } from "@polkadot/api";
import type { KeyringPair } from "@polkadot/keyring/types";
import { u8aToHex } from "@polkadot/util";
import { randomAsU8a } from "@polkadot/util-crypto";
import { accountFromEvmAddress } from "@platform/subtensor";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { NATIVE_DEV_ACCOUNT_NAMES, nativeDevPair } from "./nativeChain.js";
import type { NativeDemoAccount } from "./seedTypes.js";

/** The subnets the seed registers: who owns each and which dev accounts register a neuron on it. */
export const SEED_SUBNETS = [
  { name: "seed-alpha", owner: "Alice", neurons: ["Dave", "Eve"], identityAtRegistration: true },
  { name: "seed-beta", owner: "Bob", neurons: ["Ferdie", "Alice"], identityAtRegistration: true },
  // Registered bare and named afterwards, so both ways of setting a subnet identity occur.
  { name: "seed-gamma", owner: "Charlie", neurons: ["Bob", "Dave"], identityAtRegistration: false },
] as const;

export type SeedSubnetPlan = (typeof SEED_SUBNETS)[number];

/** The keys the seed signs with or names, and their description. */
export interface SeedKeys {
  dev: Map<string, KeyringPair>;
  /** `//Dave//seed-alpha`: Dave's hotkey on seed-alpha (owner and neuron hotkeys alike). */
  hotkey(coldkey: string, subnet: string): KeyringPair;
  /** Created at run time so it is new on any chain; it only ever receives. */
  fresh: KeyringPair;
  /** A key generated at run time; its mapped account is funded and it sends one EVM transfer. */
  evmKey: Hex;
  evmRecipient: Address;
  accounts: NativeDemoAccount[];
}

export function seedKeys(keyring: Keyring): SeedKeys {
  const dev = new Map(NATIVE_DEV_ACCOUNT_NAMES.map((name) => [name as string, nativeDevPair(keyring, name)]));
  const hotkey = (coldkey: string, subnet: string) => keyring.addFromUri(`//${coldkey}//${subnet}`);
  const fresh = keyring.addFromSeed(randomAsU8a(32));
  const evmKey = generatePrivateKey();
  const evmRecipient = privateKeyToAccount(generatePrivateKey()).address;
  const accounts: NativeDemoAccount[] = [
    ...[...dev].map(([name, pair]) => ({ ...describe(name, "coldkey", pair), devUri: `//${name}` })),
    ...SEED_SUBNETS.flatMap((subnet) =>
      [subnet.owner, ...subnet.neurons].map((coldkey) =>
        describe(`${coldkey}/${subnet.name}`, "hotkey", hotkey(coldkey, subnet.name)),
      ),
    ),
    describe("fresh", "fresh", fresh),
    evmAccount("evm", privateKeyToAccount(evmKey).address),
    evmAccount("evm-recipient", evmRecipient),
  ];
  return { dev, hotkey, fresh, evmKey, evmRecipient, accounts };
}

/** A dev account's pair by name; a typo in a plan is a bug, so it throws. */
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
