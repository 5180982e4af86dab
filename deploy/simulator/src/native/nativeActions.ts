import { type NativeCall, type NativeChain, type nativeDevPair, nativeTx } from "@platform/devnet";
import type { NetworkRandom } from "../random.js";
import type { NativeChainState, NativePosition, NativeSubnetState } from "./nativeState.js";

/** The kinds of activity the simulator keeps going. */
export const NATIVE_SIMULATOR_KINDS = ["transfer", "stakeAdd", "stakeRemove", "stakeMove", "register"] as const;
export type NativeSimulatorKind = (typeof NATIVE_SIMULATOR_KINDS)[number];

/** A dev coldkey the simulator signs with. */
export interface NativeActor {
  name: string;
  pair: ReturnType<typeof nativeDevPair>;
}

export type NativeAction = NativeCall & { kind: NativeSimulatorKind; signer: NativeActor["pair"] };

export interface PlanContext {
  api: NativeChain["api"];
  random: NetworkRandom;
  actors: readonly NativeActor[];
  /** Chance per block of registering a neuron with a new hotkey. */
  registerChance: number;
}

const RAO = 1_000_000_000n;
/** Left untouched on every account: fees and the existential deposit come out of it. */
const RESERVE_RAO = RAO;
/** Positions below this are left alone: selling dust only earns an AmountTooLow. */
const MIN_ALPHA = 1_000_000n;

/** One block's worth of random activity that the actors' free balances can pay for. */
export function planTick(ctx: PlanContext, state: NativeChainState): NativeAction[] {
  const budget = new Map(
    ctx.actors.map((actor) => [actor.name, (state.free.get(actor.pair.address) ?? 0n) - RESERVE_RAO]),
  );
  const spend = (actor: NativeActor, rao: bigint) => {
    const left = budget.get(actor.name)! - rao;
    if (left < 0n) return false;
    budget.set(actor.name, left);
    return true;
  };
  const actions: (NativeAction | undefined)[] = [];
  for (let count = 1 + ctx.random.int(2); count > 0; count--) actions.push(planTransfer(ctx, spend));
  actions.push(planStake(ctx, state, spend));
  if (ctx.random.chance(ctx.registerChance)) actions.push(planRegister(ctx, state, spend));
  return actions.filter((action): action is NativeAction => action !== undefined);
}

type Spend = (actor: NativeActor, rao: bigint) => boolean;

function planTransfer(ctx: PlanContext, spend: Spend): NativeAction | undefined {
  const from = ctx.random.pick(ctx.actors);
  const others = ctx.actors.filter((actor) => actor !== from);
  if (others.length === 0) return undefined;
  const to = ctx.random.pick(others);
  const rao = ctx.random.bigint(RAO / 100n, 2n * RAO);
  if (!spend(from, rao)) return undefined;
  const tx = nativeTx(ctx.api, "balances", "transferKeepAlive")(to.pair.address, rao);
  return { kind: "transfer", label: `transfer ${from.name} → ${to.name} ${rao} rao`, tx, signer: from.pair };
}

function planStake(ctx: PlanContext, state: NativeChainState, spend: Spend): NativeAction | undefined {
  const positions = state.positions.filter(
    (position) => position.alpha >= MIN_ALPHA && actorOf(ctx, position.coldkey) !== undefined,
  );
  const roll = ctx.random.next();
  if (positions.length > 0 && roll >= 0.4) {
    const position = ctx.random.pick(positions);
    return roll < 0.7 ? planRemove(ctx, position) : planMove(ctx, state, position);
  }
  return planAdd(ctx, state, spend);
}

