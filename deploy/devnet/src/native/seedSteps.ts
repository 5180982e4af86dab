import { accountFromEvmAddress } from "@platform/subtensor";
import { privateKeyToAccount } from "viem/accounts";
import { evmTransferCall } from "./evmTransfer.js";
import { type NativeChain, nativeTx, readNativeInteger } from "./nativeChain.js";
import { findEvents } from "./nativeEvents.js";
import {
  type BlockProducer,
  type LandedCall,
  type NativeCall,
  NativeCallError,
  sendNativeCalls,
} from "./nativeSubmit.js";
import {
  devPair,
  GENESIS_SUBNET,
  SEED_NOMINATORS,
  SEED_SUBNETS,
  type SeedKeys,
  type SeedSubnetPlan,
} from "./seedAccounts.js";
import { RAO_PER_TAO } from "./seedHistory.js";
import type { NativeActivity, NativeActivityKind, NativeSeededSubnet } from "./seedTypes.js";

/** Mechanism 1: a dynamic subnet with its own alpha pool. */
const DYNAMIC_MECHANISM = 1;
/** What each nominator is sent to delegate from. */
const NOMINATOR_FUNDS_RAO = 2_000n * RAO_PER_TAO;
/** Registrations a subnet takes per block and per interval: the seed registers up to seven at once. */
const REGISTRATIONS_PER_BLOCK = 16;
/** The owner's validator gives its child half of its weight (`u64::MAX / 2`). */
const CHILD_PROPORTION = (1n << 63n) - 1n;

/** The state a seed run builds up, step by step. */
export interface SeedRun {
  chain: NativeChain;
  producer: BlockProducer;
  keys: SeedKeys;
  /** Every subnet's tempo from the seed on. */
  tempo: number;
  subnets: NativeSeededSubnet[];
  /** Genesis' subnet 1 as the seed leaves it (not registered by it). */
  genesisSubnet: NativeSeededSubnet;
  activity: NativeActivity[];
  blockNumbers: number[];
}

/** A call of the seed; one with a kind goes into the description. */
type SeedCall = NativeCall & { kind?: NativeActivityKind; ethereumHash?: string };

/** Sends one step's calls into the same block and records where each landed. */
async function sendStep(run: SeedRun, calls: readonly SeedCall[]): Promise<LandedCall[]> {
  const landed = await sendNativeCalls(run.chain, calls, run.producer);
  landed.forEach((result, index) => {
    const { kind, ethereumHash } = calls[index]!;
    run.blockNumbers.push(result.blockNumber);
    if (kind === undefined) return;
    const { label, call, blockNumber, blockHash, extrinsicIndex, extrinsicHash } = result;
    run.activity.push({
      kind,
      label,
      call,
      blockNumber,
      blockHash,
      extrinsicIndex,
      extrinsicHash,
      ...(ethereumHash === undefined ? {} : { ethereumHash }),
    });
  });
  return landed;
}

const tx = (run: SeedRun, pallet: string, call: string) => nativeTx(run.chain.api, pallet, call);

function signed(
  run: SeedRun,
  signer: string,
  label: string,
  extrinsic: SeedCall["tx"],
  kind?: NativeActivityKind,
): SeedCall {
  return { label, tx: extrinsic, signer: devPair(run.keys, signer), ...(kind === undefined ? {} : { kind }) };
}

/** Block 1: lifts the subnet rate limit (sudo), registers the subnets, and moves balances around. */
export async function registerSubnets(run: SeedRun): Promise<void> {
  const sudo = tx(run, "sudo", "sudo")(tx(run, "adminUtils", "sudoSetNetworkRateLimit")(0));
  const registrations = SEED_SUBNETS.map((plan): SeedCall => {
    const hotkey = run.keys.hotkey(plan.owner, plan.name).address;
    const extrinsic = plan.identityAtRegistration
      ? tx(run, "subtensorModule", "registerNetworkWithIdentity")(hotkey, DYNAMIC_MECHANISM, subnetIdentity(plan.name))
      : tx(run, "subtensorModule", "registerNetwork")(hotkey, DYNAMIC_MECHANISM);
    return signed(run, plan.owner, `subnet ${plan.name} registered by ${plan.owner}`, extrinsic, "subnetRegister");
  });
  const evmMapped = accountFromEvmAddress(privateKeyToAccount(run.keys.evmKey).address).ss58;
  const landed = await sendStep(run, [
    signed(run, "Alice", "sudo: network rate limit 0", sudo),
    ...registrations,
    transfer(run, "Alice", devPair(run.keys, "Bob").address, "Bob", 100n * RAO_PER_TAO),
    transfer(run, "Bob", run.keys.fresh.address, "a fresh account", 10n * RAO_PER_TAO),
    transfer(run, "Charlie", devPair(run.keys, "Dave").address, "Dave", (7n * RAO_PER_TAO) / 2n),
    transfer(run, "Eve", evmMapped, "the EVM key's mapped account", 2n * RAO_PER_TAO),
  ]);
  for (const [index, plan] of SEED_SUBNETS.entries()) {
    const added = findEvents(landed[index + 1]!.events, "subtensorModule.NetworkAdded")[0];
    if (added === undefined) throw new NativeCallError(`subnet ${plan.name}: no SubtensorModule.NetworkAdded event`);
    const ownerHotkey = run.keys.hotkey(plan.owner, plan.name).address;
    run.subnets.push({
      netuid: Number(added.data[0]!.toString()),
      name: plan.name,
      owner: devPair(run.keys, plan.owner).address,
      ownerHotkey,
      neurons: [],
      validators: [ownerHotkey],
      miners: [],
    });
  }
}

