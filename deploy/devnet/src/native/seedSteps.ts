import { accountFromEvmAddress } from "@platform/subtensor";
import { privateKeyToAccount } from "viem/accounts";
import { evmTransferCall } from "./evmTransfer.js";
import { nativeStorage, nativeTx, readNativeInteger, type NativeChain } from "./nativeChain.js";
import { findEvents } from "./nativeEvents.js";
import {
  NativeCallError,
  sendNativeCalls,
  type BlockProducer,
  type LandedCall,
  type NativeCall,
} from "./nativeSubmit.js";
import { devPair, SEED_SUBNETS, type SeedKeys } from "./seedAccounts.js";
import type { NativeActivityKind, NativeActivity, NativeSeededSubnet } from "./seedTypes.js";

export const RAO_PER_TAO = 1_000_000_000n;
/** What each dev account is given: far more than the seed and a long simulator run spend. */
const DEV_FUNDS_RAO = 1_000_000n * RAO_PER_TAO;
/** Mechanism 1: a dynamic subnet with its own alpha pool. */
const DYNAMIC_MECHANISM = 1;

/** The state a seed run builds up, step by step. */
export interface SeedRun {
  chain: NativeChain;
  producer: BlockProducer;
  keys: SeedKeys;
  subnets: NativeSeededSubnet[];
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

/**
 * The only state written directly: the dev accounts' balances (raonet's genesis gives them nothing)
 * and the sudo key (raonet's has no known seed). Nonces are kept, so a second seed of the same chain
 * does not replay old nonces.
 */
export async function fundDevAccounts(run: SeedRun): Promise<void> {
  const { api } = run.chain;
  const entries = [];
  let balancesIssuance = await readNativeInteger(api, "balances", "totalIssuance");
  for (const pair of run.keys.dev.values()) {
    const stored = (await nativeStorage(api, "system", "account")(pair.address)).toJSON() as {
      nonce?: number;
      data?: { free?: number | string; reserved?: number | string };
    };
    balancesIssuance += DEV_FUNDS_RAO - BigInt(stored.data?.free ?? 0) - BigInt(stored.data?.reserved ?? 0);
    entries.push([
      [pair.address],
      { nonce: stored.nonce ?? 0, providers: 1, data: { free: DEV_FUNDS_RAO.toString() } },
    ]);
  }
  // The funds are written straight into accounts, so the issuances are set to match: Balances' is
  // the TAO in accounts, Subtensor's that plus what is staked and locked (raonet's genesis leaves it
  // at 0, which would make the network's free supply negative). The runtime keeps both from here on.
  const netuids = (
    (await nativeStorage(api, "subtensorModule", "networksAdded").keys()) as unknown as {
      args: [{ toString(): string }];
    }[]
  ).map((key) => Number(key.args[0].toString()));
  let locked = 0n;
  for (const netuid of netuids) locked += await readNativeInteger(api, "subtensorModule", "subnetLocked", netuid);
  const subtensorIssuance = balancesIssuance + (await readNativeInteger(api, "subtensorModule", "totalStake")) + locked;
  await run.chain.rpc("dev_setStorage", [
    {
      System: { Account: entries },
      Balances: { TotalIssuance: balancesIssuance.toString() },
      SubtensorModule: { TotalIssuance: subtensorIssuance.toString() },
      Sudo: { Key: devPair(run.keys, "Alice").address },
    },
  ]);
}

/** Block 1: lifts the subnet rate limit (sudo), registers the subnets, and moves balances around. */
export async function registerSubnets(run: SeedRun): Promise<void> {
  const { api } = run.chain;
  const alice = devPair(run.keys, "Alice");
  const sudo = nativeTx(api, "sudo", "sudo")(nativeTx(api, "adminUtils", "sudoSetNetworkRateLimit")(0));
  const registrations = SEED_SUBNETS.map((plan): SeedCall => {
    const hotkey = run.keys.hotkey(plan.owner, plan.name).address;
    const tx = plan.identityAtRegistration
      ? nativeTx(api, "subtensorModule", "registerNetworkWithIdentity")(
          hotkey,
          DYNAMIC_MECHANISM,
          subnetIdentity(plan.name),
        )
      : nativeTx(api, "subtensorModule", "registerNetwork")(hotkey, DYNAMIC_MECHANISM);
    return {
      kind: "subnetRegister",
      label: `subnet ${plan.name} registered by ${plan.owner}`,
      tx,
      signer: devPair(run.keys, plan.owner),
    };
  });
  const evmMapped = accountFromEvmAddress(privateKeyToAccount(run.keys.evmKey).address).ss58;
  const landed = await sendStep(run, [
    { label: "sudo: network rate limit 0", tx: sudo, signer: alice },
    ...registrations,
    transfer(run, "Alice", devPair(run.keys, "Bob").address, "Bob", 100n * RAO_PER_TAO),
    transfer(run, "Bob", run.keys.fresh.address, "a fresh account", 10n * RAO_PER_TAO),
    transfer(run, "Charlie", devPair(run.keys, "Dave").address, "Dave", (7n * RAO_PER_TAO) / 2n),
    transfer(run, "Eve", evmMapped, "the EVM key's mapped account", 2n * RAO_PER_TAO),
  ]);
  for (const [index, plan] of SEED_SUBNETS.entries()) {
    const added = findEvents(landed[index + 1]!.events, "subtensorModule.NetworkAdded")[0];
    if (added === undefined) throw new NativeCallError(`subnet ${plan.name}: no SubtensorModule.NetworkAdded event`);
    const owner = devPair(run.keys, plan.owner).address;
    run.subnets.push({
      netuid: Number(added.data[0]!.toString()),
      name: plan.name,
      owner,
      ownerHotkey: run.keys.hotkey(plan.owner, plan.name).address,
      neurons: [],
    });
  }
}

function transfer(run: SeedRun, from: string, to: string, toName: string, rao: bigint): SeedCall {
  const tx = nativeTx(run.chain.api, "balances", "transferKeepAlive")(to, rao);
  return {
    kind: "transfer",
    label: `transfer ${from} → ${toName} ${formatTao(rao)} TAO`,
    tx,
    signer: devPair(run.keys, from),
  };
}

function subnetIdentity(name: string) {
  return { subnetName: name, githubRepo: `https://github.com/example/${name}`, subnetContact: `${name}@example.com` };
}

/** Block 2: neurons on every subnet, the bare subnet's identity, and the EVM transfer. */
export async function registerNeurons(run: SeedRun): Promise<void> {
  const { api } = run.chain;
  const neurons = SEED_SUBNETS.flatMap((plan, index) =>
    plan.neurons.map((coldkey): SeedCall & { subnet: NativeSeededSubnet; hotkey: string } => {
      const subnet = run.subnets[index]!;
      const hotkey = run.keys.hotkey(coldkey, plan.name).address;
      const tx = nativeTx(api, "subtensorModule", "burnedRegister")(subnet.netuid, hotkey);
      return {
        kind: "register",
        label: `neuron ${coldkey}/${plan.name} on subnet ${subnet.netuid}`,
        tx,
        signer: devPair(run.keys, coldkey),
        subnet,
        hotkey,
      };
    }),
  );
  const identities = SEED_SUBNETS.flatMap((plan, index): SeedCall[] => {
    if (plan.identityAtRegistration) return [];
    const { subnetName, githubRepo, subnetContact } = subnetIdentity(plan.name);
    const tx = nativeTx(api, "subtensorModule", "setSubnetIdentity")(
      run.subnets[index]!.netuid,
      subnetName,
      githubRepo,
      subnetContact,
    );
    return [{ label: `identity of subnet ${plan.name}`, tx, signer: devPair(run.keys, plan.owner) }];
  });
  const evm = await evmTransferCall(api, {
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
  const landed = await sendStep(run, [...neurons, ...identities, evmCall]);
  for (const neuron of neurons) neuron.subnet.neurons.push(neuron.hotkey);
  checkEvmExecuted(evmCall.label, landed.at(-1)!);
}

/** `ethereum.transact` succeeds as an extrinsic even when the EVM reverts; Executed's exit reason tells. */
function checkEvmExecuted(label: string, landed: LandedCall): void {
  const executed = findEvents(landed.events, "ethereum.Executed")[0];
  const exit = executed?.data[3] as unknown as { isSucceed: boolean; toString(): string } | undefined;
  if (exit === undefined || !exit.isSucceed)
    throw new NativeCallError(`${label}: EVM did not succeed (${exit?.toString() ?? "no Ethereum.Executed"})`);
}

/**
 * Block 3: stake leaves, comes in and moves. A new dynamic subnet's pool starts with 1 rao of TAO and
 * 1 of alpha, so a stake into it buys no alpha; the owners' alpha (their emission cut, paid from the
 * block after registration) sold first gives the pools something to sell.
 */
export async function moveStake(run: SeedRun): Promise<void> {
  const { api } = run.chain;
  const [alpha, beta, gamma] = run.subnets as [NativeSeededSubnet, NativeSeededSubnet, NativeSeededSubnet];
  const [alphaOwned, betaOwned, gammaOwned] = await Promise.all(run.subnets.map((subnet) => ownerAlpha(run, subnet)));
  const tx = (call: string) => nativeTx(api, "subtensorModule", call);
  const call = (kind: NativeActivityKind, signer: string, label: string, extrinsic: SeedCall["tx"]): SeedCall => ({
    kind,
    label,
    tx: extrinsic,
    signer: devPair(run.keys, signer),
  });
  // Each buy follows a sale on the same subnet: an emptied pool sells nothing to the next buyer.
  await sendStep(run, [
    call(
      "stakeRemove",
      "Alice",
      `Alice unstakes half her owner alpha on subnet ${alpha.netuid}`,
      tx("removeStake")(alpha.ownerHotkey, alpha.netuid, alphaOwned! / 2n),
    ),
    call(
      "stakeRemove",
      "Bob",
      `Bob unstakes a quarter of his owner alpha on subnet ${beta.netuid}`,
      tx("removeStake")(beta.ownerHotkey, beta.netuid, betaOwned! / 4n),
    ),
    call(
      "stakeAdd",
      "Dave",
      `Dave stakes 50 TAO on subnet ${alpha.netuid}`,
      tx("addStake")(alpha.ownerHotkey, alpha.netuid, 50n * RAO_PER_TAO),
    ),
    call(
      "stakeMove",
      "Charlie",
      `Charlie moves half his owner alpha from subnet ${gamma.netuid} to ${beta.netuid}`,
      tx("moveStake")(gamma.ownerHotkey, gamma.ownerHotkey, gamma.netuid, beta.netuid, gammaOwned! / 2n),
    ),
    call(
      "stakeAdd",
      "Eve",
      `Eve stakes 20 TAO on subnet ${gamma.netuid}`,
      tx("addStake")(gamma.neurons[0]!, gamma.netuid, 20n * RAO_PER_TAO),
    ),
    call(
      "stakeMove",
      "Bob",
      `Bob moves a quarter of his owner alpha on subnet ${beta.netuid} to another hotkey`,
      tx("moveStake")(beta.ownerHotkey, beta.neurons[0]!, beta.netuid, beta.netuid, betaOwned! / 4n),
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
  if (alpha < 2n)
    throw new Error(
      `the owner of subnet ${subnet.netuid} holds no alpha yet (${alpha}); the seed expects one block of emission first`,
    );
  return alpha;
}

function formatTao(rao: bigint): string {
  const whole = rao / RAO_PER_TAO;
  const fraction = (rao % RAO_PER_TAO).toString().padStart(9, "0").replace(/0+$/, "");
  return fraction === "" ? whole.toString() : `${whole}.${fraction}`;
}
