import { DecodeError } from "@platform/errors/base";
import type { ChainRef, Finality } from "@platform/proto/common/v1/common";
import type { IntentsChainEvent, Output } from "@platform/proto/events/v1/chain_intents";
import { eventTypeOf } from "@platform/proto/topics";
import { fullSettlerAbi } from "@platform/settler";
import { decodeEventLog, getAbiItem, getAddress, type Hex, toEventSelector } from "viem";
import type { RawLog } from "../evm/rawLog.js";
import type { BlockHeader } from "../follower/blocks.js";
import { decodeOpenData } from "./decodeOpenData.js";
import { chainEventId, type IntentsEvent } from "./intentsEvent.js";

const selector = (name: "Open" | "Filled" | "Settled" | "Refunded"): Hex =>
  toEventSelector(getAbiItem({ abi: fullSettlerAbi, name }) as Parameters<typeof toEventSelector>[0]);

/** The four events alone: viem looks an event up by hashing every event item of the ABI it is given. */
const followedAbi = fullSettlerAbi.filter(
  (item) =>
    item.type === "event" &&
    (item.name === "Open" || item.name === "Filled" || item.name === "Settled" || item.name === "Refunded"),
);

/** topic0 of the four FullSettler events the intents mirror follows; the getLogs filter asks for these only. */
export const settlerTopics = {
  open: selector("Open"),
  filled: selector("Filled"),
  settled: selector("Settled"),
  refunded: selector("Refunded"),
} as const;

export const followedTopics: Hex[] = Object.values(settlerTopics);

export interface DecodeContext {
  chainId: number;
  /** The header of the log's block (already checked to be the log's block). */
  header: BlockHeader;
  finality: Finality;
  /** `from` of the transaction; needed for Open only. */
  txFrom(txHash: Hex): Hex | undefined;
}

/**
 * The intents event of one FullSettler log, with its chain reference; undefined for the settler's
 * other events (ownership, peers, bounds). A followed event that does not decode is a mismatch
 * between the deployed contract and the ABI, and throws: skipping it would lose a fact.
 */
export function decodeSettlerLog(log: RawLog, context: DecodeContext): IntentsEvent | undefined {
  const topic0 = log.topics[0]?.toLowerCase();
  if (topic0 === undefined || !(followedTopics as string[]).includes(topic0)) return undefined;
  let decoded: ReturnType<typeof decodeEventLog<typeof fullSettlerAbi>>;
  try {
    decoded =
      topic0 === settlerTopics.open
        ? decodeOpenFast(log)
        : decodeEventLog({ abi: followedAbi, topics: log.topics as [Hex, ...Hex[]], data: log.data, strict: true });
  } catch (error) {
    throw new DecodeError(
      `could not decode a FullSettler log (tx ${log.transactionHash}, log ${Number(log.logIndex)}) on chain ${context.chainId}`,
      {
        cause: error,
      },
    );
  }
  const txHash = log.transactionHash.toLowerCase() as Hex;
  const logIndex = Number(log.logIndex);
  const ref: ChainRef = {
    chainId: String(context.chainId),
    blockNumber: context.header.number.toString(),
    blockHash: context.header.hash,
    parentHash: context.header.parentHash,
    blockTimestamp: new Date(Number(context.header.timestamp) * 1_000).toISOString(),
    txHash,
    txIndex: Number(log.transactionIndex),
    logIndex,
    finality: context.finality,
  };
  const settler = getAddress(log.address);
  let payload: IntentsChainEvent;
  switch (decoded.eventName) {
    case "Open": {
      const { orderId, resolvedOrder } = decoded.args;
      const from = context.txFrom(txHash);
      if (from === undefined)
        throw new Error(`no sender known for the Open transaction ${txHash} on chain ${context.chainId}`);
      payload = {
        event: {
          $case: "orderOpened",
          value: {
            ref,
            orderId: lower(orderId),
            settler,
            txFrom: getAddress(from),
            resolvedOrder: {
              user: getAddress(resolvedOrder.user),
              originChainId: resolvedOrder.originChainId.toString(),
              openDeadline: resolvedOrder.openDeadline,
              fillDeadline: resolvedOrder.fillDeadline,
              orderId: lower(resolvedOrder.orderId),
              maxSpent: resolvedOrder.maxSpent.map(toOutput),
              minReceived: resolvedOrder.minReceived.map(toOutput),
              fillInstructions: resolvedOrder.fillInstructions.map((instruction) => ({
                destinationChainId: instruction.destinationChainId.toString(),
                destinationSettler: lower(instruction.destinationSettler),
                originData: lower(instruction.originData),
              })),
            },
          },
        },
      };
      break;
    }
    case "Filled": {
      const { orderId, filler, recipient, outputToken, outputAmount, repaymentAddress } = decoded.args;
      payload = {
        event: {
          $case: "orderFilled",
          value: {
            ref,
            orderId: lower(orderId),
            settler,
            filler: getAddress(filler),
            recipient: lower(recipient),
            outputToken: lower(outputToken),
            outputAmount: outputAmount.toString(),
            repaymentAddress: lower(repaymentAddress),
          },
        },
      };
      break;
    }
    case "Settled": {
      const { orderId, filler, inputToken, inputAmount } = decoded.args;
      payload = {
        event: {
          $case: "orderSettled",
          value: {
            ref,
            orderId: lower(orderId),
            settler,
            filler: getAddress(filler),
            inputToken: lower(inputToken),
            inputAmount: inputAmount.toString(),
          },
        },
      };
      break;
    }
    case "Refunded": {
      const { orderId, user, inputToken, inputAmount } = decoded.args;
      payload = {
        event: {
          $case: "orderRefunded",
          value: {
            ref,
            orderId: lower(orderId),
            settler,
            user: getAddress(user),
            inputToken: lower(inputToken),
            inputAmount: inputAmount.toString(),
          },
        },
      };
      break;
    }
    default:
      return undefined;
  }
  const orderId = (payload.event!.value as { orderId: string }).orderId;
  return {
    key: orderId,
    eventId: chainEventId(context.chainId, context.header.hash, logIndex),
    eventType: eventTypeOf(payload),
    ref,
    payload,
  };
}

/** Open through the direct layout reader, and through viem whenever that one refuses the data. */
function decodeOpenFast(log: RawLog): ReturnType<typeof decodeEventLog<typeof fullSettlerAbi>> {
  const orderId = log.topics[1];
  if (orderId !== undefined && log.topics.length === 2) {
    try {
      return { eventName: "Open", args: { orderId, resolvedOrder: decodeOpenData(log.data) } } as ReturnType<
        typeof decodeEventLog<typeof fullSettlerAbi>
      >;
    } catch {
      // Not the layout FullSettler emits: let the general decoder decide.
    }
  }
  return decodeEventLog({ abi: followedAbi, topics: log.topics as [Hex, ...Hex[]], data: log.data, strict: true });
}

function toOutput(output: { token: Hex; amount: bigint; recipient: Hex; chainId: bigint }): Output {
  return {
    token: lower(output.token),
    amount: output.amount.toString(),
    recipient: lower(output.recipient),
    chainId: output.chainId.toString(),
  };
}

function lower(value: Hex): string {
  return value.toLowerCase();
}

/** True when the log is an Open of the given settler; used to list the orders a receipt opened. */
export function isOpenLog(log: { address: Hex; topics: readonly Hex[] }, settler: Hex): boolean {
  return log.address.toLowerCase() === settler.toLowerCase() && log.topics[0]?.toLowerCase() === settlerTopics.open;
}