function transfer(run: SeedRun, from: string, to: string, toName: string, rao: bigint): SeedCall {
  const extrinsic = tx(run, "balances", "transferKeepAlive")(to, rao);
  return signed(run, from, `transfer ${from} → ${toName} ${formatTao(rao)} TAO`, extrinsic, "transfer");
}

function subnetIdentity(name: string) {
  return { subnetName: name, githubRepo: `https://github.com/example/${name}`, subnetContact: `${name}@example.com` };
}

/**
 * Block 2, sudo: every subnet's tempo (root's too), registrations wide enough for the seed's neurons,
 * no delegate-take rate limit (a coldkey becomes a delegate on two subnets at once) and no owner cut.
 * The owner cut is 0 because this runtime books it wrong: `run_coinbase` credits it to the owner's
 * position (`Alpha`, `TotalHotkeyShares`, `TotalHotkeyAlpha`) and *subtracts* it from
 * `SubnetAlphaOut`, so with Finney's 18 % every epoch would push the holders' alpha above the
 * subnet's outstanding alpha by twice the cut (docs/local-stack.md, "The native network").
 * Also: nominators funded, the bare subnet named, and an EVM transfer.
 */
export async function configureSubnets(run: SeedRun): Promise<void> {
  const netuids = [0, GENESIS_SUBNET.netuid, ...run.subnets.map((subnet) => subnet.netuid)];
  const admin = (call: string, ...args: unknown[]) => tx(run, "adminUtils", call)(...args);
  const settings = [
    ...netuids.map((netuid) => admin("sudoSetTempo", netuid, run.tempo)),
    ...netuids
      .filter((netuid) => netuid !== 0)
      .flatMap((netuid) => [
        admin("sudoSetMaxRegistrationsPerBlock", netuid, REGISTRATIONS_PER_BLOCK),
        admin("sudoSetTargetRegistrationsPerInterval", netuid, REGISTRATIONS_PER_BLOCK),
      ]),
    admin("sudoSetTxDelegateTakeRateLimit", 0),
    admin("sudoSetSubnetOwnerCut", 0),
  ];
  const sudo = tx(run, "sudo", "sudo")(tx(run, "utility", "batchAll")(settings));
  const identities = SEED_SUBNETS.flatMap((plan, index): SeedCall[] => {
    if (plan.identityAtRegistration) return [];
    const { subnetName, githubRepo, subnetContact } = subnetIdentity(plan.name);
    const extrinsic = tx(run, "subtensorModule", "setSubnetIdentity")(
      run.subnets[index]!.netuid,
      subnetName,
      githubRepo,
      subnetContact,
    );
    return [signed(run, plan.owner, `identity of subnet ${plan.name}`, extrinsic)];
  });
  const evm = await evmTransferCall(run.chain.api, {
    privateKey: run.keys.evmKey,
    to: run.keys.evmRecipient,
    valueWei: 10n ** 18n,
    nonce: 0,
  });
  const evmCall: SeedCall = {
    kind: "evm",
    label: `EVM transfer ${evm.from} → ${run.keys.evmRecipient} 1 TAO`,
    tx: evm.tx,
    ethereumHash: evm.ethereumHash,
  };
  const nominators = SEED_NOMINATORS.map((name) =>
    transfer(run, "Alice", devPair(run.keys, name).address, name, NOMINATOR_FUNDS_RAO),
  );
  const landed = await sendStep(run, [
    signed(run, "Alice", `sudo: tempo ${run.tempo}, registration limits, no owner cut`, sudo),
    ...nominators,
    ...identities,
    evmCall,
  ]);
  checkEvmExecuted(evmCall.label, landed.at(-1)!);
}

