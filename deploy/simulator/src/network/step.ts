import { subtensorStateAbi } from "@platform/devnet";
import { alphaAbi, evmAddressToAccountId, metagraphAbi, precompileAddresses, stakingV2Abi, WEI_PER_RAO } from "@platform/subtensor";
import { bytesToHex, type Hash, type Hex } from "viem";
import type { NetworkContext, SimulatedSubnet } from "./context.js";
import { addToTotalIssuance } from "./issuance.js";

export interface NetworkStepResult {
  /** 1 for the first step of a context. */
  step: number;
  /** Every transaction the step sent, all mined and successful. */
  transactions: { what: string; hash: Hash }[];
  /** The block holding the step's last transaction. */
  blockNumber: bigint;
}

const RAO = 1_000_000_000n;
/** TAO a block emits across subnets (the chain's `BlockEmission` default). */
const BLOCK_EMISSION_RAO = RAO;
/** Alpha minted per block per subnet at the start of its issuance curve. */
const ALPHA_OUT_PER_BLOCK = RAO;

// Fixed gas limits: sending without estimating lets one step's transactions share a block on an
// interval-mining chain, where an estimate against the latest block could see a stale state.
const TRANSFER_GAS = 21_000n;
const STAKE_GAS = 600_000n;
const ADMIN_GAS = 1_500_000n;

/**
 * One step of network activity, every transaction sent and then confirmed together:
 * native transfers between test accounts, an EVM stake through staking V2 and sometimes an unstake,
 * sometimes a Substrate-side holder's stake or unstake, one block's emissions into every dynamic pool
 * (which also moves the moving prices) with the emitted TAO added to `TotalIssuance`, and sometimes
 * a validator's new scores. The coin/USD feed is on another chain and moves apart (src/price).
 */
export async function simulateNetworkStep(ctx: NetworkContext): Promise<NetworkStepResult> {
  await topUpAccounts(ctx);
  const sent: { what: string; hash: Hash }[] = [];
  const track = async (what: string, hash: Promise<Hash>) => {
    sent.push({ what, hash: await hash });
  };
  const { random } = ctx;

  for (let transfers = 1 + random.int(3); transfers > 0; transfers--) {
    const from = random.pick(ctx.accounts);
    const to = random.pick(ctx.accounts.filter((candidate) => candidate !== from));
    const rao = random.bigint(RAO / 100n, 2n * RAO);
    await track(
      `transfer ${rao} rao`,
      from.wallet.sendTransaction({ to: to.account.address, value: rao * WEI_PER_RAO, gas: TRANSFER_GAS }),
    );
  }

  // Positions are read before anything is sent, so an unstake never depends on this step's stakes.
  const unstaker = random.pick(ctx.accounts);
  const unstake = random.chance(0.5) ? await pickPosition(ctx, bytesToHex(evmAddressToAccountId(unstaker.account.address))) : undefined;
  const holder = random.pick(ctx.holderColdkeys);
  const holderMove = random.chance(0.3) ? await pickPosition(ctx, holder) : undefined;

  {
    const staker = random.pick(ctx.accounts);
    const subnet = random.pick(stakeableSubnets(ctx));
    const hotkey = random.pick(subnet.validatorHotkeys);
    const rao = random.bigint(RAO / 10n, 5n * RAO);
    await track(
      `stake ${rao} rao on subnet ${subnet.netuid}`,
      staker.wallet.writeContract({
        address: precompileAddresses.stakingV2,
        abi: stakingV2Abi,
        functionName: "addStake",
        args: [hotkey, rao, BigInt(subnet.netuid)],
        value: rao * WEI_PER_RAO,
        gas: STAKE_GAS,
      }),
    );
  }

  if (unstake !== undefined) {
    const full = random.chance(0.3);
    const amount = full ? unstake.alpha : unstake.alpha / 2n;
    if (amount > 0n) {
      await track(
        `unstake ${full ? "all" : amount} on subnet ${unstake.netuid}`,
        full
          ? unstaker.wallet.writeContract({
              address: precompileAddresses.stakingV2,
              abi: stakingV2Abi,
              functionName: "removeStakeFull",
              args: [unstake.hotkey, BigInt(unstake.netuid)],
              gas: STAKE_GAS,
            })
          : unstaker.wallet.writeContract({
              address: precompileAddresses.stakingV2,
              abi: stakingV2Abi,
              functionName: "removeStake",
              args: [unstake.hotkey, amount, BigInt(unstake.netuid)],
              gas: STAKE_GAS,
            }),
      );
    }
  }

  if (holderMove !== undefined && random.chance(0.5)) {
    await track(
      `holder unstakes on subnet ${holderMove.netuid}`,
      ctx.simulator.writeContract({
        address: ctx.state,
        abi: subtensorStateAbi,
        functionName: "unstakeFor",
        args: [holder, holderMove.hotkey, holderMove.alpha / 3n + 1n, holderMove.netuid],
        gas: ADMIN_GAS,
      }),
    );
  } else if (random.chance(0.3)) {
    const subnet = random.pick(stakeableSubnets(ctx));
    const rao = random.bigint(RAO, 20n * RAO);
    await track(
      `holder stakes on subnet ${subnet.netuid}`,
      ctx.simulator.writeContract({
        address: ctx.state,
        abi: subtensorStateAbi,
        functionName: "stakeFor",
        args: [holder, random.pick(subnet.validatorHotkeys), rao, subnet.netuid],
        value: rao * WEI_PER_RAO,
        gas: ADMIN_GAS,
      }),
    );
  }

  // The emission's alpha is priced off the pools as this step's trades left them. On an
  // interval-mining chain a read at the latest block may or may not see a trade still pending, so
  // the trades are confirmed first: the same seed then always emits the same alpha.
  await confirm(ctx, sent);
  const emissions = await sendEmissions(ctx);
  await track("block emissions", Promise.resolve(emissions.hash));
  const minted = await addToTotalIssuance(ctx, emissions.mintedRao);
  if (minted !== undefined) await track(`total issuance +${emissions.mintedRao} rao`, Promise.resolve(minted));

  if (random.chance(0.4)) {
    const subnet = random.pick(ctx.subnets.filter((candidate) => candidate.uidCount > 0));
    const uid = random.int(subnet.uidCount);
    const permit = await ctx.publicClient.readContract({
      address: precompileAddresses.metagraph,
      abi: metagraphAbi,
      functionName: "getValidatorStatus",
      args: [subnet.netuid, uid],
    });
    const u16 = () => random.int(65_536);
    await track(
      `scores of uid ${uid} on subnet ${subnet.netuid}`,
      ctx.simulator.writeContract({
        address: ctx.state,
        abi: subtensorStateAbi,
        functionName: "setNeuronScores",
        args: [subnet.netuid, uid, u16(), permit ? 0 : u16(), permit ? u16() : 0, permit ? u16() : 0, permit, random.chance(0.95)],
        gas: ADMIN_GAS,
      }),
    );
  }

  const receipts = await confirm(ctx, sent);
  ctx.steps += 1;
  return {
    step: ctx.steps,
    transactions: sent,
    blockNumber: receipts.reduce((highest, receipt) => (receipt.blockNumber > highest ? receipt.blockNumber : highest), 0n),
  };
}

