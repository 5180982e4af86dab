import { TransactionType } from "@platform/proto/common/v1/network";
import { type AccountId, formatRatio } from "@platform/subtensor";
import type { Hex } from "viem";
import {
  accountField,
  accountsIn,
  amountField,
  evmAccountField,
  namedFields,
  netuidField,
  tupleFields,
} from "../node/eventFields.js";
import { eventName, type NativeBlockFacts, type RuntimeEvent } from "../node/runtimeEvent.js";
import { type Activity, transferParties } from "../records/activity.js";

/**
 * What a block did to accounts, read from its runtime events (decoded with the block's own
 * metadata): balance transfers, stake added, removed, moved, swapped and transferred, neuron and
 * subnet registrations, EVM executions, and failed extrinsics that still cost their fee. An event
 * the source has no meaning for is kept as a TRANSACTION_TYPE_OTHER activity of every account it
 * names, never dropped; one whose known name comes with an unexpected shape (another runtime's
 * fields) is kept the same way, never misread.
 *
 * A stake move, swap or transfer also emits the StakeAdded (and in later runtimes StakeRemoved) of
 * its internal legs: those are folded into the move (its TAO and alpha where the move's own event
 * lacks them), so one move is one activity, as the user did one thing.
 *
 * Each activity carries its extrinsic's index and hash. The extrinsic's fee
 * (`TransactionPayment.TransactionFeePaid`) is carried by the first activity of the account that
 * paid it and is 0 on the others, so summing fees over records counts each fee once.
 */
export function decodeNativeActivities(block: NativeBlockFacts): Activity[] {
  const activities: Activity[] = [];
  for (const extrinsic of groupByExtrinsic(block.events)) {
    const context = extrinsicContext(block, extrinsic);
    const decoded = foldMoveLegs(extrinsic.events.flatMap((event) => decodeEvent(event, context)));
    if (decoded.length === 0 && context.failed && context.payer !== undefined) decoded.push(failedExtrinsic(context));
    activities.push(...chargeFee(decoded, context));
  }
  return activities;
}

interface ExtrinsicEvents {
  index: number | undefined;
  events: RuntimeEvent[];
}

/** What every activity of one extrinsic shares. */
interface ExtrinsicContext {
  blockNumber: bigint;
  index: number;
  hash: Hex;
  /** The signer, as the account that paid the fee; absent for unsigned extrinsics and block hooks. */
  payer?: AccountId;
  feeRao: bigint;
  failed: boolean;
  failure?: RuntimeEvent;
  /** The payer's net outflow besides the fee and explicit transfers: a registration's burn or lock. */
  burnedRao: bigint;
  /** EVM-mapped accounts seen in the extrinsic's `Ethereum.Executed`, by public key, so balance events name their H160. */
  evmAccounts: Map<string, AccountId>;
}

/** Events in block order, grouped by their extrinsic (initialization and finalization apart). */
function groupByExtrinsic(events: readonly RuntimeEvent[]): ExtrinsicEvents[] {
  const groups = new Map<string, ExtrinsicEvents>();
  for (const event of events) {
    const key = event.extrinsicIndex === undefined ? "hooks" : String(event.extrinsicIndex);
    let group = groups.get(key);
    if (group === undefined) {
      group = { index: event.extrinsicIndex, events: [] };
      groups.set(key, group);
    }
    group.events.push(event);
  }
  return [...groups.values()];
}

