/** What the seed and the native simulator do on the chain, as the description groups it. */
export const NATIVE_ACTIVITY_KINDS = [
  "transfer",
  "stakeAdd",
  "stakeRemove",
  "stakeMove",
  "register",
  "subnetRegister",
  "evm",
  "delegate",
  "children",
  "identity",
] as const;
export type NativeActivityKind = (typeof NATIVE_ACTIVITY_KINDS)[number];

export interface NativeDemoAccount {
  /** `Alice`, `Alice/subnet-1`, `fresh`, `evm`, … */
  name: string;
  /** `coldkey`: a funded dev account that signs; `hotkey`: only registered and staked to; `fresh`: created by a transfer; `evm`: an H160's mapped account. */
  role: "coldkey" | "hotkey" | "fresh" | "evm";
  ss58: string;
  /** 0x-prefixed lowercase 32-byte account id. */
  publicKey: string;
  /** The public dev derivation (`//Alice`) of a coldkey, so another process can sign for it. */
  devUri?: string;
  /** EIP-55 H160 of an `evm` account, whose `ss58` is its mapped account (`blake2_256("evm:" ‖ h160)`). */
  evmH160?: string;
}

export interface NativeSeededSubnet {
  netuid: number;
  name: string;
  /** SS58 of the owner's coldkey and of the hotkey it registered the subnet with. */
  owner: string;
  ownerHotkey: string;
  /** SS58 hotkeys registered with `burnedRegister` (validators, the owner's child, miners). */
  neurons: string[];
  /** SS58 validating hotkeys, the owner's first. */
  validators: string[];
  /** SS58 mining hotkeys (registered, not staked to). */
  miners: string[];
  /** The hotkey the owner's validator named as its child (`setChildren`), when it did. */
  child?: string;
}

/** One extrinsic of the seed, where it landed. */
export interface NativeActivity {
  kind: NativeActivityKind;
  /** e.g. `transfer Alice → Bob 100 TAO`. */
  label: string;
  /** `pallet.call`, e.g. `balances.transferKeepAlive`. */
  call: string;
  blockNumber: number;
  blockHash: string;
  extrinsicIndex: number;
  extrinsicHash: string;
  /** The Ethereum transaction hash of an `evm` activity. */
  ethereumHash?: string;
}

/** What `seedNativeNetwork` left on the chain: plain JSON, for tests and the stack summary. */
export interface SeededNativeNetwork {
  accounts: NativeDemoAccount[];
  /** The subnets it registered, in order. */
  netuids: number[];
  subnets: NativeSeededSubnet[];
  /** Genesis' subnet 1, whose pool the seed deepens and which it gives two neurons. */
  genesisSubnet: NativeSeededSubnet;
  activity: Record<NativeActivityKind, NativeActivity[]>;
  /** Every subnet's tempo after the seed (the runtime staggers their epochs by netuid). */
  tempo: number;
  /** The first and last block holding its extrinsics. */
  blocks: { first: number; last: number };
}