/** `ethereum.transact` succeeds as an extrinsic even when the EVM reverts; Executed's exit reason tells. */
function checkEvmExecuted(label: string, landed: LandedCall): void {
  const executed = findEvents(landed.events, "ethereum.Executed")[0];
  const exit = executed?.data[3] as unknown as { isSucceed: boolean; toString(): string } | undefined;
  if (exit === undefined || !exit.isSucceed)
    throw new NativeCallError(`${label}: EVM did not succeed (${exit?.toString() ?? "no Ethereum.Executed"})`);
}

/** A subnet of the plan with where it is on the chain. */
type PlacedSubnet = {
  plan: Pick<SeedSubnetPlan, "name" | "validators" | "miners">;
  subnet: NativeSeededSubnet;
  owner?: string;
};

function placedSubnets(run: SeedRun): PlacedSubnet[] {
  return [
    ...SEED_SUBNETS.map((plan, index) => ({ plan, subnet: run.subnets[index]!, owner: plan.owner })),
    { plan: GENESIS_SUBNET, subnet: run.genesisSubnet },
  ];
}

/** Block 3: validators, the owners' child hotkeys and miners register on every subnet (`burnedRegister`). */
export async function registerNeurons(run: SeedRun): Promise<void> {
  const calls: (SeedCall & { add: () => void })[] = [];
  for (const { plan, subnet, owner } of placedSubnets(run)) {
    const register = (coldkey: string, hotkey: string, role: string, add: () => void) =>
      calls.push({
        ...signed(
          run,
          coldkey,
          `${role} ${coldkey}/${plan.name} on subnet ${subnet.netuid}`,
          tx(run, "subtensorModule", "burnedRegister")(subnet.netuid, hotkey),
          "register",
        ),
        add: () => {
          subnet.neurons.push(hotkey);
          add();
        },
      });
    for (const { coldkey } of plan.validators) {
      if (coldkey === owner) continue;
      const hotkey = run.keys.hotkey(coldkey, plan.name).address;
      register(coldkey, hotkey, "validator", () => subnet.validators.push(hotkey));
    }
    if (owner !== undefined) {
      const child = run.keys.childHotkey(owner, plan.name).address;
      register(owner, child, "child hotkey", () => (subnet.child = child));
    }
    for (const coldkey of plan.miners) {
      const hotkey = run.keys.minerHotkey(coldkey, plan.name).address;
      register(coldkey, hotkey, "miner", () => subnet.miners.push(hotkey));
    }
  }
  await sendStep(run, calls);
  for (const call of calls) call.add();
}

/**
 * Nominations a nominator makes: (nominator, subnet index in placedSubnets, validator index, TAO).
 * Every subnet's validators get stake from at least two coldkeys other than their own.
 */
const NOMINATIONS: readonly [string, number, number, bigint][] = [
  ["Nominator1", 0, 0, 120n],
  ["Nominator1", 1, 1, 200n],
  ["Nominator2", 0, 1, 60n],
  ["Nominator2", 2, 0, 80n],
  ["Nominator3", 1, 0, 250n],
  ["Nominator3", 3, 0, 90n],
  ["Nominator4", 2, 2, 40n],
  ["Nominator4", 3, 0, 60n],
  ["Nominator4", 0, 2, 30n],
];

/**
 * Block 4: each validator stakes on itself and becomes a delegate, nominators stake to validators of
 * other coldkeys, each owner's validator names its child hotkey, and the validators' coldkeys set
 * their identities.
 */