function extrinsicContext(block: NativeBlockFacts, extrinsic: ExtrinsicEvents): ExtrinsicContext {
  const index = extrinsic.index ?? -1;
  const context: ExtrinsicContext = {
    blockNumber: block.number,
    index,
    hash: block.extrinsicHashes[index] ?? ("0x" as Hex),
    feeRao: 0n,
    failed: false,
    burnedRao: 0n,
    evmAccounts: new Map(),
  };
  let withdrawn = 0n;
  let deposited = 0n;
  const flows: { kind: "withdraw" | "deposit"; who: string; amount: bigint }[] = [];
  let evmSender: AccountId | undefined;
  for (const event of extrinsic.events) {
    const fields = namedFields(event.data);
    switch (eventName(event)) {
      case "TransactionPayment.TransactionFeePaid": {
        const payer = accountField(fields?.["who"]);
        if (payer !== undefined) context.payer = payer;
        context.feeRao = amountField(fields?.["actualFee"]) ?? 0n;
        break;
      }
      case "System.ExtrinsicFailed":
        context.failed = true;
        context.failure = event;
        break;
      case "Balances.Withdraw":
      case "Balances.Deposit": {
        const who = accountField(fields?.["who"]);
        const amount = amountField(fields?.["amount"]);
        if (who !== undefined && amount !== undefined)
          flows.push({ kind: event.name === "Withdraw" ? "withdraw" : "deposit", who: who.publicKey, amount });
        break;
      }
      case "Ethereum.Executed": {
        const from = evmAccountField(fields?.["from"]);
        const to = evmAccountField(fields?.["to"]);
        for (const account of [from, to])
          if (account !== undefined) context.evmAccounts.set(account.publicKey, account);
        evmSender ??= from;
        break;
      }
    }
  }
  // An EVM transaction pays no TransactionFeePaid: Frontier withdraws the gas at the full price
  // from the sender's mapped account and deposits the unused part back, so its fee is the difference.
  if (context.payer === undefined && evmSender !== undefined) {
    context.payer = evmSender;
    const net = flows
      .filter((flow) => flow.who === evmSender!.publicKey)
      .reduce((sum, flow) => sum + (flow.kind === "withdraw" ? flow.amount : -flow.amount), 0n);
    context.feeRao = net > 0n ? net : 0n;
  }
  for (const flow of flows) {
    if (flow.who !== context.payer?.publicKey) continue;
    if (flow.kind === "withdraw") withdrawn += flow.amount;
    else deposited += flow.amount;
  }
  const burned = withdrawn - deposited - context.feeRao;
  context.burnedRao = burned > 0n ? burned : 0n;
  return context;
}

const MOVES = new Set([
  TransactionType.TRANSACTION_TYPE_STAKE_MOVE,
  TransactionType.TRANSACTION_TYPE_STAKE_SWAP,
  TransactionType.TRANSACTION_TYPE_STAKE_TRANSFER,
]);
const LEGS = new Set([TransactionType.TRANSACTION_TYPE_STAKE_ADD, TransactionType.TRANSACTION_TYPE_STAKE_REMOVE]);

/** An extrinsic's stake adds and removes of the coldkey that moved stake in it are that move's legs. */
function foldMoveLegs(activities: Activity[]): Activity[] {
  const moves = activities.filter((activity) => MOVES.has(activity.type));
  if (moves.length === 0) return activities;
  const movers = new Set(moves.map((move) => move.from.publicKey));
  const legs = activities.filter((activity) => LEGS.has(activity.type) && movers.has(activity.from.publicKey));
  const added = legs.find((leg) => leg.type === TransactionType.TRANSACTION_TYPE_STAKE_ADD);
  return activities
    .filter((activity) => !legs.includes(activity))
    .map((activity) =>
      MOVES.has(activity.type) && added !== undefined && activity.from.publicKey === added.from.publicKey
        ? {
            ...activity,
            ...(activity.amountRao === undefined && added.amountRao !== undefined
              ? { amountRao: added.amountRao }
              : {}),
            ...(activity.alphaNalpha === undefined && added.alphaNalpha !== undefined
              ? { alphaNalpha: added.alphaNalpha }
              : {}),
          }
        : activity,
    );
}

type EventDecoder = (event: RuntimeEvent, context: ExtrinsicContext) => Activity[] | undefined;

