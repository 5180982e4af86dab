import { keccak256, stringToHex, type Hex } from "viem";

/**
 * The native chain's starting state: the root subnet plus three dynamic subnets, validators that
 * run on several of them (as real operators do), miners, and holders staking to the validators.
 * Everything is fixed data so two devnets start identical; keys are 32-byte public keys derived from
 * labels (no one signs with them: they stand for Substrate accounts, which have no EVM key).
 */

/** A Substrate-side public key for a label, stable across runs. */
export function devnetPublicKey(label: string): Hex {
  return keccak256(stringToHex(`devnet:${label}`));
}

const RAO = 1_000_000_000n;

export interface SubnetHyperparameters {
  servingRateLimit: bigint;
  minDifficulty: bigint;
  maxDifficulty: bigint;
  weightsVersionKey: bigint;
  weightsSetRateLimit: bigint;
  adjustmentAlpha: bigint;
  maxWeightLimit: number;
  immunityPeriod: number;
  minAllowedWeights: number;
  kappa: number;
  rho: number;
  alphaSigmoidSteepness: number;
  activityCutoff: number;
  networkRegistrationAllowed: boolean;
  networkPowRegistrationAllowed: boolean;
  commitRevealWeightsEnabled: boolean;
  liquidAlphaEnabled: boolean;
  yuma3Enabled: boolean;
  bondsResetEnabled: boolean;
  minBurn: bigint;
  maxBurn: bigint;
  difficulty: bigint;
  bondsMovingAverage: bigint;
  commitRevealWeightsInterval: bigint;
  alphaLow: number;
  alphaHigh: number;
}

/** The chain's defaults (pallets/subtensor lib.rs), which subnets then vary. */
const defaultHyperparameters: SubnetHyperparameters = {
  servingRateLimit: 50n,
  minDifficulty: 10_000_000n,
  maxDifficulty: 4_611_686_018_427_387_903n,
  weightsVersionKey: 0n,
  weightsSetRateLimit: 100n,
  adjustmentAlpha: 0n,
  maxWeightLimit: 65_535,
  immunityPeriod: 4_096,
  minAllowedWeights: 1,
  kappa: 32_767,
  rho: 10,
  alphaSigmoidSteepness: 1_000,
  activityCutoff: 5_000,
  networkRegistrationAllowed: true,
  networkPowRegistrationAllowed: false,
  commitRevealWeightsEnabled: true,
  liquidAlphaEnabled: false,
  yuma3Enabled: false,
  bondsResetEnabled: false,
  minBurn: 500_000n,
  maxBurn: 100n * RAO,
  difficulty: 10_000_000n,
  bondsMovingAverage: 900_000n,
  commitRevealWeightsInterval: 1n,
  alphaLow: 45_875,
  alphaHigh: 58_982,
};

export interface DevnetSubnetSeed {
  netuid: number;
  name: string;
  symbol: string;
  /** 0 stable (root), 1 dynamic. */
  mechanism: 0 | 1;
  /** Pool reserves at registration: rao and nano-alpha. */
  taoIn: bigint;
  alphaIn: bigint;
  tempo: number;
  emaPriceHalvingBlocks: bigint;
  hyperparameters: SubnetHyperparameters;
  /** Miners registered after the validators, each with its own hotkey and coldkey. */
  miners: number;
  /** `SubnetIdentitiesV3[netuid]`; the root subnet has none, as on the chain. */
  identity?: SubnetIdentity;
  /** The validator (index in `devnetValidators`) whose keys own the subnet (`SubnetOwner`, `SubnetOwnerHotkey`). */
  owner?: number;
}

/** An on-chain subnet identity (`SubnetIdentitiesV3`), fields as the chain declares them. */
export interface SubnetIdentity {
  subnet_name: string;
  github_repo: string;
  subnet_contact: string;
  subnet_url: string;
  discord: string;
  description: string;
  logo_url: string;
  additional: string;
}

function subnetIdentity(name: string): SubnetIdentity {
  const slug = name.toLowerCase();
  return {
    subnet_name: name,
    github_repo: `https://github.com/devnet/${slug}`,
    subnet_contact: `ops@${slug}.devnet.invalid`,
    subnet_url: `https://${slug}.devnet.invalid`,
    discord: `${slug}#0001`,
    description: `${name}, a devnet subnet`,
    logo_url: `https://${slug}.devnet.invalid/logo.png`,
    additional: "",
  };
}