/** Waits for every transaction's receipt; a reverted one fails the step, named. */
async function confirm(ctx: NetworkContext, sent: readonly { what: string; hash: Hash }[]) {
  const receipts = await Promise.all(sent.map(({ hash }) => ctx.publicClient.waitForTransactionReceipt({ hash, timeout: 60_000 })));
  receipts.forEach((receipt, index) => {
    if (receipt.status !== "success") throw new Error(`network step: ${sent[index]!.what} (${receipt.transactionHash}) reverted`);
  });
  return receipts;
}

function stakeableSubnets(ctx: NetworkContext): SimulatedSubnet[] {
  return ctx.subnets.filter((subnet) => subnet.validatorHotkeys.length > 0);
}

/** A non-empty position of the coldkey, picked at random among its stakes to the subnets' validators. */
async function pickPosition(
  ctx: NetworkContext,
  coldkey: Hex,
): Promise<{ hotkey: Hex; netuid: number; alpha: bigint } | undefined> {
  const candidates = stakeableSubnets(ctx).flatMap((subnet) => subnet.validatorHotkeys.map((hotkey) => ({ hotkey, netuid: subnet.netuid })));
  const held = await Promise.all(
    candidates.map(async (candidate) => ({
      ...candidate,
      alpha: await ctx.publicClient.readContract({
        address: precompileAddresses.stakingV2,
        abi: stakingV2Abi,
        functionName: "getStake",
        args: [candidate.hotkey, coldkey, BigInt(candidate.netuid)],
      }),
    })),
  );
  const positions = held.filter((position) => position.alpha > 1n);
  return positions.length === 0 ? undefined : ctx.random.pick(positions);
}

/**
 * One block's emission (research data-api §3.2, simplified): the block's TAO is split over the dynamic
 * subnets by random weights; each injects its share as τ_in with α_in = τ_in / price (so the injection
 * itself does not move the price), and mints one α out to its validators.
 */
async function sendEmissions(ctx: NetworkContext): Promise<{ hash: Hash; mintedRao: bigint }> {
  const dynamic = ctx.subnets.filter((subnet) => subnet.mechanism !== 0);
  const weights = dynamic.map(() => 1 + ctx.random.int(9));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const taoIn: bigint[] = [];
  const alphaIn: bigint[] = [];
  for (const [index, subnet] of dynamic.entries()) {
    const tao = (BLOCK_EMISSION_RAO * BigInt(weights[index]!)) / BigInt(total);
    const price = await ctx.publicClient.readContract({
      address: precompileAddresses.alpha,
      abi: alphaAbi,
      functionName: "getAlphaPrice",
      args: [subnet.netuid],
    });
    taoIn.push(tao);
    alphaIn.push(price === 0n ? 0n : (tao * 10n ** 18n) / price);
  }
  const mintedRao = taoIn.reduce((sum, tao) => sum + tao, 0n);
  const hash = await ctx.simulator.writeContract({
    address: ctx.state,
    abi: subtensorStateAbi,
    functionName: "applyBlockEmissions",
    args: [dynamic.map((subnet) => subnet.netuid), taoIn, alphaIn, dynamic.map(() => ALPHA_OUT_PER_BLOCK)],
    value: mintedRao * WEI_PER_RAO,
    gas: ADMIN_GAS,
  });
  return { hash, mintedRao };
}

/** Tops a low test account up from the simulator with a real transfer, so every balance change is a transaction. */
async function topUpAccounts(ctx: NetworkContext): Promise<void> {
  const sent: Hash[] = [];
  for (const { account } of ctx.accounts) {
    const balance = await ctx.publicClient.getBalance({ address: account.address });
    if (balance * 10n < ctx.accountFunds) {
      sent.push(await ctx.simulator.sendTransaction({ to: account.address, value: ctx.accountFunds - balance, gas: TRANSFER_GAS }));
    }
  }
  await Promise.all(sent.map((hash) => ctx.publicClient.waitForTransactionReceipt({ hash, timeout: 60_000 })));
}