/** Bookkeeping events: their meaning is already carried by the activities above (fees, balances). */
const BOOKKEEPING = new Set([
  "System.ExtrinsicSuccess",
  "System.ExtrinsicFailed",
  "System.NewAccount",
  "System.KilledAccount",
  "TransactionPayment.TransactionFeePaid",
  ...[
    "Withdraw",
    "Deposit",
    "Endowed",
    "Upgraded",
    "DustLost",
    "Reserved",
    "Unreserved",
    "Locked",
    "Unlocked",
    "Frozen",
    "Thawed",
    "Issued",
    "Rescinded",
    "Minted",
    "Burned",
  ].map((name) => `Balances.${name}`),
]);

function decodeEvent(event: RuntimeEvent, context: ExtrinsicContext): Activity[] {
  const name = eventName(event);
  const decoder = DECODERS[name];
  const known = decoder?.(event, context);
  if (known !== undefined) return known;
  if (BOOKKEEPING.has(name)) return [];
  return otherActivities(event, context);
}

const DECODERS: Record<string, EventDecoder> = {
  "Balances.Transfer": (event, context) => {
    const fields = namedFields(event.data);
    const from = withEvm(accountField(fields?.["from"]), context);
    const to = withEvm(accountField(fields?.["to"]), context);
    const amountRao = amountField(fields?.["amount"]);
    if (from === undefined || to === undefined || amountRao === undefined) return undefined;
    return [
      activity(event, context, {
        type: TransactionType.TRANSACTION_TYPE_TRANSFER,
        from,
        to,
        amountRao,
        parties: transferParties(from, to),
      }),
    ];
  },
  "SubtensorModule.StakeAdded": (event, context) =>
    stakeChange(event, context, TransactionType.TRANSACTION_TYPE_STAKE_ADD, "out"),
  "SubtensorModule.StakeRemoved": (event, context) =>
    stakeChange(event, context, TransactionType.TRANSACTION_TYPE_STAKE_REMOVE, "in"),
  // (coldkey, origin hotkey, origin netuid, destination hotkey, destination netuid) in spec 218;
  // later runtimes append the TAO amount moved.
  "SubtensorModule.StakeMoved": (event, context) => {
    const fields = tupleFields(event.data, 6) ?? tupleFields(event.data, 5);
    const coldkey = accountField(fields?.[0]);
    const hotkey = accountField(fields?.[1]);
    const netuid = netuidField(fields?.[2]);
    const destinationHotkey = accountField(fields?.[3]);
    const destinationNetuid = netuidField(fields?.[4]);
    const amountRao = fields?.length === 6 ? amountField(fields[5]) : undefined;
    if (
      coldkey === undefined ||
      hotkey === undefined ||
      netuid === undefined ||
      destinationHotkey === undefined ||
      destinationNetuid === undefined
    )
      return undefined;
    if (fields?.length === 6 && amountRao === undefined) return undefined;
    const type =
      netuid === destinationNetuid
        ? TransactionType.TRANSACTION_TYPE_STAKE_MOVE
        : TransactionType.TRANSACTION_TYPE_STAKE_SWAP;
    return [
      activity(event, context, {
        type,
        from: coldkey,
        ...(amountRao === undefined ? {} : { amountRao }),
        netuid,
        hotkey,
        parties: [{ account: coldkey, direction: "out" }],
        stakeTouches: [
          { coldkey, hotkey, netuid },
          { coldkey, hotkey: destinationHotkey, netuid: destinationNetuid },
        ],
      }),
    ];
  },
  // (coldkey, hotkey, origin netuid, destination netuid, alpha amount); newer runtimes than spec 218.
  "SubtensorModule.StakeSwapped": (event, context) => {
    const fields = tupleFields(event.data, 5);
    const coldkey = accountField(fields?.[0]);
    const hotkey = accountField(fields?.[1]);
    const netuid = netuidField(fields?.[2]);
    const destinationNetuid = netuidField(fields?.[3]);
    const alphaNalpha = amountField(fields?.[4]);
    if (
      coldkey === undefined ||
      hotkey === undefined ||
      netuid === undefined ||
      destinationNetuid === undefined ||
      alphaNalpha === undefined
    )
      return undefined;
    return [
      activity(event, context, {
        type: TransactionType.TRANSACTION_TYPE_STAKE_SWAP,
        from: coldkey,
        netuid,
        hotkey,
        alphaNalpha,
        parties: [{ account: coldkey, direction: "out" }],
        stakeTouches: [
          { coldkey, hotkey, netuid },
          { coldkey, hotkey, netuid: destinationNetuid },
        ],
      }),
    ];
  },
  // (origin coldkey, destination coldkey, hotkey, origin netuid, destination netuid, amount); newer runtimes.
  "SubtensorModule.StakeTransferred": (event, context) => {
    const fields = tupleFields(event.data, 6);
    const from = accountField(fields?.[0]);
    const to = accountField(fields?.[1]);
    const hotkey = accountField(fields?.[2]);
    const netuid = netuidField(fields?.[3]);
    const destinationNetuid = netuidField(fields?.[4]);
    const alphaNalpha = amountField(fields?.[5]);
    if (
      from === undefined ||
      to === undefined ||
      hotkey === undefined ||
      netuid === undefined ||
      destinationNetuid === undefined ||
      alphaNalpha === undefined
    )
      return undefined;
    return [
      activity(event, context, {
        type: TransactionType.TRANSACTION_TYPE_STAKE_TRANSFER,
        from,
        to,
        netuid,
        hotkey,
        alphaNalpha,
        parties: transferParties(from, to),
        stakeTouches: [
          { coldkey: from, hotkey, netuid },
          { coldkey: to, hotkey, netuid: destinationNetuid },
        ],
      }),
    ];
  },
  // (netuid, uid, hotkey): the signer paid (burn or proof of work).
  "SubtensorModule.NeuronRegistered": (event, context) => {
    const fields = tupleFields(event.data, 3);
    const netuid = netuidField(fields?.[0]);
    const hotkey = accountField(fields?.[2]);
    const payer = context.payer;
    if (netuid === undefined || hotkey === undefined || payer === undefined) return undefined;
    return [
      activity(event, context, {
        type: TransactionType.TRANSACTION_TYPE_NEURON_REGISTER,
        from: payer,
        netuid,
        hotkey,
        ...(context.burnedRao > 0n ? { amountRao: context.burnedRao } : {}),
        parties: [{ account: payer, direction: "out" }],
      }),
    ];
  },
  // (netuid, mechanism): the signer locked the registration cost.
  "SubtensorModule.NetworkAdded": (event, context) => {
    const fields = tupleFields(event.data, 2);
    const netuid = netuidField(fields?.[0]);
    const payer = context.payer;
    if (netuid === undefined) return undefined;
    // Added by a root or sudo call: network state, not an account's activity.
    if (payer === undefined) return [];
    return [
      activity(event, context, {
        type: TransactionType.TRANSACTION_TYPE_SUBNET_REGISTER,
        from: payer,
        netuid,
        ...(context.burnedRao > 0n ? { amountRao: context.burnedRao } : {}),
        parties: [{ account: payer, direction: "out" }],
      }),
    ];
  },
  "Ethereum.Executed": (event, context) => {
    const fields = namedFields(event.data);
    const from = evmAccountField(fields?.["from"]);
    const to = evmAccountField(fields?.["to"]);
    if (from === undefined || to === undefined) return undefined;
    const hash = fields?.["transactionHash"];
    return [
      {
        ...activity(event, context, {
          type: TransactionType.TRANSACTION_TYPE_EVM_TX,
          from,
          to,
          parties: [{ account: from, direction: "out" }],
        }),
        success: executedSucceeded(fields?.["exitReason"]),
        // The EVM transaction's own hash identifies it to its sender; the extrinsic id still places it.
        ...(typeof hash === "string" ? { txHash: hash.toLowerCase() as Hex } : {}),
      },
    ];
  },
};