export async function stakeAndDelegate(run: SeedRun): Promise<void> {
  const calls: SeedCall[] = [];
  const placed = placedSubnets(run);
  for (const { plan, subnet } of placed) {
    plan.validators.forEach(({ coldkey, selfStakeTao }, index) => {
      const hotkey = subnet.validators[index]!;
      calls.push(
        signed(
          run,
          coldkey,
          `${coldkey} stakes ${selfStakeTao} TAO on its validator on subnet ${subnet.netuid}`,
          tx(run, "subtensorModule", "addStake")(hotkey, subnet.netuid, selfStakeTao * RAO_PER_TAO),
          "stakeAdd",
        ),
        signed(
          run,
          coldkey,
          `${coldkey}/${plan.name} becomes a delegate`,
          tx(run, "subtensorModule", "becomeDelegate")(hotkey),
          "delegate",
        ),
      );
    });
  }
  for (const [nominator, subnetIndex, validatorIndex, tao] of NOMINATIONS) {
    const { subnet } = placed[subnetIndex]!;
    const hotkey = subnet.validators[validatorIndex]!;
    calls.push(
      signed(
        run,
        nominator,
        `${nominator} delegates ${tao} TAO to a validator on subnet ${subnet.netuid}`,
        tx(run, "subtensorModule", "addStake")(hotkey, subnet.netuid, tao * RAO_PER_TAO),
        "stakeAdd",
      ),
    );
  }
  for (const { plan, subnet, owner } of placed) {
    if (owner === undefined || subnet.child === undefined) continue;
    calls.push(
      signed(
        run,
        owner,
        `${owner}/${plan.name} gives half its weight to its child hotkey on subnet ${subnet.netuid}`,
        tx(run, "subtensorModule", "setChildren")(subnet.ownerHotkey, subnet.netuid, [
          [CHILD_PROPORTION, subnet.child],
        ]),
        "children",
      ),
    );
  }
  const validatorColdkeys = [...new Set(placed.flatMap(({ plan }) => plan.validators.map(({ coldkey }) => coldkey)))];
  for (const coldkey of validatorColdkeys)
    calls.push(
      signed(
        run,
        coldkey,
        `identity of ${coldkey}`,
        tx(run, "subtensorModule", "setIdentity")(
          `${coldkey} Validation`,
          `https://${coldkey.toLowerCase()}.example.com`,
          "",
          "",
          `${coldkey}'s validators on the demo network`,
          "",
        ),
        "identity",
      ),
    );
  await sendStep(run, calls);
}

/**
 * Block 5: stake leaves, comes in and moves: unstaking part of an owner's stake, staking to another
 * coldkey's validator, moving stake to another subnet and to another hotkey.
 */
export async function moveStake(run: SeedRun): Promise<void> {
  const [alpha, beta, gamma] = run.subnets as [NativeSeededSubnet, NativeSeededSubnet, NativeSeededSubnet];
  const [alphaOwned, betaOwned, gammaOwned] = (await Promise.all(
    [alpha, beta, gamma].map((subnet) => ownerAlpha(run, subnet)),
  )) as [bigint, bigint, bigint];
  const call = (kind: NativeActivityKind, signer: string, label: string, name: string, ...args: unknown[]) =>
    signed(run, signer, label, tx(run, "subtensorModule", name)(...args), kind);
  await sendStep(run, [
    call(
      "stakeRemove",
      "Alice",
      `Alice unstakes a fifth of her stake on subnet ${alpha.netuid}`,
      "removeStake",
      alpha.ownerHotkey,
      alpha.netuid,
      alphaOwned / 5n,
    ),
    call(
      "stakeRemove",
      "Bob",
      `Bob unstakes a tenth of his stake on subnet ${beta.netuid}`,
      "removeStake",
      beta.ownerHotkey,
      beta.netuid,
      betaOwned / 10n,
    ),
    call(
      "stakeAdd",
      "Dave",
      `Dave stakes 50 TAO to Alice's validator on subnet ${alpha.netuid}`,
      "addStake",
      alpha.ownerHotkey,
      alpha.netuid,
      50n * RAO_PER_TAO,
    ),
    call(
      "stakeMove",
      "Charlie",
      `Charlie moves a quarter of his stake from subnet ${gamma.netuid} to ${beta.netuid}`,
      "moveStake",
      gamma.ownerHotkey,
      gamma.ownerHotkey,
      gamma.netuid,
      beta.netuid,
      gammaOwned / 4n,
    ),
    call(
      "stakeAdd",
      "Eve",
      `Eve stakes 20 TAO to Dave's validator on subnet ${gamma.netuid}`,
      "addStake",
      gamma.validators[2]!,
      gamma.netuid,
      20n * RAO_PER_TAO,
    ),
    call(
      "stakeMove",
      "Bob",
      `Bob moves a tenth of his stake on subnet ${beta.netuid} to another validator`,
      "moveStake",
      beta.ownerHotkey,
      beta.validators[1]!,
      beta.netuid,
      beta.netuid,
      betaOwned / 10n,
    ),
  ]);
}

async function ownerAlpha(run: SeedRun, subnet: NativeSeededSubnet): Promise<bigint> {
  const alpha = await readNativeInteger(
    run.chain.api,
    "subtensorModule",
    "alpha",
    subnet.ownerHotkey,
    subnet.owner,
    subnet.netuid,
  );
  if (alpha < 10n)
    throw new NativeCallError(
      `the owner of subnet ${subnet.netuid} holds no stake (${alpha}); its self-stake is missing`,
    );
  return alpha;
}

function formatTao(rao: bigint): string {
  const whole = rao / RAO_PER_TAO;
  const fraction = (rao % RAO_PER_TAO).toString().padStart(9, "0").replace(/0+$/, "");
  return fraction === "" ? whole.toString() : `${whole}.${fraction}`;
}