function planAdd(ctx: PlanContext, state: NativeChainState, spend: Spend): NativeAction | undefined {
  const subnets = state.subnets.filter((subnet) => subnet.hotkeys.length > 0);
  if (subnets.length === 0) return undefined;
  const subnet = ctx.random.pick(subnets);
  const hotkey = ctx.random.pick(subnet.hotkeys);
  const actor = ctx.random.pick(ctx.actors);
  const rao = ctx.random.bigint(RAO / 10n, 5n * RAO);
  if (!spend(actor, rao)) return undefined;
  const tx = nativeTx(ctx.api, "subtensorModule", "addStake")(hotkey, subnet.netuid, rao);
  return {
    kind: "stakeAdd",
    label: `${actor.name} stakes ${rao} rao on subnet ${subnet.netuid}`,
    tx,
    signer: actor.pair,
  };
}

function planRemove(ctx: PlanContext, position: NativePosition): NativeAction {
  const actor = actorOf(ctx, position.coldkey)!;
  const alpha = share(ctx, position.alpha);
  const tx = nativeTx(ctx.api, "subtensorModule", "removeStake")(position.hotkey, position.netuid, alpha);
  return {
    kind: "stakeRemove",
    label: `${actor.name} unstakes ${alpha} alpha on subnet ${position.netuid}`,
    tx,
    signer: actor.pair,
  };
}

/** To another hotkey of the same subnet, or else to the same hotkey on another subnet. */
function planMove(ctx: PlanContext, state: NativeChainState, position: NativePosition): NativeAction | undefined {
  const actor = actorOf(ctx, position.coldkey)!;
  const subnet = state.subnets.find((candidate) => candidate.netuid === position.netuid);
  const otherHotkeys = subnet?.hotkeys.filter((hotkey) => hotkey !== position.hotkey) ?? [];
  const otherSubnets = state.subnets.filter((candidate) => candidate.netuid !== position.netuid);
  const toOtherHotkey = otherHotkeys.length > 0 && (otherSubnets.length === 0 || ctx.random.chance(0.5));
  if (!toOtherHotkey && otherSubnets.length === 0) return undefined;
  const destination = toOtherHotkey
    ? { hotkey: ctx.random.pick(otherHotkeys), netuid: position.netuid }
    : { hotkey: position.hotkey, netuid: ctx.random.pick(otherSubnets).netuid };
  const alpha = share(ctx, position.alpha);
  const tx = nativeTx(ctx.api, "subtensorModule", "moveStake")(
    position.hotkey,
    destination.hotkey,
    position.netuid,
    destination.netuid,
    alpha,
  );
  const where = toOtherHotkey
    ? `to another hotkey on subnet ${position.netuid}`
    : `from subnet ${position.netuid} to ${destination.netuid}`;
  return { kind: "stakeMove", label: `${actor.name} moves ${alpha} alpha ${where}`, tx, signer: actor.pair };
}

function planRegister(ctx: PlanContext, state: NativeChainState, spend: Spend): NativeAction | undefined {
  const open = state.subnets.filter((subnet) => subnet.canRegister);
  if (open.length === 0) return undefined;
  const subnet: NativeSubnetState = ctx.random.pick(open);
  const actor = ctx.random.pick(ctx.actors);
  if (!spend(actor, subnet.burn)) return undefined;
  const hotkey = freshHotkey(ctx);
  const tx = nativeTx(ctx.api, "subtensorModule", "burnedRegister")(subnet.netuid, hotkey);
  return {
    kind: "register",
    label: `${actor.name} registers hotkey ${hotkey.slice(0, 10)}… on subnet ${subnet.netuid}`,
    tx,
    signer: actor.pair,
  };
}

/** 10 % to 60 % of a position, so positions shrink but rarely vanish. */
function share(ctx: PlanContext, alpha: bigint): bigint {
  return (alpha * BigInt(10 + ctx.random.int(51))) / 100n;
}

/** A hotkey needs no key pair to be registered or staked to, only an account id; this one is new. */
function freshHotkey(ctx: PlanContext): string {
  const words = Array.from({ length: 8 }, () =>
    ctx.random
      .int(2 ** 32)
      .toString(16)
      .padStart(8, "0"),
  );
  return `0x${words.join("")}`;
}

function actorOf(ctx: PlanContext, ss58: string): NativeActor | undefined {
  return ctx.actors.find((actor) => actor.pair.address === ss58);
}