/** (coldkey, hotkey, TAO, alpha, netuid): spec 218's StakeAdded and StakeRemoved. */
function stakeChange(
  event: RuntimeEvent,
  context: ExtrinsicContext,
  type: TransactionType,
  direction: "in" | "out",
): Activity[] | undefined {
  const fields = tupleFields(event.data, 5);
  const coldkey = accountField(fields?.[0]);
  const hotkey = accountField(fields?.[1]);
  const amountRao = amountField(fields?.[2]);
  const alphaNalpha = amountField(fields?.[3]);
  const netuid = netuidField(fields?.[4]);
  if (
    coldkey === undefined ||
    hotkey === undefined ||
    amountRao === undefined ||
    alphaNalpha === undefined ||
    netuid === undefined
  )
    return undefined;
  const effectivePriceTao = alphaNalpha > 0n ? formatRatio(amountRao, alphaNalpha, 9) : undefined;
  return [
    activity(
      event,
      context,
      {
        type,
        from: coldkey,
        amountRao,
        alphaNalpha,
        netuid,
        hotkey,
        parties: [{ account: coldkey, direction }],
        stakeTouches: [{ coldkey, hotkey, netuid }],
      },
      effectivePriceTao,
    ),
  ];
}

/** An event without a meaning here, kept for each account it names. */
function otherActivities(event: RuntimeEvent, context: ExtrinsicContext): Activity[] {
  const accounts = accountsIn(event.data);
  const [first] = accounts;
  if (first === undefined) return [];
  return [
    activity(event, context, {
      type: TransactionType.TRANSACTION_TYPE_OTHER,
      from: context.payer ?? first,
      parties: accounts.map((account) => ({
        account,
        direction: account.publicKey === context.payer?.publicKey ? "out" : "in",
      })),
    }),
  ];
}