export const devnetSubnets: readonly DevnetSubnetSeed[] = [
  { netuid: 0, name: "root", symbol: "Τ", mechanism: 0, taoIn: 0n, alphaIn: 0n, tempo: 100, emaPriceHalvingBlocks: 201_600n, hyperparameters: { ...defaultHyperparameters, networkRegistrationAllowed: false }, miners: 0 },
  { netuid: 1, name: "Kestrel", symbol: "κ", mechanism: 1, taoIn: 30_000n * RAO, alphaIn: 1_000_000n * RAO, tempo: 360, emaPriceHalvingBlocks: 201_600n, hyperparameters: { ...defaultHyperparameters, kappa: 32_000, immunityPeriod: 5_000 }, miners: 2, identity: subnetIdentity("Kestrel"), owner: 0 },
  { netuid: 2, name: "Lumen", symbol: "λ", mechanism: 1, taoIn: 8_000n * RAO, alphaIn: 2_000_000n * RAO, tempo: 360, emaPriceHalvingBlocks: 201_600n, hyperparameters: { ...defaultHyperparameters, liquidAlphaEnabled: true, yuma3Enabled: true }, miners: 3, identity: subnetIdentity("Lumen"), owner: 2 },
  { netuid: 3, name: "Meridian", symbol: "μ", mechanism: 1, taoIn: 120_000n * RAO, alphaIn: 500_000n * RAO, tempo: 99, emaPriceHalvingBlocks: 100_800n, hyperparameters: { ...defaultHyperparameters, commitRevealWeightsEnabled: false, minBurn: 1_000_000n }, miners: 2, identity: subnetIdentity("Meridian"), owner: 1 },
];

/** An on-chain identity (`IdentitiesV2`), keyed by the validator's coldkey on the chain. */
export interface ChainIdentity {
  name: string;
  url: string;
  github_repo: string;
  image: string;
  discord: string;
  description: string;
  additional: string;
}

export interface DevnetValidatorSeed {
  hotkey: Hex;
  coldkey: Hex;
  /** `Delegates[hotkey]`, u16 over 65535 (the chain's default is 11_796, 18%). */
  take: number;
  identity: ChainIdentity;
  /** Netuids the validator holds a UID and a permit on, and its self-stake there in rao. */
  subnets: readonly number[];
  selfStake: bigint;
}

function identity(name: string, slug: string): ChainIdentity {
  return {
    name,
    url: `https://${slug}.devnet.invalid`,
    github_repo: `https://github.com/${slug}/validator`,
    image: "",
    discord: `${slug}#0001`,
    description: `${name}, a devnet validator`,
    additional: "",
  };
}

export const devnetValidators: readonly DevnetValidatorSeed[] = [
  { hotkey: devnetPublicKey("validator:0:hotkey"), coldkey: devnetPublicKey("validator:0:coldkey"), take: 11_796, identity: identity("Devnet Foundation", "devnet-foundation"), subnets: [0, 1, 2, 3], selfStake: 5_000n * RAO },
  { hotkey: devnetPublicKey("validator:1:hotkey"), coldkey: devnetPublicKey("validator:1:coldkey"), take: 5_898, identity: identity("Granite Stake", "granite-stake"), subnets: [0, 1, 3], selfStake: 2_500n * RAO },
  { hotkey: devnetPublicKey("validator:2:hotkey"), coldkey: devnetPublicKey("validator:2:coldkey"), take: 0, identity: identity("Northwind Validators", "northwind"), subnets: [0, 2, 3], selfStake: 1_200n * RAO },
];

/** Nominators: coldkeys staking TAO to a validator's hotkey on a subnet. */
export interface DevnetHolderSeed {
  coldkey: Hex;
  stakes: readonly { validator: number; netuid: number; tao: bigint }[];
}

export const devnetHolders: readonly DevnetHolderSeed[] = Array.from({ length: 6 }, (_, index) => {
  const validator = index % devnetValidators.length;
  const dynamicSubnets = devnetValidators[validator]!.subnets.filter((netuid) => netuid !== 0);
  return {
    coldkey: devnetPublicKey(`holder:${index}:coldkey`),
    stakes: [
      { validator, netuid: dynamicSubnets[index % dynamicSubnets.length]!, tao: BigInt(50 + index * 35) * RAO },
      { validator: (index + 1) % devnetValidators.length, netuid: 0, tao: BigInt(100 + index * 10) * RAO },
    ],
  };
});

/** The miner of a subnet at an index, with its own keys. */
export function devnetMiner(netuid: number, index: number): { hotkey: Hex; coldkey: Hex } {
  return {
    hotkey: devnetPublicKey(`miner:${netuid}:${index}:hotkey`),
    coldkey: devnetPublicKey(`miner:${netuid}:${index}:coldkey`),
  };
}

/**
 * Network-wide storage items the deploy writes (read through StorageQuery 0x…0807). `TotalIssuance`
 * starts at the TAO the seeded pools hold plus `freeIssuanceRao` standing for free balances; the
 * simulator adds each step's emitted TAO to it. The subnet limit differs from the chain's default
 * (128) so that a reader that falls back to the default is told apart from one that read it.
 */
export const devnetNetworkStorage = {
  blockEmissionRao: 1_000_000_000n,
  subnetLimit: 64,
  freeIssuanceRao: 1_000_000n * RAO,
} as const;