/** A signed extrinsic that failed: nothing happened but its fee. */
function failedExtrinsic(context: ExtrinsicContext): Activity {
  const payer = context.payer!;
  const failure = context.failure!;
  return {
    ...activity(failure, context, {
      type: TransactionType.TRANSACTION_TYPE_OTHER,
      from: payer,
      parties: [{ account: payer, direction: "out" }],
    }),
    success: false,
  };
}

type ActivityBody = Pick<Activity, "type" | "from" | "parties"> &
  Partial<Pick<Activity, "to" | "amountRao" | "netuid" | "hotkey" | "alphaNalpha" | "stakeTouches">>;

function activity(
  event: RuntimeEvent,
  context: ExtrinsicContext,
  body: ActivityBody,
  effectivePriceTao?: string,
): Activity {
  return {
    activityId: `${context.blockNumber}-${context.index}-${event.index}`,
    txHash: context.hash,
    txIndex: context.index,
    success: !context.failed,
    feeRao: 0n,
    stakeTouches: [],
    ...body,
    substrate: {
      eventIndex: event.index,
      eventName: eventName(event),
      extrinsicHash: context.hash,
      ...(effectivePriceTao === undefined ? {} : { effectivePriceTao }),
    },
  };
}

/** The fee goes on the payer's EVM execution if the extrinsic is one, else on its first activity of the extrinsic. */
function chargeFee(activities: Activity[], context: ExtrinsicContext): Activity[] {
  const payer = context.payer?.publicKey;
  const execution = activities.findIndex(
    (candidate) => candidate.type === TransactionType.TRANSACTION_TYPE_EVM_TX && candidate.from.publicKey === payer,
  );
  const charged = execution >= 0 ? execution : activities.findIndex((candidate) => candidate.from.publicKey === payer);
  if (charged >= 0) activities[charged] = { ...activities[charged]!, feeRao: context.feeRao };
  return activities;
}

/** An account the extrinsic's EVM execution names keeps its H160. */
function withEvm(account: AccountId | undefined, context: ExtrinsicContext): AccountId | undefined {
  return account === undefined ? undefined : (context.evmAccounts.get(account.publicKey) ?? account);
}

function executedSucceeded(exitReason: unknown): boolean {
  const kind =
    typeof exitReason === "object" && exitReason !== null && "type" in exitReason
      ? (exitReason as { type: unknown }).type
      : exitReason;
  return kind === "Succeed";
}
